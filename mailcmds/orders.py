"""Order lines and CLEAR.

mailcmds does not read orders: a run of lines after SIGNON that are not commands is
carried as one :class:`OrderLines`, and the services check each line against the game's
position with the rules engine (adjudicator.notation) and report per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import Command, SourceLine
from .syntax import CommandLine, ParseContext, Verb, no_args


@dataclass(frozen=True, slots=True)
class OrderLines(Command):
    """Consecutive order lines (comments removed, blank lines skipped); ``source`` is
    the first of them.  The mail's orders replace the power's orders for the units they
    name."""

    lines: tuple[SourceLine, ...]

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(line.text for line in self.lines)


@dataclass(frozen=True, slots=True)
class Clear(Command):
    """``CLEAR``: drop every order the power has entered for this phase."""


_ORDER_START_RE = re.compile(
    r"(A|F|ARMY|FLEET|BUILD|REMOVE|DISBAND|WAIVE|RETREAT|HOLD)\b", re.IGNORECASE
)


def looks_like_order(text: str) -> bool:
    """Whether a line reads like a Diplomacy order (used only to word error messages)."""
    return _ORDER_START_RE.match(text.strip()) is not None


def _clear(ctx: ParseContext, line: CommandLine) -> Clear:
    no_args(line)
    return Clear(source=line.source)


VERBS = (
    Verb(("CLEAR",), "CLEAR", "clear all your orders for the current phase", _clear,
         help=(("play", "CLEAR", "clear all your orders for this phase"),)),
)
