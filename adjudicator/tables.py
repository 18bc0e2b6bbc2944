"""Per-variant lookup tables, computed once per ``Variant`` and shared by the phases.

The engine asks the same geographic questions thousands of times (may this fleet
reach that province, which seas touch this coast); answering them from plain dicts
and frozensets keeps adjudication fast.  The tables are derived data of an
immutable ``Variant``, so memoising them per variant object keeps every engine
function pure (same inputs, same outputs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from adjudicator.memo import per_variant
from adjudicator.types import Terrain, UnitKind, Variant, province_of


@dataclass(frozen=True, eq=False)
class Tables:
    variant: Variant
    sea: frozenset[str]  # sea provinces
    archipelagos: frozenset[str]  # coastal provinces where a fleet may convoy (Province.convoys)
    convoy_seas: frozenset[str]  # where a fleet may convoy: the seas and the archipelagos
    coastal: frozenset[str]  # coast provinces
    army_adj: Mapping[str, frozenset[str]]  # province -> provinces
    fleet_adj: Mapping[str, frozenset[str]]  # location -> locations
    fleet_reach: Mapping[str, frozenset[str]]  # location -> provinces (coast ignored)
    fleet_locations: frozenset[str]  # every location a fleet may stand on
    sea_touching: Mapping[str, frozenset[str]]  # province -> convoy_seas a fleet there borders
    # province -> convoy_seas whose fleets may move into it (its sea_touching but where a
    # move is one-way): where a convoyed army may land
    sea_landing: Mapping[str, frozenset[str]]
    any_adj: Mapping[str, frozenset[str]]  # province -> provinces adjacent by land or sea
    supply_centers: frozenset[str]
    homes: Mapping[str, frozenset[str]]  # power -> home centres
    build_homes: Mapping[str, frozenset[str]]  # power -> the centres it may build in (once owned and empty)
    province_names: Mapping[str, str]  # province -> full name (for tie-breaks)
    prov_of: Mapping[str, str]  # every location (coasts too) -> its province
    # unit kind -> location -> provinces a unit of that kind there could move to without a
    # convoy (coasts ignored): the provinces it may support into, a set lookup per support.
    reach: Mapping[UnitKind, Mapping[str, frozenset[str]]]
    # unit kind -> location -> locations it may move to without a convoy (army_adj or fleet_adj)
    steps: Mapping[UnitKind, Mapping[str, frozenset[str]]]
    power_ordinal: Mapping[str, int]  # power -> its place in variant.powers
    _components: dict[frozenset[str], dict[str, int]] = field(default_factory=dict, repr=False)

    def reachable(self, location: str, is_fleet: bool) -> frozenset[str]:
        """Provinces the unit could move to without a convoy (coasts ignored)."""
        if is_fleet:
            return self.fleet_reach.get(location, frozenset())
        return self.army_adj.get(province_of(location), frozenset())

    def sea_path_exists(self, start: str, end: str, seas: frozenset[str], through: str | None = None) -> bool:
        """Is there a chain of ``seas`` from a sea touching ``start`` to one touching ``end``?

        With ``through``, the chain must visit that sea (a walk, which is enough
        for legality: a convoy order off every possible route is still harmless).
        """
        component = self.sea_components(seas)
        touching = self.sea_touching
        label = component.get  # a sea's group, None for a sea without a fleet (C-level maps below)
        if through is not None:
            wanted = label(through)
            if wanted is None:
                return False
            return wanted in map(label, touching.get(start, ())) and wanted in map(label, self.sea_landing.get(end, ()))
        starts = set(map(label, touching.get(start, ())))
        starts.discard(None)
        return bool(starts) and not starts.isdisjoint(map(label, self.sea_landing.get(end, ())))

    def sea_components(self, seas: frozenset[str]) -> dict[str, int]:
        """Each sea of ``seas`` -> the number of its connected group (within ``seas``)."""
        found = self._components.get(seas)
        if found is not None:
            return found
        found = {}
        touching = self.sea_touching
        for first in seas:
            if first in found:
                continue
            label = len(found)
            found[first] = label
            stack = [first]
            while stack:
                for nxt in touching[stack.pop()]:
                    if nxt in seas and nxt not in found:
                        found[nxt] = label
                        stack.append(nxt)
        if len(self._components) > 512:
            self._components.clear()  # a memo: bounded
        self._components[seas] = found
        return found


@per_variant
def tables_for(variant: Variant) -> Tables:
    """The tables of ``variant`` (memoised: derived from immutable data only)."""
    return _build(variant)


def _build(variant: Variant) -> Tables:
    provinces = variant.provinces
    sea = frozenset(p for p, d in provinces.items() if d.terrain is Terrain.SEA)
    coastal = frozenset(p for p, d in provinces.items() if d.terrain is Terrain.COAST)
    archipelagos = frozenset(p for p, d in provinces.items() if d.convoys)
    convoy_seas = sea | archipelagos
    army_adj = {p: frozenset(variant.army_moves.get(p, ())) for p in provinces}
    fleet_adj = {loc: frozenset(dests) for loc, dests in variant.fleet_moves.items()}
    fleet_reach = {loc: frozenset(province_of(d) for d in dests) for loc, dests in fleet_adj.items()}
    sea_touching: dict[str, set[str]] = {p: set() for p in provinces}
    sea_landing: dict[str, set[str]] = {p: set() for p in provinces}
    for loc, dests in fleet_adj.items():
        here = province_of(loc)
        for dest in dests:
            there = province_of(dest)
            if there in convoy_seas:
                sea_touching[here].add(there)
            if here in convoy_seas:
                sea_landing[there].add(here)
    homes = {power.name: frozenset(power.home_centers) for power in variant.powers}
    every_home = frozenset().union(*homes.values())
    any_adj: dict[str, set[str]] = {p: set(army_adj[p]) for p in provinces}
    for loc, reach in fleet_reach.items():
        any_adj[province_of(loc)].update(reach)
    return Tables(
        variant=variant,
        sea=sea,
        archipelagos=archipelagos,
        convoy_seas=convoy_seas,
        coastal=coastal,
        army_adj=army_adj,
        fleet_adj=fleet_adj,
        fleet_reach=fleet_reach,
        fleet_locations=frozenset(loc for loc, dests in fleet_adj.items() if dests),
        sea_touching={p: frozenset(s) for p, s in sea_touching.items()},
        sea_landing={p: frozenset(s) for p, s in sea_landing.items()},
        any_adj={p: frozenset(s) for p, s in any_adj.items()},
        supply_centers=variant.supply_centers,
        homes=homes,
        build_homes=({power: variant.supply_centers for power in homes} if variant.builds_anywhere
                     else {power: every_home for power in homes} if variant.builds_any_home else homes),
        province_names={p: d.name for p, d in provinces.items()},
        prov_of={**{p: p for p in provinces}, **{loc: province_of(loc) for loc in fleet_adj}},
        reach={UnitKind.ARMY: army_adj, UnitKind.FLEET: fleet_reach},
        steps={UnitKind.ARMY: army_adj, UnitKind.FLEET: fleet_adj},
        power_ordinal={power.name: number for number, power in enumerate(variant.powers)},
    )
