"""The engine facade (docs/design.md): the only module the rest of the project imports.

Pure: frozen values in, frozen values out; no I/O, no clock.  Derived lookup data
(per-variant tables, per-position boards) is memoised per immutable object, which
does not change any result.
"""

from __future__ import annotations

import hashlib
import json
from operator import attrgetter
from dataclasses import dataclass, fields
from typing import Mapping, Sequence

from adjudicator import progress
from adjudicator.adjustments import resolve_adjustments
from adjudicator.legality import IllegalOrder, illegality
from adjudicator.notation import OrderSyntaxError
from adjudicator.notation import parse_order as _understand
from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Order, Remove, Retreat, SupportHold, SupportMove, Waive
from adjudicator.resolve import PARADOX_RULES, RULES, resolve_movement
from adjudicator.results import Adjudication, OrderResult, ParsedOrders, Requirement
from adjudicator.retreats import dislodged_units, resolve_retreats
from adjudicator.tables import Tables, tables_for
from adjudicator.types import Phase, PhaseKind, Position, Season, Unit, UnitKind, Variant, province_of

__all__ = [
    "RULES",
    "IllegalOrder",
    "OrderSyntaxError",
    "initial_position",
    "parse_order",
    "parse_orders",
    "adjudicate",
    "requirements",
    "position_digest",
    "canonical_position",
    "check_rules",
]


@dataclass(frozen=True, eq=False)
class _Context:
    tables: Tables
    board: dict[str, Unit]  # province -> unit
    fleet_seas: frozenset[str]  # sea provinces holding a fleet
    provinces: tuple[str, ...]  # province of each of position.units, in order
    index: dict[str, int]  # province -> index into position.units
    # id(order) -> (order, power, illegality, canonical text if already known)
    verdicts: dict[int, tuple[Order, str, str | None, str | None]]

    def illegality(self, position: Position, power: str, order: Order, text: str | None = None) -> str | None:
        """``legality.illegality``, remembered per order object (orders are immutable)."""
        known = self.verdicts.get(id(order))
        if known is not None and known[0] is order and known[1] == power:
            return known[2]
        reason = illegality(self.tables, position, power, order, self.board, self.fleet_seas)
        if len(self.verdicts) > 4096:
            self.verdicts.clear()  # a memo, not a store: keep it small for long-lived positions
        self.verdicts[id(order)] = (order, power, reason, text)  # holding the order keeps its id unique
        return reason


def _context(variant: Variant, position: Position) -> _Context:
    # Kept on the position itself (like ``Position.unit_at``'s index): derived from frozen
    # data only, gone with the position, and one dict lookup away.
    found = position.__dict__.get("_engine_context")
    if found is None or found.tables.variant is not variant:
        tables = tables_for(variant)
        prov_of = tables.prov_of
        units = position.units
        provinces = tuple([prov_of.get(u.location) or province_of(u.location) for u in units])
        board = dict(zip(provinces, units))
        sea = tables.sea
        fleet = UnitKind.FLEET
        seas = frozenset([p for p, u in board.items() if u.kind is fleet and p in sea])
        found = _Context(tables, board, seas, provinces, {p: i for i, p in enumerate(provinces)}, {})
        object.__setattr__(position, "_engine_context", found)
    return found


def initial_position(variant: Variant) -> Position:
    """Spring of the map's first year, every power on its starting units and home centres."""
    units = tuple(sorted(u for power in variant.powers for u in power.starting_units))
    centers = {power.name: frozenset(power.home_centers) for power in variant.powers}
    return Position(Phase(variant.start_year, Season.SPRING, PhaseKind.MOVEMENT), units, centers)


def parse_order(variant: Variant, position: Position, power: str, text: str) -> Order:
    """Understand and check one order; raises ``OrderSyntaxError`` or ``IllegalOrder`` (``.reason``)."""
    return _parse_in(_context(variant, position), variant, position, power, text)


def _parse_in(context: _Context, variant: Variant, position: Position, power: str, text: str) -> Order:
    order = None
    canonical = None
    kind = position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        words = text.split()
        order = _canonical_movement_order(context, words)
        if order is not None and (type(order) is Move or type(order) is Hold or "/" not in words[4]):
            canonical = " ".join(words)  # the text was canonical already
    elif kind is PhaseKind.RETREAT:
        order = _canonical_retreat_order(position, text.split())
    else:
        order = _canonical_adjustment_order(context, power, text.split())
    if order is None:
        order = _understand(variant, position, power, text)
    elif (
        type(order) is Hold
        or (
            type(order) is Move
            and not order.via_convoy  # type: ignore[union-attr]
            and order.destination in _steps(context.tables, order.unit)  # type: ignore[union-attr]
        )
    ) and order.unit.power == power:  # type: ignore[union-attr]  (Build and Waive have no unit)
        # Obviously legal (own unit holding, or moving to a neighbour): skip the full check.
        if len(context.verdicts) > 4096:
            context.verdicts.clear()
        context.verdicts[id(order)] = (order, power, None, canonical)
        return order
    reason = context.illegality(position, power, order, canonical)
    if reason is not None:
        raise IllegalOrder(text.strip(), reason)
    return order


