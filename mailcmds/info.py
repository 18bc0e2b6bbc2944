"""Information requests: LIST, SUMMARY, HISTORY, MAP, HELP, GET KEY."""

from __future__ import annotations

from dataclasses import dataclass

from .create import ListStatus
from .model import Command
from .syntax import CommandLine, ParseContext, Verb, expect_count, no_args
from .values import is_phase, parse_address, parse_game, parse_phase


@dataclass(frozen=True, slots=True)
class ListGames(Command):
    """``LIST`` (the games on this judge) or ``LIST game`` (one game's set-up and players);
    after SIGNON, ``LIST`` alone means the signed-on game."""

    game: str | None = None


@dataclass(frozen=True, slots=True)
class Summary(Command):
    """``SUMMARY [game]``: the game's current state (the signed-on game when omitted)."""

    game: str | None = None


@dataclass(frozen=True, slots=True)
class History(Command):
    """``HISTORY [game] [phase]``: results of past phases (from ``phase`` on, if given)."""

    game: str | None = None
    phase: str | None = None


@dataclass(frozen=True, slots=True)
class MapPicture(Command):
    """``MAP [game] [phase]``: the picture of the board after a past phase (the last one
    when no phase is given).  ``MAP name`` alone is also how a signed-on master sets the
    map of a game not yet started; the judge tells the two apart (a master signed on,
    a map of that name), so the word is kept as written in ``game``."""

    game: str | None = None
    phase: str | None = None


@dataclass(frozen=True, slots=True)
class Help(Command):
    topic: str | None = None


@dataclass(frozen=True, slots=True)
class GetKey(Command):
    """``GET KEY``: the judge's public OpenPGP key."""


#: Commands that only read: the same one twice in a mail (for the same signed-on game) is
#: answered once.  MAP too (its pictures are the dearest answer; a master's ``MAP name``
#: twice sets the same map twice).
INFORMATION: tuple[type[Command], ...] = (ListGames, Summary, History, Help, GetKey, MapPicture)


def _list(ctx: ParseContext, line: CommandLine) -> Command:
    args = expect_count(line, 0, 1, "nothing, a game name, or (masters) a mailing-list address")
    if not args:
        return ListGames(source=line.source)
    if "@" in args[0]:
        return ListStatus(parse_address(args[0]), source=line.source)
    return ListGames(parse_game(args[0]), source=line.source)


def _summary(ctx: ParseContext, line: CommandLine) -> Summary:
    args = expect_count(line, 0, 1, "a game name")
    return Summary(parse_game(args[0]) if args else None, source=line.source)


def _game_and_phase(line: CommandLine) -> tuple[str | None, str | None]:
    """``[game] [phase]``: either may be left out (a phase alone is told by its form)."""
    args = expect_count(line, 0, 2, "a game name")
    if len(args) == 2:
        return parse_game(args[0]), parse_phase(args[1])
    if len(args) == 1:
        return (None, parse_phase(args[0])) if is_phase(args[0]) else (parse_game(args[0]), None)
    return None, None


def _history(ctx: ParseContext, line: CommandLine) -> History:
    return History(*_game_and_phase(line), source=line.source)


def _map_picture(ctx: ParseContext, line: CommandLine) -> MapPicture:
    return MapPicture(*_game_and_phase(line), source=line.source)


def _help(ctx: ParseContext, line: CommandLine) -> Help:
    args = expect_count(line, 0, 1, "nothing or one topic")
    return Help(args[0].upper() if args else None, source=line.source)


def _get_key(ctx: ParseContext, line: CommandLine) -> GetKey:
    no_args(line)
    return GetKey(source=line.source)


VERBS = (
    Verb(("LIST",), "LIST or LIST game", "the games on this judge, or one game's set-up and players", _list,
         help=(("start", "LIST", "the games on this judge"),
               ("start", "LIST game", "one game's set-up and players"),)),
    Verb(("SUMMARY",), "SUMMARY game", "a game's current state: phase, centres, players, whose orders are in "
                                       "(every power's for the master, your own for a player)", _summary,
         help=(("start", "SUMMARY game", "a game's current state"),)),
    Verb(("HISTORY",), "HISTORY game [phase]", "the results of a game's past phases", _history,
         help=(("start", "HISTORY game [phase]", "results of past phases"),)),
    Verb(("MAP",), "MAP [game] [phase]", "a picture of the board after a past phase (SVG and PNG)", _map_picture,
         help=(("start", "MAP game [phase]", "a picture of the board after a past phase"),)),
    Verb(("HELP",), "HELP", "this list of commands", _help,
         help=(("start", "HELP", "this page"),)),
    Verb(("GET", "KEY"), "GET KEY", "the judge's public OpenPGP key (to check its signed mail)", _get_key,
         help=(("start", "GET KEY", "the judge's public OpenPGP key"),)),
)
