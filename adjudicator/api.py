"""The engine facade (docs/design.md): the only module the rest of the project imports.

Pure: frozen values in, frozen values out; no I/O, no clock, no state kept between
calls.  Every question about a phase is asked of its ``Board``: a caller builds it once
(``prepare(variant, position)``) and passes it to ``parse_order``, ``parse_orders``,
``adjudicate`` and ``requirements``.  ``parse_orders`` hands back a ``ParsedOrders`` that
names its board: given to ``adjudicate`` with that board, its orders are taken as checked
(see ``_checked``).
"""

from __future__ import annotations

import hashlib
import json
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Iterable, Mapping, NamedTuple, Sequence, Union, cast

from adjudicator import progress
from adjudicator.adjustments import resolve_adjustments
from adjudicator.board import Board, prepare
from adjudicator.canonical_lines import parse_lines, plainly_legal, read_canonical
from adjudicator.legality import IllegalOrder, illegality
from adjudicator.notation import OrderSyntaxError
from adjudicator.notation import parse_order as _understand
from adjudicator.orders import Disband, Order, Retreat
from adjudicator.resolve import HOLD, MovementResolution, Note, order_shape, resolve_movement
from adjudicator.rulesets import CD_REMOVE_2023, RULES
from adjudicator.rulesets import check_rules as _check_rules
from adjudicator.results import Adjudication, IllegalLine, OrderResult, ParsedOrders, Requirement
from adjudicator.retreats import dislodged_units, resolve_retreats
from adjudicator.tables import Tables
from adjudicator.types import NEUTRAL, Phase, PhaseKind, Position, Season, Unit, UnitKind, Variant, province_of
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
    "read_orders",
    "check_orders",
    "adjudicate",
    "requirements",
    "position_digest",
    "canonical_position",
    "check_rules",
]

# What ``adjudicate`` takes per power: orders, or a ``ParsedOrders`` from ``parse_orders``.
GivenOrders = Union[Sequence[Order], ParsedOrders]


def initial_position(variant: Variant) -> Position:
    """The map's first phase (normally Spring of its first year), every power on its starting
    units and home centres."""
    units = tuple(sorted([*(u for power in variant.powers for u in power.starting_units),
                          *(Unit(c, UnitKind.ARMY, NEUTRAL) for c in variant.neutral_centres)]))
    centers = {power.name: frozenset(power.home_centers).difference(power.claims) for power in variant.powers}
    return Position(variant.start_phase or Phase(variant.start_year, Season.SPRING, PhaseKind.MOVEMENT), units, centers)


def parse_order(board: Board, power: str, text: str) -> Order:
    """Understand and check one order of ``power``; raises ``OrderSyntaxError`` or
    ``IllegalOrder`` (``.reason``)."""
    return _parse_in(board, power, text)[0]


def _parse_in(board: Board, power: str, text: str) -> tuple[Order, str | None]:
    """The order, checked, and its canonical text when that came for free (else ``None``):
    the fast path (``canonical_lines.read_canonical``), or the lenient parser when it declines;
    then the legality check, unless the order is plainly legal."""
    found = read_canonical(board, power, text)
    if found is None:
        order, canonical = _understand(board.variant, board.position, power, text, board.units), None
    else:
        order, canonical = found
        if plainly_legal(board, power, order):
            return found
    reason = illegality(board.tables, board.position, power, order, board.units, board.fleet_seas, board.surpluses)
    if reason is not None:
        raise IllegalOrder(text.strip(), reason, order)
    return order, canonical


def parse_orders(board: Board, power: str, lines: Sequence[str]) -> ParsedOrders:
    """Parse each non-blank line of ``power``; good orders in ``.orders`` (their texts in
    ``.canonical``), ``(line, reason)`` in ``.errors``."""
    return parse_lines(board, power, lines, _parse_in)


