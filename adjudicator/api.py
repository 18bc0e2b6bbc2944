"""The engine facade (docs/design.md): the only module the rest of the project imports.

Pure: frozen values in, frozen values out; no I/O, no clock, no state kept between
calls.  A caller handling one phase builds its ``Board`` once (``prepare``) and
passes it to ``parse_orders``, ``adjudicate`` and ``requirements``; the
``(variant, position)`` forms build a board on the fly.  ``parse_orders`` hands
back a ``ParsedOrders`` that names its board: given to ``adjudicate`` with that
board, its orders are taken as checked (see ``_checked``).
"""

from __future__ import annotations

import hashlib
import json
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Iterable, Mapping, Sequence, Union, overload

from adjudicator import progress
from adjudicator.adjustments import resolve_adjustments
from adjudicator.board import Board, prepare
from adjudicator.canonical_lines import parse_lines
from adjudicator.legality import IllegalOrder, illegality
from adjudicator.notation import OrderSyntaxError
from adjudicator.notation import parse_order as _understand
from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Order, Remove, Retreat, SupportHold, SupportMove, Waive
from adjudicator.resolve import (
    HOLD,
    PARADOX_RULES,
    RULES,
    MovementResolution,
    order_shape,
    resolve_movement,
)
from adjudicator.results import Adjudication, OrderResult, ParsedOrders, Requirement
from adjudicator.retreats import dislodged_units, resolve_retreats
from adjudicator.tables import Tables, tables_for
from adjudicator.types import Phase, PhaseKind, Position, Season, Unit, UnitKind, Variant, province_of
from adjudicator.values import made

__all__ = [
    "RULES",
    "Board",
    "IllegalOrder",
    "OrderSyntaxError",
    "ParsedOrders",
    "prepare",
    "initial_position",
    "parse_order",
    "parse_orders",
    "adjudicate",
    "requirements",
    "position_digest",
    "canonical_position",
    "check_rules",
]

# What ``adjudicate`` takes per power: orders, or a ``ParsedOrders`` from ``parse_orders``.
GivenOrders = Union[Sequence[Order], ParsedOrders]


def _board(first: Board | Variant, rest: tuple[object, ...], form: str) -> tuple[Board, tuple[object, ...]]:
    """``(board, other arguments)`` from either calling form: ``f(board, ...)`` or
    ``f(variant, position, ...)`` (which prepares a board for this one call)."""
    if type(first) is Board:
        return first, rest
    if isinstance(first, Variant) and rest and isinstance(rest[0], Position):
        return prepare(first, rest[0]), rest[1:]
    raise TypeError(f"expected {form.format('board')} or {form.format('variant, position')}, "
                    f"got a {type(first).__name__} first")


def initial_position(variant: Variant) -> Position:
    """The map's first phase (normally Spring of its first year), every power on its starting
    units and home centres."""
    units = tuple(sorted(u for power in variant.powers for u in power.starting_units))
    centers = {power.name: frozenset(power.home_centers) for power in variant.powers}
    return Position(variant.start_phase or Phase(variant.start_year, Season.SPRING, PhaseKind.MOVEMENT), units, centers)


@overload
def parse_order(board: Board, power: str, text: str, /) -> Order: ...
@overload
def parse_order(variant: Variant, position: Position, power: str, text: str, /) -> Order: ...
def parse_order(first: Board | Variant, *rest: object) -> Order:  # noqa: E302
    """Understand and check one order; raises ``OrderSyntaxError`` or ``IllegalOrder`` (``.reason``).
    Called as ``parse_order(board, power, text)`` or ``parse_order(variant, position, power, text)``."""
    board, (power, text) = _board(first, rest, "parse_order({}, power, text)")
    return _parse_in(board, power, text)[0]  # type: ignore[arg-type]


