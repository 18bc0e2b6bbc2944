"""Taking a place in a game and leaving it: JOIN, OBSERVE, TAKEOVER, RESIGN, UNSUBSCRIBE."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Command
from .syntax import CommandLine, ParseContext, Verb, expect_count
from .values import ValueSyntaxError, parse_game, split_power_at_game, split_signon_id


@dataclass(frozen=True, slots=True)
class Join(Command):
    """``JOIN game password [privacy]`` or ``JOIN power@game password [privacy]`` (choosing
    a power needs the game's POWER_CHOICE rule).  ``privacy`` is the keyword a private
    game's master gave out."""

    game: str
    password: str
    power: str | None = None
    privacy: str | None = None


@dataclass(frozen=True, slots=True)
class Observe(Command):
    """``OBSERVE name@game password [privacy]``: receive the game's broadcasts."""

    name: str
    game: str
    password: str
    privacy: str | None = None


@dataclass(frozen=True, slots=True)
class Takeover(Command):
    """``TAKEOVER power@game password [privacy]``: play a power whose player left."""

    power: str
    game: str
    password: str
    privacy: str | None = None


@dataclass(frozen=True, slots=True)
class Resign(Command):
    """``RESIGN`` (after SIGNON) or ``RESIGN power@game password``.  Refused whole when
    the mail has any error (see ``ParsedMail.resign_allowed``)."""

    power: str | None = None
    game: str | None = None
    password: str | None = None


@dataclass(frozen=True, slots=True)
class Unsubscribe(Command):
    """``UNSUBSCRIBE token``: the unsubscribe link of a game's mail (its List-Unsubscribe
    header); the token proves whose copy it was, so no password is needed."""

    token: str


def _unsubscribe(ctx: ParseContext, line: CommandLine) -> Unsubscribe:
    [token] = expect_count(line, 1, 1, "the token of the link in a game's mail (List-Unsubscribe)")
    return Unsubscribe(token, source=line.source)


def _join(ctx: ParseContext, line: CommandLine) -> Join:
    args = expect_count(line, 2, 3, "a game name and a password")
    privacy = args[2] if len(args) == 3 else None
    if "@" in args[0]:
        power, game = split_power_at_game(args[0])
        return Join(game, args[1], power, privacy, source=line.source)
    return Join(parse_game(args[0]), args[1], None, privacy, source=line.source)


def _observe(ctx: ParseContext, line: CommandLine) -> Observe:
    args = expect_count(line, 2, 3, "your observer name at the game and a password")
    if "@" not in args[0]:
        raise line.fail(f"OBSERVE needs a name for you before the game: '{args[0]}' has no '@'")
    try:
        name, game = split_power_at_game(args[0])
    except ValueSyntaxError:
        raise line.fail(
            f"'{args[0]}' is not name@game: an observer name is letters, digits, '_' or '-' (john_smith@mygame)"
        ) from None
    return Observe(name, game, args[1], args[2] if len(args) == 3 else None, source=line.source)


def _takeover(ctx: ParseContext, line: CommandLine) -> Takeover:
    args = expect_count(line, 2, 3, "the power and game and a password")
    power, game = split_signon_id(args[0])
    return Takeover(power, game, args[1], args[2] if len(args) == 3 else None, source=line.source)


def _resign(ctx: ParseContext, line: CommandLine) -> Resign:
    args = line.args
    if not args:
        return Resign(source=line.source)
    if len(args) == 1 and "@" not in args[0]:
        raise line.fail(
            f"RESIGN takes no power name after SIGNON (a master removes a player with EJECT {args[0]})"
        )
    args = expect_count(line, 2, 2, "the power and game and the password, or nothing after SIGNON")
    power, game = split_signon_id(args[0])
    return Resign(power, game, args[1], source=line.source)


VERBS = (
    Verb(("JOIN",), "JOIN game password or JOIN power@game password (add the privacy keyword for a private game)",
         "join a forming game (a power of your choice only if the game allows it)",
         _join, secret_args=(1, 2), opens_session=True,
         help=(("start", "JOIN game password", "join a forming game (power assigned at random)"),
               ("start", "JOIN power@game password", "join as that power (if the game allows choosing)"),
               ("start", "", "(a private game: add its keyword after the password)"),)),
    Verb(("OBSERVE",), "OBSERVE name@game password",
         "watch a game: receive its broadcasts and results", _observe, secret_args=(1, 2), opens_session=True,
         help=(("start", "OBSERVE name@game password", "watch a game"),)),
    Verb(("TAKEOVER",), "TAKEOVER power@game password",
         "take over a power that has no player", _takeover, secret_args=(1, 2), opens_session=True,
         help=(("start", "TAKEOVER power@game password", "play a power that has no player"),)),
    Verb(("RESIGN",), "RESIGN (after SIGNON) or RESIGN power@game password",
         "leave the game; refused if the mail has any error", _resign, secret_args=(1,),
         help=(("play", "RESIGN", "leave the game (refused if the mail has any error)"),
               ("play", "RESIGN power@game password", "the same without SIGNON"),)),
    Verb(("UNSUBSCRIBE",), "UNSUBSCRIBE token",
         "stop a game's mail (its unsubscribe link): an observer leaves; a player or master is told how to resign",
         _unsubscribe, secret_args=(0,),
         help=(("start", "UNSUBSCRIBE token", "a game mail's unsubscribe link: stop observing"),)),
)
