"""Movement order lines already in canonical form, read and checked without the lenient parser.

``read_canonical(board, power, line)`` gives what ``notation.parse_order`` followed by
``legality.illegality`` would give for the line (the same order, legal), or ``None``
when the line is not a canonical, legal order of ``power`` it knows: the caller then
takes the long way, which also finds the reason for an error.  It knows

* the map's canonical holds, moves and supports (``adjudicator.forms``): one lookup;
* convoys, ``F NTH C A LON - NWY``, and moves by convoy, ``A LON - NWY VIA CONVOY``,
  whose legality depends on which seas hold fleets: the unit is found through the
  form of its hold, the rest is a few set lookups and the sea-path check of legality.

Along with the order comes its note for the resolver, ``(unit index, kind, target)``
(``adjudicator.resolve.order_shape``).
"""

from __future__ import annotations

from adjudicator.board import Board
from adjudicator.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove
from adjudicator.resolve import CONVOY, HOLD, MOVE, SUPPORT_HOLD
from adjudicator.types import UnitKind

Note = tuple[int, int, str]

_CONVOY_WORD = " C A "
_BY_CONVOY = " VIA CONVOY"


def read_canonical(board: Board, power: str, line: str) -> tuple[Order, Note] | None:
    """The legal order ``line`` gives ``power`` on ``board`` and its note, or ``None``."""
    form = board.forms.get(line)
    units = board.units
    if form is None:
        if line.endswith(_BY_CONVOY):
            return _move_by_convoy(board, power, line)
        if _CONVOY_WORD in line:
            return _convoy(board, power, line)
        return None
    unit = units.get(form[1])
    if unit is None or unit.location != form[2] or unit.kind is not form[3] or unit.power != power:
        return None
    shape = form[0]
    note = (board.index[form[1]], shape, form[4])
    if shape == MOVE:
        return Move(unit, form[5]), note
    if shape == HOLD:
        return Hold(unit), note
    if shape == SUPPORT_HOLD:
        other = units.get(form[4])
        return None if other is None or other.kind is not form[5] else (SupportHold(unit, other), note)
    other = units.get(form[6])
    return None if other is None or other.kind is not form[5] else (SupportMove(unit, other, form[7]), note)


def _own_unit(board: Board, power: str, head: str, kind: UnitKind) -> tuple[str, int] | None:
    """(province, index) of ``power``'s unit of ``kind`` written canonically as ``head``."""
    form = board.forms.get(head + " H")
    if form is None or form[3] is not kind:
        return None
    unit = board.units.get(form[1])
    if unit is None or unit.location != form[2] or unit.kind is not kind or unit.power != power:
        return None
    return form[1], board.index[form[1]]


def _move_by_convoy(board: Board, power: str, line: str) -> tuple[Order, Note] | None:
    head, dash, destination = line[: -len(_BY_CONVOY)].partition(" - ")
    found = _own_unit(board, power, head, UnitKind.ARMY) if dash else None
    if found is None:
        return None
    province, i = found
    tables = board.tables
    if destination == province or destination not in tables.prov_of or "/" in destination:
        return None
    if destination not in tables.army_adj[province] and not (
        province in tables.coastal and destination in tables.coastal
        and tables.sea_path_exists(province, destination, board.fleet_seas)
    ):
        return None
    return Move(board.units[province], destination, True), (i, MOVE, destination)


def _convoy(board: Board, power: str, line: str) -> tuple[Order, Note] | None:
    head, _, route = line.partition(_CONVOY_WORD)
    army_from, dash, army_to = route.partition(" - ")
    found = _own_unit(board, power, head, UnitKind.FLEET) if dash else None
    if found is None:
        return None
    province, i = found
    tables = board.tables
    army = board.units.get(army_from)
    if (
        province not in tables.sea
        or army is None
        or army.kind is not UnitKind.ARMY
        or army_from == army_to
        or army_from not in tables.coastal
        or army_to not in tables.coastal
        or not tables.sea_path_exists(army_from, army_to, board.fleet_seas, through=province)
    ):
        return None
    return Convoy(board.units[province], army_from, army_to), (i, CONVOY, "")