def read_orders(board: Board, power: str, lines: Sequence[str]) -> ParsedOrders:
    """Every line of ``power`` accounted for, as shared/contracts/adjudicate.md reads them:
    good orders as ``parse_orders`` gives them; the orders understood but illegal in
    ``.illegal``, which ``adjudicate`` reports void in their units' places (a later order for
    the same unit counts, as always); in ``.errors``, ``(line, reason)`` for each line not
    understood, blank ones included."""
    return parse_lines(board, power, lines, _parse_in, every_line=True)


def check_orders(board: Board, power: str, orders: Iterable[Order]) -> ParsedOrders:
    """``power``'s orders given as values, checked once, as ``read_orders`` would give them:
    ``adjudicate(board, {power: checked})`` then need not check them again, and adjudicates
    exactly as it would the plain orders (for a caller that adjudicates the same orders many
    times, such as a bot's search).  The illegal ones go to ``.illegal`` (reported void)."""
    tables, position, units, seas, surpluses = board.tables, board.position, board.units, board.fleet_seas, board.surpluses
    movement = position.phase.kind is PhaseKind.MOVEMENT
    prov_of = tables.prov_of
    good: list[Order] = []
    texts: list[str] = []
    notes: list[Note] = []
    illegal: list[IllegalLine] = []
    for order in orders:
        reason = illegality(tables, position, power, order, units, seas, surpluses)
        if reason is not None:
            illegal.append(made(IllegalLine, (len(good), order, reason)))
            continue
        good.append(order)
        texts.append(order.canonical())
        if movement:
            notes.append(made(Note, (prov_of[order.unit.location], *order_shape(order, prov_of))))  # type: ignore[union-attr]
    return made(ParsedOrders, (tuple(good), (), power, board, tuple(texts), tuple(notes), tuple(illegal)))


def requirements(board: Board) -> Mapping[str, Requirement]:
    """Who must order what: units to order or retreat, builds allowed, removals required."""
    return progress.requirements(board.tables, board.position)


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


def check_rules(rules: Iterable[str]) -> frozenset[str]:
    """The rules in force for the names ``rules`` (a set such as ``DATC_3`` replaced by its
    members); ``ValueError`` for an unknown name or two convoy-paradox rules."""
    return _check_rules(rules)


def adjudicate(board: Board, orders: Mapping[str, GivenOrders], rules: Iterable[str] = ()) -> Adjudication:
    """Adjudicate the phase of the board's position.  Illegal orders are reported ``void`` (the
    unit holds, or disbands in a retreat phase); units without orders hold (movement) or disband
    (retreat); missing removals follow civil disorder.  ``.position`` is the next position.

    ``orders`` maps a power to its orders or to the ``ParsedOrders`` of
    ``parse_orders(board, power, ...)`` or ``read_orders``, whose orders need no second check.
    """
    kind = board.position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        return _movement(board, orders, check_rules(rules) if rules else _NO_RULES)
    in_force = check_rules(rules) if rules else _NO_RULES
    if kind is PhaseKind.RETREAT:
        return _retreats(board, orders)
    return _adjustments(board, orders, CD_REMOVE_2023 in in_force)


_NO_RULES: frozenset[str] = frozenset()


def _checked(board: Board, power: str, given: GivenOrders) -> Iterable[tuple[Order, str | None, str | None]]:
    """``(order, illegality or None, canonical text or None)`` for each order ``power`` gave.

    A ``ParsedOrders`` made by ``parse_orders`` on this very board for this power holds
    only orders that passed the check, with their texts: they are not checked twice
    (about 15 % of a movement phase); one made by ``read_orders`` adds its illegal orders,
    in their places among the good ones, with their reasons.  Anything else is checked here."""
    plain: Sequence[Order]
    if type(given) is ParsedOrders:
        trusted = given.board is board and given.power == power
        if trusted and not given.illegal:
            return zip(given.orders, repeat(None), given.canonical)
        merged: list[tuple[Order, str | None, str | None]] = list(zip(given.orders, repeat(None), given.canonical))
        for place, order, reason in reversed(given.illegal):  # from the back: the places ahead stay valid
            merged.insert(place, (order, reason, None))
        if trusted:
            return merged
        plain = [order for order, _, _ in merged]
    else:
        plain = cast("Sequence[Order]", given)  # a ParsedOrders is a tuple too: mypy cannot tell them apart
    tables, position, units, seas, surpluses = board.tables, board.position, board.units, board.fleet_seas, board.surpluses
    return [(order, illegality(tables, position, power, order, units, seas, surpluses), None) for order in plain]