def _parse_in(board: Board, power: str, text: str) -> tuple[Order, str | None]:
    """The order, checked, and its canonical text when that came for free (else ``None``)."""
    position = board.position
    order = None
    canonical = None
    kind = position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        words = text.split()
        order = _canonical_movement_order(board, words)
        if order is not None and (type(order) is Move or type(order) is Hold or "/" not in words[4]):
            canonical = " ".join(words)  # the text was canonical already
    elif kind is PhaseKind.RETREAT:
        order = _canonical_retreat_order(position, text.split())
    else:
        order = _canonical_adjustment_order(board, power, text.split())
    if order is None:
        order = _understand(board.variant, position, power, text, board.units)
    elif _plainly_legal(board.tables, power, order):
        return order, canonical
    reason = illegality(board.tables, position, power, order, board.units, board.fleet_seas, board.surpluses)
    if reason is not None:
        raise IllegalOrder(text.strip(), reason)
    return order, canonical


def _plainly_legal(tables: Tables, power: str, order: Order) -> bool:
    """Is ``order``, built by a fast path (so its units stand where it names them), legal on
    its face: an own unit holding, moving to a neighbour, or supporting into a province it
    could move to?  A few set lookups instead of ``illegality``; an order that fails here
    goes there, for the reason to give."""
    cls = type(order)
    if cls is Hold:
        return order.unit.power == power  # type: ignore[union-attr]
    if cls is Move:
        return (
            not order.via_convoy  # type: ignore[union-attr]
            and order.unit.power == power  # type: ignore[union-attr]
            and order.destination in tables.steps[order.unit.kind].get(order.unit.location, ())  # type: ignore[union-attr]
        )
    if cls is SupportMove:
        origin = tables.prov_of[order.supported.location]  # type: ignore[union-attr]
        target = tables.prov_of[order.supported_to]  # type: ignore[union-attr]
        if target == origin:
            return False
    elif cls is SupportHold:
        origin = target = tables.prov_of[order.supported.location]  # type: ignore[union-attr]
    else:
        return False
    unit = order.unit  # type: ignore[union-attr]
    # A unit never reaches its own province, so reaching the target also rules out
    # supporting into it; the origin is checked apart (a unit cannot support its own move).
    return (
        unit.power == power
        and target in tables.reach[unit.kind].get(unit.location, ())
        and origin != tables.prov_of[unit.location]
    )


def _canonical_movement_order(board: Board, words: list[str]) -> Order | None:
    """A fast path for movement orders already in canonical form (``F LON - NTH``,
    ``A PAR S A MAR - BUR``, ``F NTH C A LON - NWY``...) naming units exactly as they
    stand.  It builds the same order ``notation.parse_order`` would; anything else,
    or anything it is not sure of, returns ``None`` and goes to the lenient parser."""
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


def _canonical_retreat_order(position: Position, words: list[str]) -> Order | None:
    """Fast path for ``A VIE R BOH`` / ``A VIE D`` naming a dislodged unit exactly; else ``None``."""
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


def _canonical_adjustment_order(board: Board, power: str, words: list[str]) -> Order | None:
    """Fast path for ``A PAR B``, ``F BRE B``, ``A PAR D`` and ``WAIVE``; else ``None``."""
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


@overload
def parse_orders(board: Board, power: str, lines: Sequence[str], /) -> ParsedOrders: ...
@overload
def parse_orders(variant: Variant, position: Position, power: str, lines: Sequence[str], /) -> ParsedOrders: ...
def parse_orders(first: Board | Variant, second: object, third: object, *rest: object) -> ParsedOrders:  # noqa: E302
    """Parse each non-blank line; good orders in ``.orders`` (their texts in ``.canonical``),
    ``(line, reason)`` in ``.errors``.  Called as ``parse_orders(board, power, lines)`` or
    ``parse_orders(variant, position, power, lines)``."""
    if type(first) is Board and not rest:  # the board form, once per power and phase: no packing
        return parse_lines(first, second, third, _parse_in)  # type: ignore[arg-type]
    board, (power, lines) = _board(first, (second, third, *rest), "parse_orders({}, power, lines)")
    return parse_lines(board, power, lines, _parse_in)  # type: ignore[arg-type]


