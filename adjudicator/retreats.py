"""Retreat options after a movement phase, and the resolution of a retreat phase."""

from __future__ import annotations

from typing import Collection, Mapping, Sequence

from adjudicator.legality import retreat_location
from adjudicator.orders import Disband, Retreat
from adjudicator.resolve import MovementResolution
from adjudicator.tables import Tables
from adjudicator.types import NEUTRAL, Dislodged, Unit, UnitKind, province_of
from adjudicator.values import value


def retreat_options(
    tables: Tables, unit: Unit, occupied: Collection[str], excluded: Collection[str]
) -> tuple[str, ...]:
    """Locations ``unit`` may retreat to: adjacent, not ``occupied``, not ``excluded`` (provinces)."""
    if unit.kind is UnitKind.FLEET:
        candidates: Collection[str] = tables.fleet_adj.get(unit.location, frozenset())
    else:
        candidates = tables.army_adj.get(unit.province, frozenset())
    prov_of = tables.prov_of
    return tuple(sorted([loc for loc in candidates if prov_of[loc] not in occupied and prov_of[loc] not in excluded]))


def dislodged_units(tables: Tables, units: Sequence[Unit], resolution: MovementResolution) -> tuple[Dislodged, ...]:
    """Every unit dislodged in ``resolution``, with its retreats net of all exclusions.

    Excluded: provinces occupied after the moves, provinces left empty by a
    standoff, and the attacker's origin unless the attacker came by convoy.
    """
    occupied = frozenset(resolution.where)
    prov_of = tables.prov_of
    found: list[Dislodged] = []
    for i in sorted(resolution.dislodged):  # by position on the board
        attacker = resolution.dislodged_by[i]
        origin = prov_of.get(units[attacker].location) or units[attacker].province
        excluded = set(resolution.contested)
        if not resolution.convoyed_attack[attacker]:
            excluded.add(origin)
        neutral = units[i].power == NEUTRAL  # a neutral army is disbanded, never retreats
        found.append(Dislodged(units[i], origin, () if neutral else retreat_options(tables, units[i], occupied, excluded)))
    return tuple(found)


@value()
class RetreatOutcome:
    dislodged: Dislodged
    order: Retreat | Disband
    result: str  # "retreats", "disbanded" or "void"
    reason: str | None
    unit: Unit | None  # the unit in its new place, if it retreated


def resolve_retreats(
    dislodged: Sequence[Dislodged], orders: Mapping[str, Retreat | Disband | None]
) -> tuple[RetreatOutcome, ...]:
    """Resolve a retreat phase.  ``orders`` maps a dislodged unit's province to its legal order.

    Units without a (legal) order disband; two or more retreats into one province all disband.
    """
    wanted: dict[str, str] = {}  # dislodged province -> retreat location
    for entry in dislodged:
        order = orders.get(entry.unit.province)
        if isinstance(order, Retreat):
            location = retreat_location(entry, order.destination)
            if location is not None:
                wanted[entry.unit.province] = location
    arrivals: dict[str, int] = {}
    for location in wanted.values():
        arrivals[province_of(location)] = arrivals.get(province_of(location), 0) + 1
    outcomes: list[RetreatOutcome] = []
    for entry in dislodged:
        order = orders.get(entry.unit.province)
        location = wanted.get(entry.unit.province)
        if order is None:
            outcomes.append(RetreatOutcome(entry, Disband(entry.unit), "disbanded", None, None))
        elif isinstance(order, Disband):
            outcomes.append(RetreatOutcome(entry, order, "disbanded", None, None))
        elif location is None:
            outcomes.append(RetreatOutcome(entry, order, "void", f"{order.destination} is not a retreat of {entry.unit}; the unit is disbanded", None))
        elif arrivals[province_of(location)] > 1:
            reason = f"another unit also retreated to {province_of(location)}; both are disbanded"
            outcomes.append(RetreatOutcome(entry, order, "disbanded", reason, None))
        else:
            moved = Unit(location, entry.unit.kind, entry.unit.power)
            outcomes.append(RetreatOutcome(entry, order, "retreats", None, moved))
    return tuple(outcomes)
