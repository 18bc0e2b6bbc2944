"""Movement order lines already in canonical form, read and checked without the lenient parser.

``parse_lines(board, power, lines, slow)`` reads a power's order lines.  For a line
it knows it gives what ``notation.parse_order`` followed by ``legality.illegality``
would give (the same order, legal); any other line (not canonical, not legal, not
``power``'s) takes the long way, ``slow``, which also finds the reason for an error.
It knows

* the map's canonical holds, moves and supports (``adjudicator.forms``): one lookup;
* convoys, ``F NTH C A LON - NWY``, and moves by convoy, ``A LON - NWY VIA CONVOY``,
  whose legality depends on which seas hold fleets: the unit is found through the
  form of its hold, the rest is a few set lookups and the sea-path check of legality.

Along with the order come its canonical text and its note for the resolver, a tuple
that starts ``(the ordered unit's province, kind, target)`` (``adjudicator.resolve.order_shape``):
for a line of the forms, the form itself (which starts so); otherwise just those three.
"""

from __future__ import annotations

from typing import Callable, Iterable

from adjudicator.board import Board
from adjudicator.legality import IllegalOrder
from adjudicator.notation import OrderSyntaxError
from adjudicator.orders import Convoy, Move, Order, SupportHold, SupportMove
from adjudicator.resolve import CONVOY, MOVE, SUPPORT_HOLD, order_shape
from adjudicator.results import ParsedOrders
from adjudicator.types import PhaseKind, UnitKind
from adjudicator.values import made

Note = tuple  # starts (province, kind, target); may go on (a form)

_CONVOY_WORD = " C A "
_BY_CONVOY = " VIA CONVOY"


SlowParse = Callable[[Board, str, str], tuple[Order, "str | None"]]


def parse_lines(board: Board, power: str, lines: Iterable[str], slow: SlowParse) -> ParsedOrders:
    """Every non-blank line of ``power`` read: the orders, the ``(line, reason)`` errors,
    the canonical texts of the orders and, in a movement phase, their notes.

    Canonical movement lines are read here; the others go to ``slow`` (the lenient parser
    with the legality check: ``(order, canonical text or None)``, or ``OrderSyntaxError`` /
    ``IllegalOrder``).  Lines are taken in their order: a later order for a unit counts."""
    orders: list[Order] = []
    texts: list[str] = []
    errors: list[tuple[str, str]] = []
    notes: list[Note] = []
    add_order, add_text, add_note = orders.append, texts.append, notes.append
    forms = board.forms  # empty unless in a movement phase
    units = board.units
    ordinal = board.tables.power_ordinal.get(power)  # where the forms keep this power's orders
    movement = None  # is it a movement phase? Asked only of lines the forms do not know
    for line in lines:
        form = forms.get(line)
        if form is not None:
            # The innermost loop of parsing: a form's reading, written out (see adjudicator.forms).
            province, shape, _, location, kind, text, supported_kind, supported_at, supported_to, ready = form
            unit = units.get(province)
            if unit is not None and unit.location == location and unit.kind is kind and unit.power == power:
                if ready is not None:  # a hold or a move: made once per map and power
                    # (a power the map does not list, ordinal None, takes the long way)
                    order = ready[ordinal] if ordinal is not None else None
                else:
                    other = units.get(supported_at)
                    if other is None or other.kind is not supported_kind:
                        order = None  # the supported unit is not as written: the long way, below
                    elif shape == SUPPORT_HOLD:
                        order = made(SupportHold, (unit, other))
                    else:
                        order = made(SupportMove, (unit, other, supported_to))
                if order is not None:
                    add_order(order)
                    add_text(text)
                    add_note(form)  # the form starts with the order's note (adjudicator.forms)
                    continue
        elif movement or (movement is None and (movement := board.position.phase.kind is PhaseKind.MOVEMENT)):
            found = _move_by_convoy(board, power, line) if line.endswith(_BY_CONVOY) else (
                _convoy(board, power, line) if _CONVOY_WORD in line else None)
            if found is not None:
                add_order(found[0])
                add_text(line)
                add_note(found[1])
                continue
        if not line.strip():
            continue
        try:
            order, canonical = slow(board, power, line)
        except (OrderSyntaxError, IllegalOrder) as problem:
            errors.append((line, problem.reason))
            continue
        add_order(order)
        add_text(order.canonical() if canonical is None else canonical)
        if board.position.phase.kind is PhaseKind.MOVEMENT:
            prov_of = board.tables.prov_of
            add_note((prov_of[order.unit.location], *order_shape(order, prov_of)))  # type: ignore[union-attr]
    return made(ParsedOrders, (tuple(orders), tuple(errors) if errors else (), power, board, tuple(texts), tuple(notes)))


def _own_unit(board: Board, power: str, head: str, kind: UnitKind) -> str | None:
    """The province of ``power``'s unit of ``kind`` written canonically as ``head``."""
    form = board.forms.get(head + " H")
    if form is None or form[4] is not kind:
        return None
    unit = board.units.get(form[0])
    if unit is None or unit.location != form[3] or unit.kind is not kind or unit.power != power:
        return None
    return form[0]


def _move_by_convoy(board: Board, power: str, line: str) -> tuple[Order, Note] | None:
    head, dash, destination = line[: -len(_BY_CONVOY)].partition(" - ")
    province = _own_unit(board, power, head, UnitKind.ARMY) if dash else None
    if province is None:
        return None
    tables = board.tables
    if destination == province or destination not in tables.prov_of or "/" in destination:
        return None
    if destination not in tables.army_adj[province] and not (
        province in tables.coastal and destination in tables.coastal
        and tables.sea_path_exists(province, destination, board.fleet_seas)
    ):
        return None
    return made(Move, (board.units[province], destination, True, ())), (province, MOVE, destination)


def _convoy(board: Board, power: str, line: str) -> tuple[Order, Note] | None:
    head, _, route = line.partition(_CONVOY_WORD)
    army_from, dash, army_to = route.partition(" - ")
    province = _own_unit(board, power, head, UnitKind.FLEET) if dash else None
    if province is None:
        return None
    tables = board.tables
    army = board.units.get(army_from)
    if (
        province not in tables.convoy_seas
        or army is None
        or army.kind is not UnitKind.ARMY
        or army_from == army_to
        or army_from not in tables.coastal
        or army_to not in tables.coastal
        or not tables.sea_path_exists(army_from, army_to, board.fleet_seas, through=province)
    ):
        return None
    return made(Convoy, (board.units[province], army_from, army_to)), (province, CONVOY, "")
