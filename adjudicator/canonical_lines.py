"""The fast path of order parsing: lines already in canonical form, read without the lenient parser.

``parse_lines(board, power, lines, slow)`` reads a power's order lines.  For a line it
knows it gives what ``notation.parse_order`` followed by ``legality.illegality`` would
give (the same order, legal); any other line takes the long way, ``slow`` (the lenient
parser, then the full legality check, which also finds the reason for an error).

One fast path per phase kind, each with the long way as its fallback:

* movement: the map's canonical holds, moves, supports, moves by convoy and short convoys
  (``adjudicator.forms``; the last two with a question for the position), one lookup per
  line in ``parse_lines`` (a line in another case or spacing, or written with
  names and words, is looked up as its canonical text, ``OrderParser.canonical_spelling``
  for the latter); other canonical lines (longer convoys,
  supports of convoyed moves, illegal orders) are read word by word by
  ``read_canonical`` and kept when ``plainly_legal`` says so, else fully checked;
* retreats (``A VIE R BOH``, ``A VIE D``) and adjustments (``A PAR B``, ``A PAR D``,
  ``WAIVE``): read word by word by ``read_canonical``, then fully checked.

A line either reader declines (other spellings, units not where the line says) goes to
the lenient parser.  Along with each movement order comes its note for the resolver
(``resolve.Note``): for a line of the forms, the form itself (which starts so).
"""

from __future__ import annotations

from typing import Callable, Iterable

from adjudicator.board import Board
from adjudicator.memo import per_variant
from adjudicator.legality import IllegalOrder
from adjudicator.notation import OrderSyntaxError, parser_for
from adjudicator.orders import MOVEMENT_ORDERS, Build, Convoy, Disband, Hold, Move, Order, Remove, Retreat, SupportHold, SupportMove, Waive
from adjudicator.resolve import Note, order_shape
from adjudicator.results import IllegalLine, OrderNote, ParsedOrders
from adjudicator.tables import tables_for
from adjudicator.types import NEUTRAL, PhaseKind, Position, UnitKind, Variant
from adjudicator.values import made

# The long way for one line: ``(order, its canonical text or None)``, or OrderSyntaxError /
# IllegalOrder.
SlowParse = Callable[[Board, str, str], tuple[Order, "str | None"]]


def parse_lines(board: Board, power: str, lines: Iterable[str], slow: SlowParse, every_line: bool = False) -> ParsedOrders:
    """Every non-blank line of ``power`` read: the orders, the ``(line, reason)`` errors,
    the canonical texts of the orders and, in a movement phase, their notes.

    Lines of the forms are read here; the others go to ``slow``.  Lines are taken in
    their order: a later order for a unit counts.  With ``every_line``, a blank line is
    given to ``slow`` too (an error), and an order ``slow`` understood but found illegal
    goes to ``illegal`` instead of ``errors``."""
    orders: list[Order] = []
    texts: list[str] = []
    errors: list[tuple[str, str]] = []
    illegal: list[IllegalLine] = []
    notes: list[OrderNote] = []
    add_order, add_text, add_note = orders.append, texts.append, notes.append
    forms = board.forms  # empty unless in a movement phase
    units = board.units
    ordinal = board.tables.power_ordinal.get(power)  # where the forms keep this power's orders
    canonical_words = spell = None  # looked up at the first line that needs them
    for line in lines:
        form = forms.get(line)
        if form is None and forms:  # "a par - bur", "A PAR  -  BUR": the same order as its canonical text
            key = " ".join(line.upper().split())
            if key != line:
                form = forms.get(key)
                if form is None:
                    if canonical_words is None:
                        canonical_words = _canonical_words(board.variant)
                        spell = parser_for(board.variant).canonical_spelling
                    if not canonical_words.issuperset(key.split()):
                        # "army paris to burgundy": as the lenient parser spells it canonically (a line
                        # of canonical words only would be spelled as it is: looked up already)
                        spelled = spell(line)  # type: ignore[misc]
                        if spelled is not None:
                            form = forms.get(spelled)
        if form is not None:
            # The innermost loop of parsing: a form's reading, written out (see adjudicator.forms).
            province, _, target, location, kind, text, supported_kind, supported_at, supported_to, ready, by_sea = form
            unit = units.get(province)
            if unit is not None and unit.location == location and unit.kind is kind and unit.power == power:
                if ready is not None:  # a hold or a move: made once per map and power
                    # (a power the map does not list, ordinal None, takes the long way)
                    order = ready[ordinal] if ordinal is not None else None
                    if by_sea and not board.tables.sea_path_exists(province, target, board.fleet_seas):
                        order = None  # no chain of fleets: the long way says why
                elif by_sea:  # a convoy: the army must stand where written, joined by fleets through this one
                    army = units.get(supported_at)  # type: ignore[arg-type]
                    order = None
                    if army is not None and army.kind is supported_kind and board.tables.sea_path_exists(
                            supported_at, supported_to, board.fleet_seas, through=province):  # type: ignore[arg-type]
                        order = made(Convoy, (unit, supported_at, supported_to))
                else:
                    other = units.get(supported_at)  # type: ignore[arg-type]
                    if other is None or other.kind is not supported_kind:
                        order = None  # the supported unit is not as written: the long way, below
                    elif supported_to is None:
                        order = made(SupportHold, (unit, other))
                    else:
                        order = made(SupportMove, (unit, other, supported_to))
                if order is not None:
                    add_order(order)
                    add_text(text)
                    add_note(form)  # the form starts with the order's note
                    continue
        elif (not line or line.isspace()) and not every_line:
            continue
        try:
            order, canonical = slow(board, power, line)
        except IllegalOrder as problem:
            if every_line and problem.order is not None:
                illegal.append(made(IllegalLine, (len(orders), problem.order, problem.reason)))
            else:
                errors.append((line, problem.reason))
            continue
        except OrderSyntaxError as problem:
            errors.append((line, problem.reason))
            continue
        add_order(order)
        add_text(order.canonical() if canonical is None else canonical)
        if board.position.phase.kind is PhaseKind.MOVEMENT:
            prov_of = board.tables.prov_of
            add_note(made(Note, (prov_of[order.unit.location], *order_shape(order, prov_of))))  # type: ignore[union-attr]
    return made(ParsedOrders, (tuple(orders), tuple(errors) if errors else (), power, board, tuple(texts), tuple(notes),
                               tuple(illegal) if illegal else ()))


