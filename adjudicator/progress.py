"""Phase progression: which phase comes next, centre ownership, victory, requirements."""

from __future__ import annotations

from typing import Mapping, Sequence

from adjudicator.adjustments import balance, builds_allowed
from adjudicator.results import Requirement
from adjudicator.tables import Tables
from adjudicator.types import Dislodged, Phase, PhaseKind, Position, Season, Unit, province_of


def updated_centers(tables: Tables, centers: Mapping[str, frozenset[str]], units: Sequence[Unit]) -> dict[str, frozenset[str]]:
    """Ownership after a Fall: an occupied centre belongs to the occupier, others keep their owner."""
    supply = tables.supply_centers
    prov_of = tables.prov_of
    gained: dict[str, set[str]] = {}  # power -> centres it takes over (few: most stand on their own)
    taken: set[str] = set()
    for unit in units:
        province = prov_of.get(unit.location) or province_of(unit.location)
        if province in supply and province not in centers.get(unit.power, ()):
            gained.setdefault(unit.power, set()).add(province)
            taken.add(province)
    if not taken:
        return dict(sorted(centers.items()))
    result = {power: owned if owned.isdisjoint(taken) else owned.difference(taken) for power, owned in centers.items()}
    for power, won in gained.items():
        result[power] = result.get(power, frozenset()).union(won)
    return dict(sorted(result.items()))


def winner(tables: Tables, centers: Mapping[str, frozenset[str]]) -> str | None:
    """The power holding at least the map's victory count of centres, if any."""
    best = max(centers.items(), key=lambda item: len(item[1]), default=None)
    if best is not None and len(best[1]) >= tables.variant.victory_centers:
        return best[0]
    return None


def needs_adjustment(tables: Tables, position: Position) -> bool:
    """Does any power have to remove a unit, or may it build somewhere?"""
    units: dict[str, int] = {}
    occupied = set()
    prov_of = tables.prov_of  # a dict lookup: province_of parses the text
    for unit in position.units:
        units[unit.power] = units.get(unit.power, 0) + 1
        occupied.add(prov_of.get(unit.location) or province_of(unit.location))
    for power in set(position.centers) | set(units):
        owned = position.centers.get(power, frozenset())
        surplus = len(owned) - units.get(power, 0)
        if surplus < 0:
            return True
        if surplus > 0 and any(c in owned and c not in occupied for c in tables.homes.get(power, ())):
            return True
    return False


def after_season(tables: Tables, phase: Phase, units: tuple[Unit, ...], centers: Mapping[str, frozenset[str]]) -> Position:
    """The position after a season's movement (and retreats) are over, skipping an idle winter."""
    if phase.season is Season.SPRING:
        return Position(Phase(phase.year, Season.FALL, PhaseKind.MOVEMENT), units, centers)
    new_centers = updated_centers(tables, centers, units)
    winter = Position(Phase(phase.year, Season.WINTER, PhaseKind.ADJUSTMENT), units, new_centers)
    if needs_adjustment(tables, winter):
        return winter
    return next_spring(winter)


def next_spring(position: Position) -> Position:
    return Position(Phase(position.phase.year + 1, Season.SPRING, PhaseKind.MOVEMENT), position.units, position.centers)


def after_movement(
    tables: Tables, phase: Phase, units: tuple[Unit, ...], centers: Mapping[str, frozenset[str]], dislodged: tuple[Dislodged, ...]
) -> Position:
    """The next position after a movement phase: a retreat phase only if some unit can retreat."""
    waiting = tuple(d for d in dislodged if d.retreats)
    if waiting:
        return Position(Phase(phase.year, phase.season, PhaseKind.RETREAT), units, centers, waiting)
    return after_season(tables, phase, units, centers)


def requirements(tables: Tables, position: Position) -> dict[str, Requirement]:
    """Who must order what in ``position`` (powers with nothing to order are left out)."""
    kind = position.phase.kind
    needed: dict[str, Requirement] = {}
    if kind is PhaseKind.MOVEMENT:
        for power in sorted({u.power for u in position.units}):
            units = tuple(sorted(u for u in position.units if u.power == power))
            needed[power] = Requirement(power, kind, units)
    elif kind is PhaseKind.RETREAT:
        for power in sorted({d.unit.power for d in position.dislodged}):
            units = tuple(sorted(d.unit for d in position.dislodged if d.unit.power == power))
            needed[power] = Requirement(power, kind, units)
    else:
        for power in sorted(set(position.centers) | {u.power for u in position.units}):
            surplus = balance(position, power)
            if surplus < 0:
                units = tuple(sorted(u for u in position.units if u.power == power))
                needed[power] = Requirement(power, kind, units, removals=-surplus)
            else:
                allowed = builds_allowed(tables, position, power)
                if allowed > 0:
                    needed[power] = Requirement(power, kind, builds=allowed)
    return needed
