"""Classical Crowded's special rules: eleven powers own every centre at the start, Ruhr is
a centre (Benelux's home), the standard board's geography otherwise."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import play, position, result_of


@pytest.fixture(scope="module")
def crowded():
    return maps.load("classical_crowded")


def test_every_centre_is_owned_at_the_start(crowded):
    start = api.initial_position(crowded)
    owned = [c for cs in start.centers.values() for c in cs]
    assert sorted(owned) == sorted(crowded.supply_centers) and len(owned) == 35
    assert len(start.units) == 35 and start.centers["BENELUX"] == {"BEL", "HOL", "RUH"}


def test_the_standard_geography(crowded):
    standard = maps.load("standard")
    assert crowded.army_moves == standard.army_moves and crowded.fleet_moves == standard.fleet_moves
    assert crowded.supply_centers == standard.supply_centers | {"RUH"}


def test_ruhr_changes_hands_and_benelux_builds_there(crowded):
    where = position(crowded, "F1901M", {"GERMANY": ["A MUN", "A KIE"], "BENELUX": ["A HOL"]},
                     {"GERMANY": ["BER", "KIE", "MUN"], "BENELUX": ["BEL", "HOL", "RUH"]})
    outcome = play(crowded, where, {"GERMANY": ["A MUN - RUH", "A KIE S A MUN - RUH"]})
    assert "RUH" in outcome.position.centers["GERMANY"]
    winter = position(crowded, "W1901A", {"BENELUX": ["A HOL"]}, {"BENELUX": ["BEL", "HOL", "RUH"]})
    assert result_of(play(crowded, winter, {"BENELUX": ["BUILD A RUH"]}), "A RUH B").result == "builds"
