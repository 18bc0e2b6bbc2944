"""SIGNON and SIGNOFF: where a player's part of a mail starts and where the mail ends."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Command
from .syntax import CommandLine, ParseContext, Verb, expect_count, no_args
from .values import split_signon_id


@dataclass(frozen=True, slots=True)
class Signon(Command):
    """``SIGNON power@game password`` or ``SIGNON Xgame password`` (X: the power's initial,
    M for the master).  ``power`` is upper-case as written (``FRANCE``, ``F``,
    ``MASTER``, an observer's name): the services resolve it against the game."""

    power: str
    game: str
    password: str


@dataclass(frozen=True, slots=True)
class Signoff(Command):
    """``SIGNOFF``: nothing after it is read."""


def _signon(ctx: ParseContext, line: CommandLine) -> Signon:
    args = expect_count(line, 2, 2, "the power and game and a password")
    power, game = split_signon_id(args[0])
    return Signon(power, game, args[1], source=line.source)


def _signoff(ctx: ParseContext, line: CommandLine) -> Signoff:
    no_args(line)
    return Signoff(source=line.source)


VERBS = (
    Verb(("SIGNON",), "SIGNON power@game password (or SIGNON Xgame password, X the power's initial)",
         "sign on to a game as a power, an observer or its master; orders and commands follow",
         _signon, secret_args=(1,), opens_session=True,
         help=(("play", "SIGNON power@game password", "sign on; orders and commands follow"),
               ("play", "SIGNON Xgame password", "the same, X = the power's initial"),
               ("play", "<orders>", "one per line (ORDERS below); your orders"),
               ("play", "", "replace those for the units named"),
               ("master", "SIGNON master@game password", "then status lines (edits) or:"),)),
    Verb(("SIGNOFF",), "SIGNOFF", "end of the commands: nothing after it is read", _signoff,
         help=(("play", "SIGNOFF", "end of commands; nothing after it is read"),)),
)
