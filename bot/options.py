"""What one power's units may be told to do in a movement phase, and how a set of
intentions becomes coordinated, legal orders.

An *intention* is what a unit wants, before it is squared with its comrades:

* ``("H",)``: hold;
* ``("M", location)``: move there (a neighbour; a fleet names the coast);
* ``("V", province, fleets)``: be convoyed there by our own ``fleets`` (their provinces, in
  route order);
* ``("SH", province)`` / ``("SM", province)``: support our unit in that province, holding
  or in whatever move it makes.

``coordinate`` turns a power's intentions into orders the adjudicator accepts: the fleets
on a convoy's route convoy it, a second move into the same province becomes a support of
the first, a move into a province where our own unit stays becomes a support of it holding
(Loeb's RES5), and a support that no longer fits falls back to a hold.  Every order built
here is legal by construction (the tests parse them through the adjudicator).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from adjudicator.api import Board
from adjudicator.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove
from adjudicator.types import Unit, UnitKind, province_of

Intent = tuple  # ("H",) | ("M", location) | ("V", province, fleets) | ("SH", province) | ("SM", province)
HOLD: Intent = ("H",)


@dataclass(frozen=True)
class UnitOptions:
    """A unit and every intention open to it, in a fixed order (sorted: seeds replay)."""

    unit: Unit
    province: str
    intents: tuple[Intent, ...]


def unit_options(board: Board, power: str) -> tuple[UnitOptions, ...]:
    """The options of each of ``power``'s units, by province."""
    tables = board.tables
    own = {p: u for p, u in board.units.items() if u.power == power}
    found = []
    for province in sorted(own):
        unit = own[province]
        reach = tables.reach[unit.kind].get(unit.location, frozenset())
        intents: list[Intent] = [HOLD]
        intents += [("M", loc) for loc in sorted(tables.steps[unit.kind].get(unit.location, ()))]
        if unit.kind is UnitKind.ARMY:
            intents += [("V", dest, route) for dest, route in sorted(convoy_routes(board, power, province).items())]
        for other in sorted(own):
            if other != province and other in reach:
                intents += [("SH", other), ("SM", other)]
            elif other != province:
                intents.append(("SM", other))  # it may move next to us
        found.append(UnitOptions(unit, province, tuple(intents)))
    return tuple(found)


def convoy_routes(board: Board, power: str, start: str) -> dict[str, tuple[str, ...]]:
    """Coastal provinces an army in ``start`` could reach only by sea, over ``power``'s own
    fleets at sea -> the shortest chain of those fleets' provinces."""
    tables = board.tables
    if start not in tables.coastal:
        return {}
    own_seas = {p for p, u in board.units.items() if u.power == power and u.kind is UnitKind.FLEET and p in tables.sea}
    parents: dict[str, str | None] = {}
    queue: deque[str] = deque()
    for sea in sorted(tables.sea_touching.get(start, ())):
        if sea in own_seas:
            parents[sea] = None
            queue.append(sea)
    routes: dict[str, tuple[str, ...]] = {}
    while queue:
        sea = queue.popleft()
        chain = _chain(parents, sea)
        for province in sorted(tables.fleet_reach.get(sea, ())):
            if province in tables.sea:
                if province in own_seas and province not in parents:
                    parents[province] = sea
                    queue.append(province)
            elif (province in tables.coastal and province != start and province not in routes
                  and province not in tables.army_adj.get(start, ())):
                routes[province] = chain
    return routes


def _chain(parents: Mapping[str, str | None], last: str) -> tuple[str, ...]:
    chain = [last]
    while parents[chain[-1]] is not None:
        chain.append(parents[chain[-1]])  # type: ignore[arg-type]
    return tuple(reversed(chain))


def coordinate(board: Board, options: Sequence[UnitOptions], intents: Mapping[str, Intent], rng: random.Random) -> list[Order]:
    """Legal, coordinated orders of one power's units from their intentions (see the module)."""
    tables = board.tables
    units = {o.province: o.unit for o in options}
    wanted = {p: intents.get(p, HOLD) for p in units}
    # Convoys first: the fleets of a route are taken for it (a fleet serves one convoy).
    convoying: dict[str, Order] = {}
    for province in sorted(wanted):
        intent = wanted[province]
        if intent[0] == "V":
            fleets = intent[2]
            if any(f in convoying or f not in units for f in fleets):
                wanted[province] = HOLD
                continue
            for fleet in fleets:
                convoying[fleet] = Convoy(units[fleet], province, intent[1])
    for fleet in convoying:
        wanted[fleet] = ("C",)
    # Where each unit ends up trying to go: province -> the first mover (others support it).
    target_of: dict[str, str] = {}
    for province in sorted(wanted):
        intent = wanted[province]
        if intent[0] in ("M", "V"):
            target_of[province] = province_of(intent[1])
    movers: dict[str, list[str]] = {}
    for province in sorted(target_of):
        movers.setdefault(target_of[province], []).append(province)
    orders: dict[str, Order] = {}
    staying = {p for p in wanted if p not in target_of}
    for target, group in sorted(movers.items()):
        if target in staying:
            # Moving onto our own unit that stays: support it there (RES5).
            for province in group:
                orders[province] = _support_hold(tables, units[province], units[target])
            continue
        leader = group[rng.randrange(len(group))] if len(group) > 1 else group[0]
        orders[leader] = _move(units[leader], wanted[leader])
        for province in group:
            if province != leader:  # a convoyed army cannot reach the target to support it
                supporter = units[province]
                orders[province] = SupportMove(supporter, units[leader], target) if _reaches(tables, supporter, target) else Hold(supporter)
    for province in sorted(wanted):
        if province in orders:
            continue
        intent = wanted[province]
        unit = units[province]
        if intent[0] == "C":
            orders[province] = convoying[province]
        elif intent[0] == "SH":
            orders[province] = _support_hold(tables, unit, units[intent[1]])
        elif intent[0] == "SM":
            orders[province] = _support_move(tables, unit, units[intent[1]], orders.get(intent[1]))
        else:
            orders[province] = Hold(unit)
    return [orders[p] for p in sorted(orders)]


def _move(unit: Unit, intent: Intent) -> Order:
    if intent[0] == "V":
        return Move(unit, intent[1], True)
    return Move(unit, intent[1])


def _reaches(tables: Any, unit: Unit, province: str) -> bool:
    return province in tables.reach[unit.kind].get(unit.location, ())


def _support_hold(tables: Any, unit: Unit, other: Unit) -> Order:
    return SupportHold(unit, other) if _reaches(tables, unit, other.province) else Hold(unit)


def _support_move(tables: Any, unit: Unit, other: Unit, other_order: Order | None) -> Order:
    """Support ``other``'s move if it moves somewhere we reach; else support it holding, if we
    can; else hold."""
    if type(other_order) is Move:
        target = province_of(other_order.destination)
        if target != unit.province and _reaches(tables, unit, target):
            return SupportMove(unit, other, target)
        return Hold(unit)
    if other_order is None or type(other_order) in (Hold, SupportHold, SupportMove, Convoy):
        return _support_hold(tables, unit, other)
    return Hold(unit)
