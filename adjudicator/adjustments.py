"""The adjustment (winter) phase: builds, waives and removals, counted per power."""

from __future__ import annotations

from operator import attrgetter, countOf
from typing import Mapping, Sequence

from adjudicator.civil_disorder import disorder_removals
from adjudicator.orders import Build, Order, Remove, Waive
from adjudicator.tables import Tables
from adjudicator.types import NEUTRAL, Position, Unit, province_of
from adjudicator.values import value


_location = attrgetter("location")
_power = attrgetter("power")


@value()
class AdjustmentOutcome:
    power: str
    order: Order
    result: str  # "builds", "removes", "waived" or "void"
    reason: str | None = None


def free_home_centres(tables: Tables, position: Position, power: str) -> tuple[str, ...]:
    """Where ``power`` may build: its owned, unoccupied home centres (any owned, unoccupied
    centre on a map with ``builds_anywhere``)."""
    owned = position.centers.get(power, frozenset())
    free = owned if tables.variant.builds_anywhere else tables.build_homes.get(power, frozenset()) & owned
    if free:
        free = free.difference(map(tables.prov_of.__getitem__, map(_location, position.units)))
    return tuple(sorted(free))


def balance(position: Position, power: str) -> int:
    """Centres owned minus units: > 0 builds allowed, < 0 removals required."""
    return len(position.centers.get(power, ())) - countOf(map(_power, position.units), power)  # C-level count


def balances(position: Position) -> dict[str, int]:
    """``balance`` of every power with centres or units, counted in one pass over the units."""
    holders = list(map(_power, position.units))  # C-level counts below (a Counter counts in Python)
    found = {power: len(owned) - holders.count(power) for power, owned in position.centers.items()}
    for power in set(holders).difference(found, (NEUTRAL,)):  # neutral armies are never built or removed
        found[power] = -holders.count(power)
    return found


def builds_allowed(tables: Tables, position: Position, power: str) -> int:
    return max(0, min(balance(position, power), len(free_home_centres(tables, position, power))))


def resolve_adjustments(
    tables: Tables, position: Position, orders: Mapping[str, Sequence[Order]],
    surpluses: Mapping[str, int] | None = None, owned_distance: bool = False,
) -> tuple[tuple[AdjustmentOutcome, ...], tuple[Unit, ...]]:
    """Apply the (individually legal) adjustment orders in the order given.

    Returns the outcomes and the units on the board afterwards.  Builds beyond the
    allowance or into an already used centre are void; missing removals are made
    by the civil-disorder rule (``owned_distance``: the 2023 rulebook's, rule
    ``CD_REMOVE_2023``).  ``surpluses`` (``balances(position)``) may be passed by a caller
    that has it.
    """
    outcomes: list[AdjustmentOutcome] = []
    removed: set[str] = set()
    built: list[Unit] = []
    if surpluses is None:
        surpluses = balances(position)
    for power in sorted(set(orders).union(surpluses)):
        surplus = surpluses.get(power, 0)
        used_sites: set[str] = set()
        for order in orders.get(power, ()):
            if isinstance(order, Build):
                site = province_of(order.location)
                if surplus <= 0:
                    outcomes.append(AdjustmentOutcome(power, order, "void", f"{power} has no builds left"))
                elif site in used_sites:
                    outcomes.append(AdjustmentOutcome(power, order, "void", f"{site} already has a build this phase"))
                else:
                    surplus -= 1
                    used_sites.add(site)
                    built.append(Unit(order.location, order.kind, power))
                    outcomes.append(AdjustmentOutcome(power, order, "builds"))
            elif isinstance(order, Waive):
                if surplus <= 0:
                    outcomes.append(AdjustmentOutcome(power, order, "void", f"{power} has no builds left"))
                else:
                    surplus -= 1
                    outcomes.append(AdjustmentOutcome(power, order, "waived"))
            elif isinstance(order, Remove):
                province = order.unit.province
                if surplus >= 0:
                    outcomes.append(AdjustmentOutcome(power, order, "void", f"{power} has no removals left"))
                elif province in removed:
                    outcomes.append(AdjustmentOutcome(power, order, "void", f"{order.unit} is already removed"))
                else:
                    surplus += 1
                    removed.add(province)
                    outcomes.append(AdjustmentOutcome(power, order, "removes"))
            else:
                outcomes.append(AdjustmentOutcome(power, order, "void", "not an adjustment order"))
        if surplus < 0:
            remaining = [u for u in position.units if u.power == power and u.province not in removed]
            owned = position.centers.get(power, frozenset()) if owned_distance else None
            for unit in disorder_removals(tables, remaining, -surplus, owned):
                removed.add(unit.province)
                outcomes.append(AdjustmentOutcome(power, Remove(unit), "removes", "civil disorder"))
    prov_of = tables.prov_of
    kept = [u for u in position.units if prov_of[u.location] not in removed] if removed else list(position.units)
    units = tuple(sorted(kept + built, key=_location))
    return tuple(outcomes), units
