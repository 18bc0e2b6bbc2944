"""Cold War's special geography, DATC style: the Indonesian bridges, the canals of Panama,
Egypt and Istanbul, Denmark and Sweden between the North Sea and the Baltic."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import board, parse_errors, play, position, result_of


@pytest.fixture(scope="module")
def cold_war():
    return maps.load("cold_war")


def test_opening_position(cold_war):
    start = api.initial_position(cold_war)
    assert str(start.phase) == "S1960M"
    assert sorted(str(u) for u in start.units if u.power == "USSR") == [
        "A MOS", "A SHA", "A VLA", "F ALB", "F HAV", "F LEN/SC"]
    assert start.centers["NATO"] == {"AUS", "IST", "LON", "LOS", "NYK", "PAR"}


@pytest.mark.parametrize("unit, target", [
    ("A INS", "AUS"), ("F INS", "AUS"), ("A INS", "PHI"), ("F PHI", "INS"),  # the bridges
    ("F IST", "BLA"), ("F IST", "EME"),  # Istanbul
    ("F EGY", "RED"), ("F EGY", "EME"),  # Suez
    ("F PAN", "CAR"), ("F PAN", "EPA"),  # Panama
    ("F NTS", "DEN"), ("F DEN", "BAL"), ("A DEN", "SWE"), ("F SWE", "DEN"),
])
def test_bridges_canals_and_the_danish_straits(cold_war, unit, target):
    where = position(cold_war, "S1961M", {"NATO": [unit]})
    outcome = play(cold_war, where, {"NATO": [f"{unit} - {target}"]})
    assert result_of(outcome, f"{unit} - {target}").result == "moves"


def test_the_north_sea_does_not_touch_the_baltic(cold_war):
    where = position(cold_war, "S1961M", {"NATO": ["F NTS"]})
    assert parse_errors(cold_war, where, "NATO", ["F NTS - BAL"])


def test_fleets_convoy_only_at_sea(cold_war):
    where = position(cold_war, "S1961M", {"NATO": ["A WGE", "F DEN"]})
    assert parse_errors(cold_war, where, "NATO", ["F DEN C A WGE - SWE"])
    where = position(cold_war, "S1961M", {"NATO": ["A WGE", "F NTS"]})
    outcome = play(cold_war, where, {"NATO": ["A WGE - SWE", "F NTS C A WGE - SWE"]})
    assert "NATO A SWE" in board(outcome)


def test_split_coasts(cold_war):
    assert {a for a, p in cold_war.provinces.items() if p.coasts} == {"CEN", "COL", "LEN", "MEX", "NKO", "PAR", "WCA"}
    where = position(cold_war, "S1961M", {"NATO": ["F WME"]})
    outcome = play(cold_war, where, {"NATO": ["F WME - PAR/SC"]})
    assert "NATO F PAR/SC" in board(outcome)
    assert parse_errors(cold_war, where, "NATO", ["F WME - PAR/NC"])
