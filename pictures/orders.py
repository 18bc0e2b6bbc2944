"""The orders a picture draws, read back from their canonical text (shared/contracts/adjudicate.md).

Results carry each order as canonical text (``"F NTH C A LON - NWY"``); this reads that
text, and only that text, into a ``DrawnOrder``.  Text that is not canonical (a void
order quoting what a player typed) is not drawn: ``drawn_order`` returns None.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.results import (
    BUILDS,
    CONVOYS,
    HOLDS,
    MOVES,
    REMOVES,
    RETREATS,
    SUPPORTS,
)

# kinds of drawn order
HOLD, MOVE, SUPPORT_HOLD, SUPPORT_MOVE, CONVOY, RETREAT, DISBAND, BUILD, WAIVE = (
    "hold", "move", "support_hold", "support_move", "convoy", "retreat", "disband", "build", "waive")

# A result that means the order did what it said; any other code (bounce, cut, void,
# no_convoy, dislodged) draws it as failed.  None: not adjudicated yet.
SUCCEEDED = frozenset({MOVES, HOLDS, SUPPORTS, CONVOYS, RETREATS, "disbanded", BUILDS, REMOVES, "waived"})


@dataclass(frozen=True, slots=True)
class DrawnOrder:
    """One order as drawn: the ordered unit's ``location`` (or the build's), its ``target``
    (destination, or the supported/convoyed unit's location) and, for a supported move
    or a convoy, where that unit goes (``target_to``)."""

    power: str
    kind: str
    unit_kind: str  # "A" or "F"; "" for a waive
    location: str
    target: str | None = None
    target_to: str | None = None
    result: str | None = None

    @property
    def failed(self) -> bool:
        return self.result is not None and self.result not in SUCCEEDED


def drawn_order(power: str, text: str, result: str | None = None) -> DrawnOrder | None:
    """The DrawnOrder of a canonical order text, or None when the text is not canonical."""
    words = text.split()
    if words == ["WAIVE"]:
        return DrawnOrder(power, WAIVE, "", "", result=result)
    if len(words) < 3 or words[0] not in ("A", "F"):
        return None
    unit_kind, location, verb, rest = words[0], words[1], words[2], words[3:]
    if verb == "H" and not rest:
        return DrawnOrder(power, HOLD, unit_kind, location, result=result)
    if verb == "-" and (len(rest) == 1 or rest[1:] == ["VIA", "CONVOY"]):
        return DrawnOrder(power, MOVE, unit_kind, location, rest[0], result=result)
    if verb == "R" and len(rest) == 1:
        return DrawnOrder(power, RETREAT, unit_kind, location, rest[0], result=result)
    if verb == "D" and not rest:
        return DrawnOrder(power, DISBAND, unit_kind, location, result=result)
    if verb == "B" and not rest:
        return DrawnOrder(power, BUILD, unit_kind, location, result=result)
    if verb == "S" and len(rest) == 2 and rest[0] in ("A", "F"):
        return DrawnOrder(power, SUPPORT_HOLD, unit_kind, location, rest[1], result=result)
    if verb == "S" and len(rest) == 4 and rest[0] in ("A", "F") and rest[2] == "-":
        return DrawnOrder(power, SUPPORT_MOVE, unit_kind, location, rest[1], rest[3], result=result)
    if verb == "C" and len(rest) == 4 and rest[0] == "A" and rest[2] == "-":
        return DrawnOrder(power, CONVOY, unit_kind, location, rest[1], rest[3], result=result)
    return None
