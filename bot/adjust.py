"""Retreats and adjustments chosen by a value map: few enough choices that the value decides.

A dislodged unit retreats to the best place it may (never two of ours to one place, which
would bounce both), else disbands.  A power with builds builds on its best free home
centres, the kind and coast whose place is worth most; a power with too many units removes
the ones standing where they are worth least.
"""

from __future__ import annotations

from adjudicator.adjustments import free_home_centres
from adjudicator.api import Board, requirements
from adjudicator.orders import Build, Disband, Order, Remove, Retreat, Waive
from adjudicator.types import PhaseKind, Season, Terrain, UnitKind, province_of
from bot.values import DEFAULT_WEIGHTS, ValueMap, Weights, value_map


def orders_by_value(board: Board, power: str, weights: Weights = DEFAULT_WEIGHTS) -> list[Order]:
    """``power``'s retreats or adjustments on ``board`` (a winter looks at the spring ahead)."""
    if board.position.phase.kind is PhaseKind.RETREAT:
        return retreat_orders(board, power, value_map(board, power, weights))
    return adjustment_orders(board, power, value_map(board, power, weights, Season.SPRING))


def retreat_orders(board: Board, power: str, values: ValueMap) -> list[Order]:
    """A retreat or disband for each of ``power``'s dislodged units, best-placed unit first."""
    ours = [d for d in board.position.dislodged if d.unit.power == power]
    ours.sort(key=lambda d: (-max((values.of(d.unit.kind, loc) for loc in d.retreats), default=0.0), d.unit.location))
    taken: set[str] = set()
    orders: list[Order] = []
    for entry in ours:
        choices = sorted((loc for loc in entry.retreats if province_of(loc) not in taken),
                         key=lambda loc: (-values.of(entry.unit.kind, loc), loc))
        if choices:
            taken.add(province_of(choices[0]))
            orders.append(Retreat(entry.unit, choices[0]))
        else:
            orders.append(Disband(entry.unit))
    return orders


def adjustment_orders(board: Board, power: str, values: ValueMap) -> list[Order]:
    """Builds on the best free home centres, or removals of the least valuable units."""
    needed = requirements(board).get(power)
    if needed is None:
        return []
    if needed.removals:
        units = sorted(needed.units, key=lambda u: (values.of(u.kind, u.location), u.location))
        return [Remove(u) for u in units[: needed.removals]]
    choices = []
    provinces = board.variant.provinces
    for centre in free_homes(board, power):
        for kind, location in _build_places(board, centre):
            choices.append((values.of(kind, location), centre, kind, location))
    choices.sort(key=lambda c: (-c[0], c[1], c[2]._value_, c[3]))
    orders: list[Order] = []
    used: set[str] = set()
    for _, centre, kind, location in choices:
        if len(orders) == needed.builds:
            break
        if centre not in used and provinces[centre].terrain is not Terrain.SEA:
            used.add(centre)
            orders.append(Build(power, kind, location))
    if len(orders) < needed.builds:
        orders.append(Waive(power))
    return orders


def free_homes(board: Board, power: str) -> list[str]:
    """Where ``power`` may build: the home centres it owns with no unit in them (any owned,
    empty centre on a map whose units are built anywhere)."""
    return list(free_home_centres(board.tables, board.position, power))


def _build_places(board: Board, centre: str) -> list[tuple[UnitKind, str]]:
    """The (kind, location) pairs a unit may be built on in ``centre``."""
    places: list[tuple[UnitKind, str]] = []
    if board.variant.provinces[centre].terrain is not Terrain.SEA:
        places.append((UnitKind.ARMY, centre))
    places += [(UnitKind.FLEET, loc) for loc in sorted(board.tables.fleet_locations) if province_of(loc) == centre]
    return places