@per_variant
def _canonical_words(variant: Variant) -> frozenset[str]:
    """The words of canonical movement lines: locations, unit kinds and the order words."""
    return frozenset(tables_for(variant).prov_of) | {"A", "F", "-", "H", "S", "C", "VIA", "CONVOY"}


def read_canonical(board: Board, power: str, text: str) -> tuple[Order, str | None] | None:
    """The order a canonical line names (in any case and spacing; in a movement phase also
    written with names and words, as ``OrderParser.canonical_spelling`` spells it), its units
    found as they stand, and its canonical text when the words are that already (else
    ``None``); ``None`` for anything else.  Built as ``notation.parse_order`` would build it, and not checked: see
    ``plainly_legal``."""
    kind = board.position.phase.kind
    words = text.upper().split()  # the lenient parser reads any case
    if kind is PhaseKind.MOVEMENT:
        order = _movement_order(board, words)
        if order is None:  # written with names or other words: as the lenient parser spells it canonically
            if _canonical_words(board.variant).issuperset(words):
                return None  # canonical words only: spelled as they are, and read already
            spelled = parser_for(board.variant).canonical_spelling(text)
            if spelled is None:
                return None
            words = spelled.split()
            order = _movement_order(board, words)
            if order is None:
                return None
        # a support naming a fleet by its coast is canonical without the coast
        return order, (" ".join(words) if type(order) is Move or type(order) is Hold or "/" not in words[4] else None)
    order = _retreat_order(board.position, words) if kind is PhaseKind.RETREAT else _adjustment_order(board, power, words)
    return None if order is None else (order, None)


def plainly_legal(board: Board, power: str, order: Order) -> bool:
    """Is ``order``, built by ``read_canonical`` (so its units stand where it names them),
    legal on its face: an own unit holding, moving to a neighbour or by convoy along a
    sea path, supporting into a province it could move to, or a fleet at sea convoying
    along a path through it?  A few set lookups instead of ``illegality``; an order that
    fails here goes there, for the reason to give."""
    tables = board.tables
    cls = type(order)
    if cls not in _MOVEMENT_ORDERS:
        return False  # retreats and adjustments: the full check
    unit = order.unit  # type: ignore[union-attr]
    if unit.power != power or power == NEUTRAL:  # no one orders a neutral army: illegality says so
        return False
    if cls is Hold:
        return True
    if cls is Move:
        if not order.via_convoy:  # type: ignore[union-attr]
            return order.destination in tables.steps[unit.kind].get(unit.location, ())  # type: ignore[union-attr]
        province, destination = unit.location, order.destination  # type: ignore[union-attr]
        return unit.kind is UnitKind.ARMY and destination != province and (
            destination in tables.army_adj[province]
            or (province in tables.coastal and destination in tables.coastal
                and tables.sea_path_exists(province, destination, board.fleet_seas)))
    if cls is Convoy:
        army_from, army_to = order.army_from, order.army_to  # type: ignore[union-attr]
        army = board.units.get(army_from)
        province = tables.prov_of[unit.location]
        return (
            province in tables.convoy_seas  # the seas, and a map's archipelagos
            and army is not None
            and army.kind is UnitKind.ARMY
            and army_from != army_to
            and army_from in tables.coastal
            and army_to in tables.coastal
            and tables.sea_path_exists(army_from, army_to, board.fleet_seas, through=province)
        )
    if cls is SupportMove:
        origin = tables.prov_of[order.supported.location]  # type: ignore[union-attr]
        target = tables.prov_of[order.supported_to]  # type: ignore[union-attr]
        if target == origin:
            return False
    else:
        origin = target = tables.prov_of[order.supported.location]  # type: ignore[union-attr]
    # A unit never reaches its own province, so reaching the target also rules out
    # supporting into it; the origin is checked apart (a unit cannot support its own move).
    return target in tables.reach[unit.kind].get(unit.location, ()) and origin != tables.prov_of[unit.location]


