"""Phase progression: which phase comes next, centre ownership, victory, requirements."""

from __future__ import annotations

from types import MappingProxyType
from operator import attrgetter
from typing import Mapping, Sequence

from adjudicator.adjustments import balance, builds_allowed
from adjudicator.results import Requirement
from adjudicator.tables import Tables
from adjudicator.types import NEUTRAL, Dislodged, Phase, PhaseKind, Position, Season, Unit, UnitKind, province_of


_location = attrgetter("location")
_power = attrgetter("power")


def occupants(tables: Tables, units: Sequence[Unit]) -> dict[str, str]:
    """Province -> the power of the unit standing there."""
    prov_of = tables.prov_of  # a dict lookup: province_of parses the text
    try:
        return dict(zip(map(prov_of.__getitem__, map(_location, units)), map(_power, units)))  # C-level maps
    except KeyError:  # a location the map does not know
        return {prov_of.get(unit.location) or province_of(unit.location): unit.power for unit in units}


def updated_centers(tables: Tables, centers: Mapping[str, frozenset[str]], occupant: Mapping[str, str]) -> Mapping[str, frozenset[str]]:
    """Ownership after a Fall: an occupied centre belongs to the occupier, others keep their owner.
    ``occupant``: province -> power of the unit there (``occupants``).  Read-only, by power, as
    a ``Position`` keeps it (so the position takes it as it is)."""
    gained: dict[str, set[str]] = {}  # power -> centres it takes over (few: most stand on their own)
    owned_by = dict(centers)  # plain dict lookups below, not through a mapping proxy
    nothing: frozenset[str] = frozenset()
    for province in tables.supply_centers.intersection(occupant):
        power = occupant[province]
        if power != NEUTRAL and province not in owned_by.get(power, nothing):
            gained.setdefault(power, set()).add(province)
    if not gained:
        return MappingProxyType(dict(sorted(owned_by.items())))
    taken = set().union(*gained.values())
    result = {power: owned if owned.isdisjoint(taken) else owned.difference(taken) for power, owned in centers.items()}
    for power, won in gained.items():
        result[power] = result.get(power, frozenset()).union(won)
    return MappingProxyType(dict(sorted(result.items())))


def winner(tables: Tables, centers: Mapping[str, frozenset[str]], year_ended: int | None = None) -> str | None:
    """The power holding at least the map's victory count of centres, if any.  On a map
    where several powers may reach the count in the same year, the one with the most
    wins, and a tie at the top is no win (the game goes on: Youngstown Redux).  On a map
    with ``lead_until``, when the phase played ended the year ``year_ended``, a power
    leading every other by ``lead_until - year_ended`` centres (at least one) wins too."""
    needed = tables.variant.victory_centers
    lead_until = tables.variant.lead_until if year_ended is not None else None
    if not centers or (max(map(len, centers.values())) < needed and lead_until is None):
        return None  # nearly always: no power is that big
    counts = sorted(((len(owned), power) for power, owned in centers.items()), reverse=True)
    second = counts[1][0] if len(counts) > 1 else 0
    if second == counts[0][0]:
        return None
    if counts[0][0] >= needed:
        return counts[0][1]
    assert lead_until is not None and year_ended is not None
    return counts[0][1] if counts[0][0] - second >= max(1, lead_until - year_ended) else None


def needs_adjustment(tables: Tables, centers: Mapping[str, frozenset[str]], occupant: Mapping[str, str]) -> bool:
    """Does any power have to remove a unit, or may it build somewhere?  ``occupant`` as for
    ``updated_centers`` (one unit per province: its values count each power's units).
    Stops at the first such power: after most Falls the first power whose centres changed."""
    holders = [power for power in occupant.values() if power != NEUTRAL]
    homes = tables.build_homes
    anywhere = tables.variant.builds_anywhere
    for power, owned in centers.items():
        surplus = len(owned) - holders.count(power)  # a C-level count
        if surplus < 0:
            return True
        if surplus > 0 and (owned if anywhere else owned.intersection(homes.get(power, ()))).difference(occupant):
            return True  # a free centre it may build in: it builds
    return not set(holders).issubset(centers)  # units of a power without centres: removals


