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


@dataclass(frozen=True, slots=True)
class OrderForm:
    """How one kind of order is written (HELP, grammar.md and README are made from these)."""

    form: str
    meaning: str


#: Every kind of order, by phase, as the engine reads it (adjudicator/notation.py).
ORDER_FORMS: tuple[OrderForm, ...] = (
    OrderForm("A PAR - BUR", "move (also A PAR-BUR)"),
    OrderForm("A PAR H", "hold (a unit without an order holds)"),
    OrderForm("A MAR S A PAR - BUR", "support a move"),
    OrderForm("A MAR S A PAR", "support a hold"),
    OrderForm("F NTH C A LON - NWY", "convoy an army"),
    OrderForm("A LON - NWY VIA", "the convoyed army's move (VIA: only by convoy)"),
    OrderForm("A PAR R BUR", "retreat phase: retreat a dislodged unit (or -)"),
    OrderForm("A PAR D", "retreat phase: disband it instead (or DISBAND A PAR)"),
    OrderForm("BUILD A PAR   BUILD F STP/NC", "adjustment: build in a free home centre (also A PAR B)"),
    OrderForm("WAIVE", "adjustment: give up one build"),
    OrderForm("REMOVE F BRE", "adjustment: remove a unit (also F BRE D)"),
)


_ORDER_START_RE = re.compile(
    r"(A|F|ARMY|FLEET|BUILD|REMOVE|DISBAND|WAIVE|RETREAT|HOLD)\b", re.IGNORECASE
)


def looks_like_order(text: str) -> bool:
    """Whether a line reads like a Diplomacy order (used only to word error messages)."""
    return _ORDER_START_RE.match(text.strip()) is not None


_UNIT_WORDS = frozenset({"A", "F", "ARMY", "FLEET"})
_ADJUSTMENT_WORDS = frozenset({"BUILD", "REMOVE", "DISBAND", "WAIVE", "RETREAT"})
_MOVE_MARKS = frozenset({"-", "->", "=>", "TO"})
_PROVINCE_RE = re.compile(r"[A-Z]{3}(/[A-Z]{2})?(-[A-Z]{3}(/[A-Z]{2})?)?", re.IGNORECASE)


def reads_as_order(text: str) -> bool:
    """Whether a line is written as an order, not merely starts like one: a unit, a
    province abbreviation and an order word (``F LON - ENG``, ``A PAR H``, ``A MUN-BER``,
    ``BUILD A PAR``, ``WAIVE``), where "A lot of..." is not.  It ends a press that has
    no ENDPRESS (mailcmds/press.py)."""
    words = text.strip().rstrip(".").upper().split()
    if not words:
        return False
    if words[0] in _ADJUSTMENT_WORDS:
        return words[0] == "WAIVE" and len(words) == 1 or (
            len(words) >= 2 and (words[1] in _UNIT_WORDS or _PROVINCE_RE.fullmatch(words[1]) is not None))
    if words[0] not in _UNIT_WORDS or len(words) < 2 or not _PROVINCE_RE.fullmatch(words[1]):
        return False
    if "-" in words[1]:
        return True  # A MUN-BER
    return len(words) >= 3 and (words[2] in _MOVE_MARKS or words[2] in _ORDER_MARKERS)


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