@overload
def requirements(board: Board, /) -> Mapping[str, Requirement]: ...
@overload
def requirements(variant: Variant, position: Position, /) -> Mapping[str, Requirement]: ...
def requirements(first: Board | Variant, *rest: object) -> Mapping[str, Requirement]:  # noqa: E302
    """Who must order what: units to order or retreat, builds allowed, removals required.
    Called as ``requirements(board)`` or ``requirements(variant, position)``."""
    if type(first) is Board and not rest:
        return progress.requirements(first.tables, first.position)
    if isinstance(first, Variant) and len(rest) == 1 and isinstance(rest[0], Position):
        return progress.requirements(tables_for(first), rest[0])  # no board needed: skip building one
    raise TypeError("expected requirements(board) or requirements(variant, position)")


def canonical_position(position: Position) -> dict[str, object]:
    """The position as the contract's canonical JSON document (map name left out)."""
    from adjudicator.jsonio import position_to_json

    document = position_to_json(position)
    document.pop("map", None)
    return document


def position_digest(position: Position) -> str:
    """sha256 (hex) of the canonical JSON of ``position``: equal boards, equal digests."""
    text = json.dumps(canonical_position(position), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def check_rules(rules: frozenset[str]) -> frozenset[str]:
    """``rules`` if every name is known and at most one paradox rule is chosen; else ValueError."""
    unknown = sorted(set(rules) - RULES)
    if unknown:
        raise ValueError(f"unknown rule(s) {', '.join(unknown)} (known: {', '.join(sorted(RULES))})")
    if len(set(rules) & PARADOX_RULES) > 1:
        raise ValueError(f"choose at most one convoy-paradox rule, not {', '.join(sorted(set(rules) & PARADOX_RULES))}")
    return frozenset(rules)


@overload
def adjudicate(board: Board, orders: Mapping[str, GivenOrders], rules: Iterable[str] = ..., /) -> Adjudication: ...
@overload
def adjudicate(variant: Variant, position: Position, orders: Mapping[str, GivenOrders], rules: Iterable[str] = ..., /) -> Adjudication: ...
def adjudicate(first: Board | Variant, *rest: object, **keywords: object) -> Adjudication:  # noqa: E302
    """Adjudicate the phase of the board's position.  Illegal orders are reported ``void`` (the
    unit holds, or disbands in a retreat phase); units without orders hold (movement) or disband
    (retreat); missing removals follow civil disorder.  ``.position`` is the next position.

    Called as ``adjudicate(board, orders, rules)`` or ``adjudicate(variant, position, orders,
    rules)``; ``orders`` maps a power to its orders or to the ``ParsedOrders`` of
    ``parse_orders(board, power, ...)``, whose orders need no second check.
    """
    if type(first) is Board and not keywords and 1 <= len(rest) <= 2:
        board, orders, rules = first, rest[0], (rest[1] if len(rest) == 2 else ())
    else:
        if type(first) is not Board:
            first, rest = _board(first, rest, "adjudicate({}, orders, rules)")
        board, orders, rules = _arguments(first, *rest, **keywords)  # type: ignore[arg-type]
    kind = board.position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        return _movement(board, orders, check_rules(frozenset(rules)) if rules else _NO_RULES)  # type: ignore[arg-type]
    if rules:
        check_rules(frozenset(rules))  # type: ignore[arg-type]
    if kind is PhaseKind.RETREAT:
        return _retreats(board, orders)  # type: ignore[arg-type]
    return _adjustments(board, orders)  # type: ignore[arg-type]


_NO_RULES: frozenset[str] = frozenset()


def _arguments(board: Board, orders: Mapping[str, GivenOrders], rules: Iterable[str] = frozenset()) -> tuple[
        Board, Mapping[str, GivenOrders], Iterable[str]]:
    """``adjudicate``'s arguments after the board, as Python binds them (keywords too)."""
    return board, orders, rules


def _checked(board: Board, power: str, given: GivenOrders) -> Iterable[tuple[Order, str | None, str | None]]:
    """``(order, illegality or None, canonical text or None)`` for each order ``power`` gave.

    A ``ParsedOrders`` made by ``parse_orders`` on this very board for this power holds
    only orders that passed the check, with their texts: they are not checked twice
    (about 15 % of a movement phase).  Anything else is checked here."""
    if type(given) is ParsedOrders:
        if given.board is board and given.power == power:
            return zip(given.orders, repeat(None), given.canonical)
        given = given.orders
    tables, position, units, seas, surpluses = board.tables, board.position, board.units, board.fleet_seas, board.surpluses
    return [(order, illegality(tables, position, power, order, units, seas, surpluses), None) for order in given]


def _movement(board: Board, orders: Mapping[str, GivenOrders], rules: frozenset[str]) -> Adjudication:
    tables, position = board.tables, board.position
    chosen, texts, void, stray, shapes = _orders_by_unit(board, orders)
    legal = chosen if not void else [None if i in void else o for i, o in enumerate(chosen)]
    outcome = resolve_movement(tables, position.units, legal, rules, board.provinces, board.index, board.powers, shapes)
    results = _movement_results(board, chosen, texts, void, outcome)
    results.extend(stray)
    dislodged = dislodged_units(tables, position.units, outcome) if outcome.dislodged else ()
    occupant = None
    if position.phase.season is Season.FALL:  # centres may change hands: who stands where after the moves
        occupant = dict(zip(outcome.where, board.powers))
        for j in outcome.dislodged:  # its province is its attacker's now
            occupant[outcome.where[j]] = board.powers[outcome.dislodged_by[j]]
    following = progress.after_movement(
        tables, position.phase, _units_after(position.units, outcome), position.centers, dislodged, occupant)
    contested = tuple(sorted(outcome.contested)) if outcome.contested else ()
    return Adjudication(tuple(results), following, dislodged, contested, progress.winner(tables, following.centers))


def _orders_by_unit(
    board: Board, orders: Mapping[str, GivenOrders]
) -> tuple[list[Order | None], list[str | None], dict[int, str], list[OrderResult], tuple[list[int], list[str]]]:
    """Each unit's order and its canonical text when known (indexed like the units; the last
    order for a unit counts), the illegal ones (index -> reason), results for strays, and
    the shapes of the legal orders for the resolver (``resolve.order_shape``: kinds, targets)."""
    index, prov_of, units = board.index, board.tables.prov_of, board.position.units
    count = len(units)
    chosen: list[Order | None] = [None] * count
    texts: list[str | None] = [None] * count
    kinds = [HOLD] * count
    targets = [""] * count
    void: dict[int, str] = {}
    stray: list[OrderResult] = []  # orders for no unit of the ordering power
    for power, given in orders.items():
        if type(given) is ParsedOrders and given.board is board and given.power == power and given.notes:
            # parse_orders checked these and noted where their units stand and their shapes
            for order, text, note in zip(given.orders, given.canonical, given.notes):
                i = index[note[0]]  # a note starts (province, kind, target)
                chosen[i] = order
                texts[i] = text
                kinds[i] = note[1]
                targets[i] = note[2]
            if void:  # an earlier void order for a unit these orders replace
                for note in given.notes:
                    void.pop(index[note[0]], None)
            continue
        for order, reason, text in _checked(board, power, given):
            unit = getattr(order, "unit", None)
            i = None if unit is None else index.get(prov_of.get(unit.location) or province_of(unit.location))
            if i is None or units[i].power != power:
                stray.append(OrderResult(power, order.canonical(), "void", reason or "not an order for one of your units"))
                continue
            chosen[i] = order
            texts[i] = text
            if reason is not None:
                void[i] = reason
                kinds[i], targets[i] = HOLD, ""
            else:
                kinds[i], targets[i] = order_shape(order, prov_of)
                if void:  # usually empty: skip the pop
                    void.pop(i, None)
    return chosen, texts, void, stray, (kinds, targets)


def _movement_results(
    board: Board, chosen: list[Order | None], texts: list[str | None], void: dict[int, str], outcome: MovementResolution
) -> list[OrderResult]:
    """One result per unit, sorted by power (stable: by location within a power)."""
    units = board.position.units
    while None in texts:  # no text from the parser: an unordered unit, or orders given as values
        i = texts.index(None)
        shown = chosen[i]
        texts[i] = f"{units[i].kind._value_} {units[i].location} H" if shown is None else shown.canonical()
    status, reasons = outcome.status, outcome.reasons
    if void:
        status, reasons = list(status), list(reasons)
        for i, reason in void.items():
            reasons[i] = reason
            if status[i] != "dislodged":
                status[i] = "void"
    results = list(map(made, repeat(OrderResult), zip(board.powers, texts, status, reasons)))
    results.sort(key=_by_power)
    return results


def _units_after(units: tuple[Unit, ...], outcome: MovementResolution) -> tuple[Unit, ...]:
    """The units left on the board after the moves (dislodged ones taken off), by location."""
    after = list(units)
    for k, arrival in zip(outcome.moved, outcome.arrivals):
        unit = units[k]
        after[k] = made(Unit, (arrival, unit.kind, unit.power))
    for j in sorted(outcome.dislodged, reverse=True):  # from the back: the indexes ahead stay valid
        del after[j]
    after.sort(key=_by_location)
    return tuple(after)


_by_power = itemgetter(0)  # OrderResult.power
_UNIT_KINDS = {kind._value_: kind for kind in UnitKind}  # "A" -> UnitKind.ARMY: a dict lookup, not the Enum's call
_by_location = attrgetter("location")


def _retreats(board: Board, orders: Mapping[str, GivenOrders]) -> Adjudication:
    tables, position = board.tables, board.position
    prov_of = tables.prov_of
    owner = {prov_of.get(d.unit.location) or d.unit.province: d.unit.power for d in position.dislodged}
    chosen: dict[str, Retreat | Disband | None] = {}
    void: dict[str, tuple[Order, str]] = {}
    stray: list[OrderResult] = []
    for power, given in orders.items():
        for order, reason, _ in _checked(board, power, given):
            unit = getattr(order, "unit", None)
            province = None if unit is None else prov_of.get(unit.location) or province_of(unit.location)
            if province is None or owner.get(province) != power:
                stray.append(OrderResult(power, order.canonical(), "void", reason or "not an order for one of your dislodged units"))
                continue
            if reason is None:
                chosen[province] = order  # type: ignore[assignment]
                void.pop(province, None)
            else:
                chosen[province] = None
                void[province] = (order, reason)
    outcomes = resolve_retreats(position.dislodged, {p: o for p, o in chosen.items() if o is not None})
    results: list[OrderResult] = []
    placed: list[Unit] = []
    for outcome in outcomes:
        power = outcome.dislodged.unit.power
        bad = void.get(outcome.dislodged.unit.province)
        if bad is not None:
            order, reason = bad
            results.append(OrderResult(power, order.canonical(), "void", f"{reason}; the unit is disbanded"))
            continue
        results.append(OrderResult(power, outcome.order.canonical(), outcome.result, outcome.reason))
        if outcome.unit is not None:
            placed.append(outcome.unit)
    results.sort(key=_by_power)
    results.extend(stray)
    units = tuple(sorted(position.units + tuple(placed), key=_by_location))
    following = progress.after_season(tables, position.phase, units, position.centers)
    return Adjudication(tuple(results), following, winner=progress.winner(tables, following.centers))


def _adjustments(board: Board, orders: Mapping[str, GivenOrders]) -> Adjudication:
    tables, position = board.tables, board.position
    legal: dict[str, list[Order]] = {}
    results: list[OrderResult] = []
    for power, given in orders.items():
        for order, reason, _ in _checked(board, power, given):
            if reason is None:
                legal.setdefault(power, []).append(order)
            else:
                results.append(OrderResult(power, order.canonical(), "void", reason))
    outcomes, units = resolve_adjustments(tables, position, legal, board.surpluses)
    results.extend([made(OrderResult, (o.power, o.order.canonical(), o.result, o.reason)) for o in outcomes])
    results.sort(key=_by_power)
    following = progress.next_spring(Position(position.phase, units, position.centers), tables)
    return Adjudication(tuple(results), following, winner=progress.winner(tables, following.centers))
