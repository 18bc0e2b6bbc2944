"""Order lines: the parser's reading of lines that are not commands (CLEAR is
judge/commands/orders.py's).

mailcmds does not read orders: a run of lines after SIGNON that are not commands is
carried as one :class:`OrderLines`, and the handler checks each line against the game's
position with the rules engine (adjudicator.notation) and report per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import Command, SourceLine


@dataclass(frozen=True, slots=True)
class OrderLines(Command):
    """Consecutive order lines (comments removed, blank lines skipped); ``source`` is
    the first of them.  The mail's orders replace the power's orders for the units they
    name."""

    lines: tuple[SourceLine, ...]

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(line.text for line in self.lines)


_ORDER_START_RE = re.compile(
    r"(A|F|ARMY|FLEET|BUILD|REMOVE|DISBAND|WAIVE|RETREAT|HOLD)\b", re.IGNORECASE
)


def looks_like_order(text: str) -> bool:
    """Whether a line reads like a Diplomacy order (used only to word error messages)."""
    return _ORDER_START_RE.match(text.strip()) is not None


#: Words that make a line read as an order even without a unit type (``PAR S MAR``).
_ORDER_MARKERS = frozenset({
    "S", "C", "H", "R", "D", "B", "VIA", "HOLD", "HOLDS", "SUPPORT", "SUPPORTS", "CONVOY", "CONVOYS",
    "MOVE", "MOVES", "BUILD", "BUILDS", "REMOVE", "DISBAND", "WAIVE", "RETREAT", "RETREATS",
})
_SENTENCE_END = (".", "!", "?", ",", ";", ":", ")")


def looks_like_prose(text: str) -> bool:
    """Whether a line reads as a person's words rather than an order or a command: what
    follows the last command of a reply from a mail client ("Thanks, / John / Sent from my
    iPhone").  Used only on the lines after the last command or order of a mail."""
    stripped = text.strip()
    words = stripped.split()
    if not words or looks_like_order(stripped):
        return False
    if any(mark in stripped for mark in ("-", ">", "@", "=")):  # PAR-BUR, A PAR -> BUR, an address
        return False
    ends_a_sentence = stripped.endswith(_SENTENCE_END)
    if not ends_a_sentence and any(word.upper().strip(".,;:!?") in _ORDER_MARKERS for word in words):
        return False
    return True