def _movement(board: Board, orders: Mapping[str, GivenOrders], rules: frozenset[str]) -> Adjudication:
    tables, position = board.tables, board.position
    chosen, texts, void, stray, kinds, targets = _orders_by_unit(board, orders)
    legal = chosen if not void else [None if i in void else o for i, o in enumerate(chosen)]
    outcome = resolve_movement(
        tables, position.units, legal, rules, board.provinces, board.index, board.powers, (kinds, targets))
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
    return Adjudication(tuple(results), following, dislodged, contested, _winner(tables, position.phase, following))


def _winner(tables: Tables, played: Phase, following: Position) -> str | None:
    """The winner after playing ``played``: a lead counts only when the phase ended a year."""
    ended = played.year if played.closes_year(following.phase) else None
    return progress.winner(tables, following.centers, ended)


class _OrdersByUnit(NamedTuple):
    """A movement phase's orders by unit, each list indexed like ``position.units``."""

    chosen: list[Order | None]  # each unit's order, the last one given for it; None: no order
    texts: list[str | None]  # its canonical text when the parser gave it
    void: dict[int, str]  # unit index -> why its order is illegal
    stray: list[OrderResult]  # void results of orders for no unit of the ordering power
    kinds: list[int]  # the resolver's shape of each legal order (resolve.order_shape): its kind ...
    targets: list[str]  # ... and its target province


def _orders_by_unit(board: Board, orders: Mapping[str, GivenOrders]) -> _OrdersByUnit:
    """Each unit's order, checked unless ``parse_orders`` or ``read_orders`` checked it on
    this board."""
    index, prov_of, units = board.index, board.tables.prov_of, board.position.units
    count = len(units)
    chosen: list[Order | None] = [None] * count
    texts: list[str | None] = [None] * count
    kinds = [HOLD] * count
    targets = [""] * count
    void: dict[int, str] = {}
    stray: list[OrderResult] = []  # orders for no unit of the ordering power
    for power, given in orders.items():
        if (type(given) is ParsedOrders and given.board is board and given.power == power and given.notes
                and not given.illegal):
            # parse_orders checked these and noted where their units stand and their shapes
            for checked, canonical, note in zip(given.orders, given.canonical, given.notes):
                at = index[note.province]
                chosen[at] = checked
                texts[at] = canonical
                kinds[at] = note.shape
                targets[at] = note.target
            if void:  # an earlier void order for a unit these orders replace
                for note in given.notes:
                    void.pop(index[note.province], None)
            continue
        # Anything else, read_orders' with illegal orders among the good ones included: each
        # order in its unit's place in turn, a later one replacing an earlier one.
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
    return _OrdersByUnit(chosen, texts, void, stray, kinds, targets)


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
    return Adjudication(tuple(results), following, winner=_winner(tables, position.phase, following))


def _adjustments(board: Board, orders: Mapping[str, GivenOrders], removals_2023: bool) -> Adjudication:
    tables, position = board.tables, board.position
    legal: dict[str, list[Order]] = {}
    results: list[OrderResult] = []
    for power, given in orders.items():
        for order, reason, _ in _checked(board, power, given):
            if reason is None:
                legal.setdefault(power, []).append(order)
            else:
                results.append(OrderResult(power, order.canonical(), "void", reason))
    outcomes, units = resolve_adjustments(tables, position, legal, board.surpluses, removals_2023)
    results.extend([made(OrderResult, (o.power, o.order.canonical(), o.result, o.reason)) for o in outcomes])
    results.sort(key=_by_power)
    following = progress.next_spring(Position(position.phase, units, position.centers), tables)
    return Adjudication(tuple(results), following, winner=progress.winner(tables, following.centers))