def after_season(
    tables: Tables, phase: Phase, units: tuple[Unit, ...], centers: Mapping[str, frozenset[str]],
    occupant: Mapping[str, str] | None = None,
) -> Position:
    """The position after a season's movement (and retreats) are over, skipping an idle winter.
    ``occupant`` (``occupants(tables, units)``) may be passed by a caller that has it."""
    if phase.season is Season.SPRING:
        return Position(tables.variant.fall_after(phase), units, centers)
    if occupant is None:
        occupant = occupants(tables, units)
    new_centers = updated_centers(tables, centers, occupant)
    rebuilt = neutral_rebuilds(tables, occupant, new_centers)
    if rebuilt:
        units = tuple(sorted([*units, *rebuilt]))
        occupant = {**occupant, **{u.location: NEUTRAL for u in rebuilt}}
    winter = Position(Phase(phase.year, Season.WINTER, PhaseKind.ADJUSTMENT), units, new_centers)
    if needs_adjustment(tables, new_centers, occupant):
        return winter
    return next_spring(winter, tables)


def neutral_rebuilds(tables: Tables, occupant: Mapping[str, str], centers: Mapping[str, frozenset[str]]) -> tuple[Unit, ...]:
    """The neutral armies that come back after a Fall: one in each neutral centre that is
    empty and that no power has taken (the rules say "during the adjustments"; made here,
    they stand in the Winter position, which the adjustments cannot change for them)."""
    empty = tables.variant.neutral_centres.difference(occupant, *centers.values())
    return tuple(Unit(c, UnitKind.ARMY, NEUTRAL) for c in sorted(empty))


def next_spring(position: Position, tables: Tables | None = None) -> Position:
    """The Spring after ``position``'s Fall or Winter: the next year, or as the map's calendar
    says (``tables``; without them the standard calendar)."""
    if tables is None:
        phase = Phase(position.phase.year + 1, Season.SPRING, PhaseKind.MOVEMENT)
    else:
        phase = tables.variant.spring_after(position.phase)
    return Position(phase, position.units, position.centers)


def after_movement(
    tables: Tables, phase: Phase, units: tuple[Unit, ...], centers: Mapping[str, frozenset[str]],
    dislodged: tuple[Dislodged, ...], occupant: Mapping[str, str] | None = None,
) -> Position:
    """The next position after a movement phase: a retreat phase only if some unit can retreat."""
    waiting = tuple([d for d in dislodged if d.retreats]) if dislodged else ()
    if waiting:
        return Position(Phase(phase.year, phase.season, PhaseKind.RETREAT), units, centers, waiting)
    return after_season(tables, phase, units, centers, occupant)


def requirements(tables: Tables, position: Position) -> dict[str, Requirement]:
    """Who must order what in ``position`` (powers with nothing to order are left out)."""
    kind = position.phase.kind
    needed: dict[str, Requirement] = {}
    if kind is PhaseKind.MOVEMENT:
        for power in sorted({u.power for u in position.units} - {NEUTRAL}):
            units = tuple(sorted(u for u in position.units if u.power == power))
            needed[power] = Requirement(power, kind, units)
    elif kind is PhaseKind.RETREAT:
        for power in sorted({d.unit.power for d in position.dislodged}):
            units = tuple(sorted(d.unit for d in position.dislodged if d.unit.power == power))
            needed[power] = Requirement(power, kind, units)
    else:
        for power in sorted((set(position.centers) | {u.power for u in position.units}) - {NEUTRAL}):
            surplus = balance(position, power)
            if surplus < 0:
                units = tuple(sorted(u for u in position.units if u.power == power))
                needed[power] = Requirement(power, kind, units, removals=-surplus)
            else:
                allowed = builds_allowed(tables, position, power)
                if allowed > 0:
                    needed[power] = Requirement(power, kind, builds=allowed)
    return needed