# Frozen dataclasses pay for ``object.__setattr__`` on every field in ``__init__``; the
# canonical fast path builds its orders through the slot descriptors instead (same
# object, about half the cost).  The field lists are checked here so that a change
# to orders.py fails at import instead of building incomplete orders.
for _cls, _names in ((Move, ["unit", "destination", "via_convoy", "route"]), (Hold, ["unit"])):
    if [f.name for f in fields(_cls)] != _names:
        raise ImportError(f"adjudicator.api: the fast constructor of {_cls.__name__} is out of date with orders.py")
_new = object.__new__
_set_move = (Move.unit.__set__, Move.destination.__set__, Move.via_convoy.__set__, Move.route.__set__)  # type: ignore[attr-defined]


def _move(unit: Unit, destination: str, via_convoy: bool) -> Move:
    order = _new(Move)
    set_unit, set_destination, set_via, set_route = _set_move
    set_unit(order, unit)
    set_destination(order, destination)
    set_via(order, via_convoy)
    set_route(order, ())
    return order


def _hold(unit: Unit) -> Hold:
    order = _new(Hold)
    Hold.unit.__set__(order, unit)  # type: ignore[attr-defined]
    return order


def _steps(tables: Tables, unit: Unit) -> frozenset[str]:
    """Where ``unit`` may move without a convoy, as locations (armies: provinces)."""
    if unit.kind is UnitKind.FLEET:
        return tables.fleet_adj.get(unit.location, frozenset())
    return tables.army_adj.get(unit.location, frozenset())


def _canonical_movement_order(context: _Context, words: list[str]) -> Order | None:
    """A fast path for movement orders already in canonical form (``F LON - NTH``,
    ``A PAR S A MAR - BUR``, ``F NTH C A LON - NWY``...) naming units exactly as they
    stand.  It builds the same order ``notation.parse_order`` would; anything else,
    or anything it is not sure of, returns ``None`` and goes to the lenient parser."""
    count = len(words)
    if count < 3:
        return None
    board, prov_of = context.board, context.tables.prov_of
    unit = board.get(prov_of.get(words[1], ""))
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
        elif "/" not in destination and context.tables.variant.provinces[destination].coasts:
            return None  # the lenient parser picks the coast
        return _move(unit, destination, via_convoy)
    if verb == "H":
        return _hold(unit) if count == 3 else None
    if verb == "S" and (count == 5 or (count == 7 and words[5] == "-")):
        other = board.get(prov_of.get(words[4], ""))
        if other is None or other.location != words[4] or other.kind._value_ != words[3]:
            return None
        if count == 5:
            return SupportHold(unit, other)
        target = words[6]
        if target not in prov_of or ("/" in target and other.kind is UnitKind.ARMY):
            return None
        return SupportMove(unit, other, target)
    if verb == "C" and count == 7 and words[3] == "A" and words[5] == "-":
        provinces = context.tables.variant.provinces
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


def _canonical_adjustment_order(context: _Context, power: str, words: list[str]) -> Order | None:
    """Fast path for ``A PAR B``, ``F BRE B``, ``A PAR D`` and ``WAIVE``; else ``None``."""
    if len(words) == 1:
        return Waive(power) if words[0] == "WAIVE" else None
    if len(words) != 3 or words[0] not in ("A", "F") or words[1] not in context.tables.prov_of:
        return None
    if words[2] == "B":
        if words[0] == "A" and "/" in words[1]:
            return None
        return Build(power, UnitKind(words[0]), words[1])
    if words[2] == "D":
        unit = context.board.get(context.tables.prov_of[words[1]])
        if unit is None or unit.location != words[1] or unit.kind._value_ != words[0]:
            return None
        return Remove(unit)
    return None


def parse_orders(variant: Variant, position: Position, power: str, lines: Sequence[str]) -> ParsedOrders:
    """Parse each non-blank line; good orders in ``.orders``, ``(line, reason)`` in ``.errors``."""
    orders: list[Order] = []
    errors: list[tuple[str, str]] = []
    context = _context(variant, position)
    for line in lines:
        if not line.strip():
            continue
        try:
            orders.append(_parse_in(context, variant, position, power, line))
        except (OrderSyntaxError, IllegalOrder) as problem:
            errors.append((line, problem.reason))
    return ParsedOrders(tuple(orders), tuple(errors))


def requirements(variant: Variant, position: Position) -> Mapping[str, Requirement]:
    """Who must order what: units to order or retreat, builds allowed, removals required."""
    return progress.requirements(tables_for(variant), position)


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


