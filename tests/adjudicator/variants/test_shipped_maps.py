"""Every shipped map: the checks of the standard map, and a random game through the CLI."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import maps
from adjudicator.types import PhaseKind, Terrain, UnitKind, province_of
from tests.adjudicator.variants.randomgame import BatchAdjudicator, play, start_document

# name -> (provinces, supply centres, powers, victory, first phase)
FACTS = {
    "standard": (75, 34, 7, 18, "S1901M"),
    "fleet_rome": (75, 34, 7, 18, "S1901M"),
    "pure": (7, 7, 7, 4, "S1901M"),
    "chaos": (75, 34, 34, 18, "W1900A"),
    "hundred": (41, 17, 3, 9, "S1425M"),
    "ancient_mediterranean": (79, 34, 5, 18, "S1M"),
    "cold_war": (90, 27, 2, 17, "S1960M"),
    "youngstown_redux": (183, 81, 10, 28, "S1901M"),
    "modern": (141, 64, 10, 33, "S1995M"),
    "north_sea_wars": (31, 15, 4, 8, "S0M"),
    "empires_and_coalitions": (96, 44, 9, 23, "S1800M"),
    "twenty_twenty": (215, 98, 20, 49, "S2001M"),
    "year_1908": (87, 40, 7, 18, "S1908M"),
    "canton": (81, 36, 7, 19, "S1901M"),
    "classical_crowded": (75, 35, 11, 18, "S1901M"),
    "western_world_901": (157, 64, 9, 33, "S901M"),
}

SHIPPED = maps.available()
ONE_WAY = {"north_sea_wars": {("CNS", "GRA"), ("CNS", "IRO"), ("CNS", "WOO")}}  # the fleet moves with no way back


def test_every_named_variant_is_shipped_and_documented():
    assert set(FACTS) == set(SHIPPED)
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    for name in SHIPPED:
        assert f"| `{name}` |" in readme, f"{name} is missing from README.md's Maps table"


@pytest.mark.parametrize("name", sorted(FACTS))
def test_map_facts(name):
    variant = maps.load(name)
    provinces, centres, powers, victory, first = FACTS[name]
    assert (len(variant.provinces), len(variant.supply_centers), len(variant.powers), variant.victory_centers,
            str(variant.start_phase)) == (provinces, centres, powers, victory, first)
    assert variant.name == name and variant.title


@pytest.mark.parametrize("name", SHIPPED)
def test_map_is_consistent(name):
    """What the loader guarantees, checked again from the loaded value: both-way
    adjacencies that respect terrain and coasts, home centres that are centres, starting
    units on their power's side of the board, distinct letters."""
    variant = maps.load(name)
    provinces = variant.provinces
    for province, neighbours in variant.army_moves.items():
        for other in neighbours:
            assert province in variant.army_moves[other], (province, other)
            assert provinces[other].terrain is not Terrain.SEA
    for location, neighbours in variant.fleet_moves.items():
        assert not neighbours or provinces[province_of(location)].terrain is not Terrain.LAND
        for other in neighbours:
            assert location in variant.fleet_moves[other] or (location, other) in ONE_WAY.get(name, ()), (location, other)
            assert provinces[province_of(other)].terrain is not Terrain.LAND
            assert not provinces[province_of(other)].coasts or "/" in other, other
    for abbrev, province in provinces.items():
        if province.coasts:
            assert abbrev not in variant.fleet_moves
            assert all(f"{abbrev}/{c}" in variant.fleet_moves for c in province.coasts)
        assert variant.army_moves[abbrev] or any(
            variant.fleet_moves.get(loc) for loc in [abbrev, *(f"{abbrev}/{c}" for c in province.coasts)]
        ), f"{abbrev} is cut off"
    homes = [c for p in variant.powers for c in p.home_centers]
    assert len(homes) == len(set(homes)) and set(homes) <= variant.supply_centers
    letters = [p.letter for p in variant.powers]
    assert len(set(letters)) == len(letters)
    starting = [u for p in variant.powers for u in p.starting_units]
    assert len({u.province for u in starting}) == len(starting)
    for power in variant.powers:
        for unit in power.starting_units:
            assert unit.power == power.name
            if unit.kind is UnitKind.FLEET:
                assert variant.fleet_moves.get(unit.location)
            else:
                assert provinces[unit.province].terrain is not Terrain.SEA and "/" not in unit.location
    assert variant.victory_centers <= len(variant.supply_centers)
    assert variant.start_phase.kind is not PhaseKind.RETREAT
    assert Counter(variant.aliases.values()).keys() <= set(provinces)


@pytest.fixture(scope="module")
def engine():
    process = BatchAdjudicator()
    yield process
    errors = process.close()
    assert not errors, errors


@pytest.mark.parametrize("name", SHIPPED)
def test_a_random_game_through_the_cli(engine, name):
    variant = maps.load(name)
    log = play(engine, variant, start_document(variant), years=8, seed=15)
    assert log.phases[0] == str(variant.start_phase)
    assert log.results > 0
    movements = [phase for phase in log.phases if phase.endswith("M")]
    assert log.winner or len(movements) == 2 * 8, log.phases
