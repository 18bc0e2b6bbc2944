"""Modern Diplomacy's special geography, DATC style: the canals of Cairo, Hamburg and
Istanbul, the Rostov-Volga canal to the Caspian Sea, and Iran's two coasts."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import board, parse_errors, play, position, result_of


@pytest.fixture(scope="module")
def modern():
    return maps.load("modern")


def test_opening_position(modern):
    start = api.initial_position(modern)
    assert str(start.phase) == "S1995M" and len(start.units) == 38
    assert sorted(str(u) for u in start.units if u.power == "RUSSIA") == ["A GOR", "A MOS", "A MUR", "F ROS", "F STP"]


@pytest.mark.parametrize("unit, target", [
    ("F CAI", "RED"), ("F CAI", "EME"),  # Suez
    ("F HAM", "BHM"), ("F HAM", "HEL"),  # the Kiel canal's successor
    ("F IST", "WBS"), ("F IST", "AEG"),  # the Bosporus
    ("F ROS", "VOL"), ("F VOL", "CAS"), ("F ROS", "EBS"),  # Don-Volga canal
    ("F CAS", "IRN/NC"), ("F PER", "IRN/SC"), ("F ARA", "IRN/SC"),
])
def test_canals_and_iran(modern, unit, target):
    where = position(modern, "S1996M", {"RUSSIA": [unit]})
    outcome = play(modern, where, {"RUSSIA": [f"{unit} - {target}"]})
    assert result_of(outcome, f"{unit} - {target}").result == "moves"


def test_iran_coasts_are_apart(modern):
    where = position(modern, "S1996M", {"TURKEY": ["F IRN/NC"]})
    assert parse_errors(modern, where, "TURKEY", ["F IRN/NC - PER"])
    outcome = play(modern, position(modern, "S1996M", {"TURKEY": ["A IRN"]}), {"TURKEY": ["A IRN - AZE"]})
    assert board(outcome) == {"TURKEY A AZE"}


def test_the_caspian_is_reached_only_through_the_volga(modern):
    assert {loc.split("/")[0] for loc in modern.fleet_moves["CAS"]} == {"AZE", "CAU", "IRN", "KAZ", "VOL"}
    where = position(modern, "S1996M", {"RUSSIA": ["F EBS"]})
    assert parse_errors(modern, where, "RUSSIA", ["F EBS - VOL"])