def adjudicate(
    variant: Variant,
    position: Position,
    orders: Mapping[str, Sequence[Order]],
    rules: frozenset[str] = frozenset(),
) -> Adjudication:
    """Adjudicate the phase of ``position``.  Illegal orders are reported ``void`` (the unit holds,
    or disbands in a retreat phase); units without orders hold (movement) or disband (retreat);
    missing removals follow civil disorder.  ``.position`` is the next position."""
    rules = check_rules(frozenset(rules))
    context = _context(variant, position)
    kind = position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        return _movement(context, position, orders, rules)
    if kind is PhaseKind.RETREAT:
        return _retreats(context, position, orders)
    return _adjustments(context, position, orders)


def _unit_province(order: Order) -> str | None:
    unit = getattr(order, "unit", None)
    return None if unit is None else province_of(unit.location)


def _movement(context: _Context, position: Position, orders: Mapping[str, Sequence[Order]], rules: frozenset[str]) -> Adjudication:
    tables, index = context.tables, context.index
    prov_of = tables.prov_of
    units = position.units
    chosen: list[Order | None] = [None] * len(units)
    texts: list[str | None] = [None] * len(units)
    void: dict[int, str] = {}
    stray: list[OrderResult] = []  # orders for no unit of the ordering power
    verdicts = context.verdicts
    for power, given in orders.items():
        for order in given:
            known = verdicts.get(id(order))
            if known is not None and known[0] is order and known[1] == power:
                reason, text = known[2], known[3]
            else:
                reason, text = context.illegality(position, power, order), None
            unit = getattr(order, "unit", None)
            i = None if unit is None else index.get(prov_of.get(unit.location) or province_of(unit.location))
            if i is None or units[i].power != power:
                stray.append(OrderResult(power, order.canonical(), "void", reason or "not an order for one of your units"))
                continue
            chosen[i] = order  # the last order for a unit counts
            texts[i] = text
            if reason is None:
                void.pop(i, None)
            else:
                void[i] = reason
    legal = chosen if not void else [None if i in void else o for i, o in enumerate(chosen)]
    outcome = resolve_movement(tables, units, legal, rules, context.provinces, index)
    results: list[OrderResult] = []
    after: list[Unit] = []
    status, reasons, destination, dislodged_by = outcome.status, outcome.reasons, outcome.destination, outcome.dislodged_by
    for i, unit in enumerate(units):
        shown = chosen[i]
        text = texts[i]
        if text is None:
            text = f"{unit.kind._value_} {unit.location} H" if shown is None else shown.canonical()
        code = status[i]
        reason = reasons[i]
        if i in void:
            reason = void[i]
            if code != "dislodged":
                code = "void"
        results.append(OrderResult(unit.power, text, code, reason))
        if dislodged_by[i] < 0:
            where = destination[i]
            after.append(unit if where == unit.location else Unit(where, unit.kind, unit.power))
    results.sort(key=_by_power)
    results.extend(stray)
    after.sort(key=_by_location)
    dislodged = dislodged_units(tables, units, outcome) if any(d >= 0 for d in dislodged_by) else ()
    following = progress.after_movement(tables, position.phase, tuple(after), position.centers, dislodged)
    return Adjudication(
        results=tuple(results),
        position=following,
        dislodged=dislodged,
        contested=tuple(sorted(outcome.contested)),
        winner=progress.winner(tables, following.centers),
    )


_by_power = attrgetter("power")
_by_location = attrgetter("location")


def _retreats(context: _Context, position: Position, orders: Mapping[str, Sequence[Order]]) -> Adjudication:
    tables = context.tables
    owner = {d.unit.province: d.unit.power for d in position.dislodged}
    chosen: dict[str, Retreat | Disband | None] = {}
    void: dict[str, tuple[Order, str]] = {}
    stray: list[OrderResult] = []
    for power, given in orders.items():
        for order in given:
            province = _unit_province(order)
            reason = illegality(tables, position, power, order)
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


def _adjustments(context: _Context, position: Position, orders: Mapping[str, Sequence[Order]]) -> Adjudication:
    tables, board = context.tables, context.board
    legal: dict[str, list[Order]] = {}
    results: list[OrderResult] = []
    for power, given in orders.items():
        for order in given:
            reason = illegality(tables, position, power, order, board)
            if reason is None:
                legal.setdefault(power, []).append(order)
            else:
                results.append(OrderResult(power, order.canonical(), "void", reason))
    outcomes, units = resolve_adjustments(tables, position, legal)
    results.extend(OrderResult(o.power, o.order.canonical(), o.result, o.reason) for o in outcomes)
    results.sort(key=_by_power)
    following = progress.next_spring(Position(position.phase, units, position.centers))
    return Adjudication(tuple(results), following, winner=progress.winner(tables, following.centers))
