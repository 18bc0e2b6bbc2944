"""Empires and Coalitions' special rules, DATC style: the minor powers' claimed third home
centre, Gibraltar (a convoying archipelago that armies reach from Andalusia only), the
crossings, Britain's fleet in Gibraltar."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import board, parse_errors, play, position, result_of

CLAIMS = {"DENMARK": "SWE", "SICILY": "PAP", "SPAIN": "POR", "OTTOMAN": "EGY"}


@pytest.fixture(scope="module")
def eac():
    return maps.load("empires_and_coalitions")


def test_opening_position(eac):
    start = api.initial_position(eac)
    assert str(start.phase) == "S1800M"
    assert sorted(str(u) for u in start.units if u.power == "BRITAIN") == ["A HAN", "F EDI", "F GIB", "F LON"]
    assert "GIB" not in eac.supply_centers
    for power, claimed in CLAIMS.items():
        assert len(start.centers[power]) == 2 and claimed not in start.centers[power]
        assert claimed in eac.power(power).home_centers


@pytest.mark.parametrize("power, claimed", sorted(CLAIMS.items()))
def test_a_minor_power_builds_in_its_claimed_centre_once_taken(eac, power, claimed):
    homes = [c for c in eac.power(power).home_centers if c != claimed]
    where = position(eac, "W1800A", {power: []}, {power: [*homes, claimed]})
    outcome = play(eac, where, {power: [f"BUILD A {claimed}"]})
    assert result_of(outcome, f"A {claimed} B").result == "builds"
    not_taken = position(eac, "W1800A", {power: []}, {power: homes + ["ALG"]})
    assert parse_errors(eac, not_taken, power, [f"BUILD A {claimed}"])  # not owned: no build there


def test_britain_cannot_build_in_gibraltar(eac):
    where = position(eac, "W1800A", {"BRITAIN": []}, {"BRITAIN": ["EDI", "LON"]})
    assert parse_errors(eac, where, "BRITAIN", ["BUILD F GIB"])


def test_armies_reach_gibraltar_from_andalusia_not_from_morocco(eac):
    where = position(eac, "S1801M", {"SPAIN": ["A AND"], "FRANCE": ["A MOR"]})
    outcome = play(eac, where, {"SPAIN": ["A AND - GIB"]})
    assert "SPAIN A GIB" in board(outcome)
    assert parse_errors(eac, where, "FRANCE", ["A MOR - GIB"])


def test_a_fleet_in_gibraltar_convoys(eac):
    where = position(eac, "S1801M", {"FRANCE": ["A MOR", "F GIB"]})
    outcome = play(eac, where, {"FRANCE": ["A MOR - AND", "F GIB C A MOR - AND"]})
    assert result_of(outcome, "A MOR - AND").result == "moves"  # by convoy: the two do not border


@pytest.mark.parametrize("unit, target", [
    ("A PAL", "NAP"), ("F PAL", "NAP"), ("A IRE", "EDI"), ("F IRE", "EDI"), ("A COP", "SWE"), ("F COP", "SWE"),
])
def test_the_crossings(eac, unit, target):
    where = position(eac, "S1801M", {"AUSTRIA": [unit]})
    outcome = play(eac, where, {"AUSTRIA": [f"{unit} - {target}"]})
    assert result_of(outcome, f"{unit} - {target}").result == "moves"


def test_split_coasts(eac):
    assert {a for a, p in eac.provinces.items() if p.coasts} == {"AND", "PAP", "SCH", "STP"}
