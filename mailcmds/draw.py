"""Draw and concession votes: SET DRAW [powers], SET NO DRAW, SET CONCEDE power, SET NO CONCEDE."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Command
from .syntax import CommandLine, ParseContext, Verb, expect_count, no_args
from .values import parse_power, split_tokens


@dataclass(frozen=True, slots=True)
class SetDraw(Command):
    """A draw vote.  ``powers`` ``None``: a draw including all survivors (DIAS); otherwise
    the powers named (tokens as written: ``("AEF",)`` or ``("AUSTRIA", "ENGLAND")``) for a
    game with RULE NO_DIAS."""

    powers: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class SetNoDraw(Command):
    """Withdraw the draw vote."""


@dataclass(frozen=True, slots=True)
class SetConcede(Command):
    """Vote to concede the game to ``power``."""

    power: str


@dataclass(frozen=True, slots=True)
class SetNoConcede(Command):
    """Withdraw the concession vote."""


def _draw(ctx: ParseContext, line: CommandLine) -> SetDraw:
    tokens = split_tokens(line.args)
    if tokens == ("ALL",):  # SET DRAW ALL: the draw including all survivors
        tokens = ()
    for token in tokens:
        parse_power(token)
    return SetDraw(tokens or None, source=line.source)


def _nodraw(ctx: ParseContext, line: CommandLine) -> SetNoDraw:
    no_args(line)
    return SetNoDraw(source=line.source)


def _concede(ctx: ParseContext, line: CommandLine) -> SetConcede:
    args = expect_count(line, 1, 1, "the power to concede to")
    return SetConcede(parse_power(args[0]), source=line.source)


def _noconcede(ctx: ParseContext, line: CommandLine) -> SetNoConcede:
    no_args(line)
    return SetNoConcede(source=line.source)


VERBS = (
    Verb(("SET", "DRAW"), "SET DRAW (all survivors) or SET DRAW AEF (the powers in the draw, with RULE NO_DIAS)",
         "vote for a draw; secret until the game ends, it stands until withdrawn", _draw,
         help=(("play", "SET DRAW", "vote for a draw including all survivors"),
               ("play", "SET DRAW AEF", "vote for a draw of these powers (games with NO_DIAS)"),)),
    Verb(("SET", "NODRAW"), "SET NO DRAW", "withdraw your draw vote", _nodraw,
         aliases=(("SET", "NO", "DRAW"),),
         help=(("play", "SET NO DRAW", "withdraw your draw vote"),)),
    Verb(("SET", "CONCEDE"), "SET CONCEDE power", "vote to concede the game to that power", _concede,
         help=(("play", "SET CONCEDE power", "vote to concede the game to that power"),)),
    Verb(("SET", "NOCONCEDE"), "SET NO CONCEDE", "withdraw your concession vote", _noconcede,
         aliases=(("SET", "NO", "CONCEDE"),),
         help=(("play", "SET NO CONCEDE", "withdraw your concession vote"),)),
)