def _movement_order(board: Board, words: list[str]) -> Order | None:
    """``F LON - NTH``, ``A PAR S A MAR - BUR``, ``F NTH C A LON - NWY``, ``A LON - NWY VIA
    CONVOY``... naming units exactly as they stand; ``None`` for anything else or anything
    this reader is not sure of."""
    count = len(words)
    if count < 3:
        return None
    units, prov_of = board.units, board.tables.prov_of
    unit = units.get(prov_of.get(words[1], ""))
    if unit is None or unit.location != words[1] or unit.kind._value_ != words[0]:
        return None
    verb = words[2]
    if verb == "-":
        if count == 4:
            via_convoy = False
        elif count == 6 and words[4] == "VIA" and words[5] == "CONVOY":
            via_convoy = True
        else:
            return None
        destination = words[3]
        if destination not in prov_of:
            return None
        if unit.kind is UnitKind.ARMY:
            if "/" in destination:
                return None
        elif "/" not in destination and board.variant.provinces[destination].coasts:
            return None  # the lenient parser picks the coast
        return Move(unit, destination, via_convoy)
    if verb == "H":
        return Hold(unit) if count == 3 else None
    if verb == "S" and (count == 5 or (count == 7 and words[5] == "-")):
        other = units.get(prov_of.get(words[4], ""))
        if other is None or other.location != words[4] or other.kind._value_ != words[3]:
            return None
        if count == 5:
            return SupportHold(unit, other)
        target = words[6]
        if target not in prov_of or ("/" in target and other.kind is UnitKind.ARMY):
            return None
        return SupportMove(unit, other, target)
    if verb == "C" and count == 7 and words[3] == "A" and words[5] == "-":
        provinces = board.variant.provinces
        if words[4] in provinces and words[6] in provinces:
            return Convoy(unit, words[4], words[6])
    return None


def _retreat_order(position: Position, words: list[str]) -> Order | None:
    """``A VIE R BOH`` / ``A VIE D`` naming a dislodged unit exactly; else ``None``."""
    if len(words) not in (3, 4):
        return None
    entry = next((d for d in position.dislodged if d.unit.location == words[1]), None)
    if entry is None or entry.unit.kind._value_ != words[0]:
        return None
    if len(words) == 3:
        return Disband(entry.unit) if words[2] == "D" else None
    if words[2] != "R" or words[3] not in entry.retreats:
        return None  # anything unusual (other spellings, coasts to infer) goes to the lenient parser
    return Retreat(entry.unit, words[3])


def _adjustment_order(board: Board, power: str, words: list[str]) -> Order | None:
    """``A PAR B``, ``F BRE B``, ``A PAR D`` and ``WAIVE``; else ``None``."""
    if len(words) == 1:
        return Waive(power) if words[0] == "WAIVE" else None
    if len(words) != 3 or words[0] not in ("A", "F") or words[1] not in board.tables.prov_of:
        return None
    if words[2] == "B":
        if words[0] == "A" and "/" in words[1]:
            return None
        return made(Build, (power, _UNIT_KINDS[words[0]], words[1]))
    if words[2] == "D":
        unit = board.units.get(board.tables.prov_of[words[1]])
        if unit is None or unit.location != words[1] or unit.kind._value_ != words[0]:
            return None
        return Remove(unit)
    return None


_MOVEMENT_ORDERS = frozenset(MOVEMENT_ORDERS)  # a set: this check is on the fast path
_UNIT_KINDS = {kind._value_: kind for kind in UnitKind}  # "A" -> UnitKind.ARMY: a dict lookup, not the Enum's call
