"""Our variant maps against the peer engine's own (the diplomacy package, a test-only
peer): every army and fleet adjacency, the supply centres, home centres and starting
units.  Their files were written independently of ours, so agreement catches typing
mistakes that the loader's checks (both-way adjacencies) cannot."""

from __future__ import annotations

import pytest

import maps

diplomacy_map = pytest.importorskip("diplomacy.engine.map")

# our map -> (their map, their abbreviation -> ours where they differ)
PEERS = {
    "standard": ("standard", {}),
    "pure": ("pure", {}),
    "fleet_rome": ("standard_fleet_rome", {}),
    "ancient_mediterranean": ("ancmed", {"SIN": "SII", "THB": "THE", "TYN": "TYS"}),
    "modern": ("modern", {"ADL": "AND"}),
}


def _ours(location: str, renames: dict[str, str]) -> str:
    province, slash, coast = location.upper().partition("/")
    return renames.get(province, province) + slash + coast


@pytest.fixture(scope="module", params=sorted(PEERS))
def pair(request):
    name = request.param
    theirs, renames = PEERS[name]
    return maps.load(name), diplomacy_map.Map(theirs), renames


def test_same_provinces_and_centres(pair):
    variant, peer, renames = pair
    passable = [loc for loc in peer.locs if peer.area_type(loc) != "SHUT"]  # Switzerland
    assert {_ours(loc, renames).split("/")[0] for loc in passable} == set(variant.provinces)
    assert {_ours(c, renames) for c in peer.scs} == variant.supply_centers


def test_same_adjacencies(pair):
    variant, peer, renames = pair
    back = {ours: theirs for theirs, ours in renames.items()}

    def theirs(location: str) -> str:
        province, slash, coast = location.partition("/")
        return back.get(province, province) + slash + coast

    land = [p for p, d in variant.provinces.items() if d.terrain.value != "sea"]
    for a in land:
        for b in land:
            if a != b:
                assert (b in variant.army_moves[a]) == bool(peer.abuts("A", theirs(a), "-", theirs(b))), ("A", a, b)
    fleet = [loc for loc, moves in variant.fleet_moves.items() if moves]
    for a in fleet:
        for b in fleet:
            if a.split("/")[0] != b.split("/")[0]:
                assert (b in variant.fleet_moves[a]) == bool(peer.abuts("F", theirs(a), "-", theirs(b))), ("F", a, b)


def test_same_powers_homes_and_units(pair):
    variant, peer, renames = pair
    ours = {p.name: ({*p.home_centers}, {str(u) for u in p.starting_units}) for p in variant.powers}
    peers = {power: ({_ours(c, renames) for c in peer.homes[power]},
                     {f"{u.split()[0]} {_ours(u.split()[1], renames)}" for u in peer.units.get(power, [])})
             for power in peer.powers}
    if variant.name == "modern":  # the published rules start Russia with an army in Murmansk; the peer's file has a fleet
        peers["RUSSIA"][1].symmetric_difference_update({"F MUR", "A MUR"})
    assert ours == peers
