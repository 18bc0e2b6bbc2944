"""Hundred's special rules, DATC style: its calendar, the London-Calais crossing, builds in
any owned centre, France's surplus unit and the split coasts."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import board, play, position, result_of


@pytest.fixture(scope="module")
def hundred():
    return maps.load("hundred")


def test_a_turn_is_five_years_and_builds_follow_the_years_ending_in_0(hundred):
    start = api.initial_position(hundred)
    assert str(start.phase) == "S1425M"
    fall = play(hundred, start, {})
    assert str(fall.position.phase) == "F1430M"
    winter = play(hundred, fall.position, {})
    assert str(winter.position.phase) == "W1430A"  # France: five units, four centres
    needed = api.requirements(api.prepare(hundred, winter.position))
    assert set(needed) == {"FRANCE"} and needed["FRANCE"].removals == 1
    spring = play(hundred, winter.position, {"FRANCE": ["REMOVE A PRO"]})
    assert str(spring.position.phase) == "S1435M"
    assert "FRANCE A PRO" not in board(spring)


def test_centres_change_hands_only_after_the_years_ending_in_0(hundred):
    where = position(hundred, "S1435M", {"ENGLAND": ["A CAL"]}, {"ENGLAND": ["CAL"], "BURGUNDY": ["FLA"]})
    spring = play(hundred, where, {"ENGLAND": ["A CAL - FLA"]})
    assert spring.position.centers["BURGUNDY"] == {"FLA"}  # a Spring (1435) takes nothing
    fall = play(hundred, spring.position, {})
    assert str(fall.position.phase) == "W1440A"
    assert fall.position.centers["ENGLAND"] == {"CAL", "FLA"} and not fall.position.centers.get("BURGUNDY")


def test_armies_and_fleets_cross_between_london_and_calais(hundred):
    where = position(hundred, "S1425M", {"ENGLAND": ["A LON", "F CAL"]})
    outcome = play(hundred, where, {"ENGLAND": ["A LON - CAL", "F CAL - LON"]})
    assert result_of(outcome, "A LON - CAL").result == "bounce"  # a swap: adjacent, no convoy
    where = position(hundred, "S1425M", {"ENGLAND": ["A LON"]})
    outcome = play(hundred, where, {"ENGLAND": ["A LON - CAL"]})
    assert result_of(outcome, "A LON - CAL").result == "moves"
    assert hundred.fleet_moves["LON"] >= {"CAL"} and "LON" in hundred.army_moves["CAL"]


def test_builds_in_any_owned_centre(hundred):
    where = position(hundred, "W1430A", {"BURGUNDY": ["A PAR"]}, {"BURGUNDY": ["DIJ", "PAR", "CAN"]})
    outcome = play(hundred, where, {"BURGUNDY": ["BUILD A CAN"]})
    assert result_of(outcome, "A CAN B").result == "builds"
    parsed = api.parse_orders(api.prepare(hundred, where), "BURGUNDY", ["BUILD A ORL"])
    assert parsed.errors  # not owned


def test_split_coasts_of_northumbria_and_aragon(hundred):
    assert hundred.provinces["NOT"].coasts == ("WC", "EC")
    assert hundred.fleet_moves["NOT/WC"] == {"IRI", "SCO", "WAL"}
    assert hundred.fleet_moves["ARA/SC"] == {"CAS", "MED", "TOU"}
    where = position(hundred, "S1425M", {"ENGLAND": ["F IRI"]})
    parsed = api.parse_orders(api.prepare(hundred, where), "ENGLAND", ["F IRI - NOT/EC"])
    assert parsed.errors


def test_the_pale_is_reached_by_fleets_or_by_convoy(hundred):
    assert hundred.army_moves["THP"] == frozenset()
    where = position(hundred, "S1425M", {"ENGLAND": ["A WAL", "F IRI"]})
    outcome = play(hundred, where, {"ENGLAND": ["A WAL - THP", "F IRI C A WAL - THP"]})
    assert "ENGLAND A THP" in board(outcome)


def test_the_dpjudge_abbreviations_are_understood(hundred):
    where = position(hundred, "S1425M", {"ENGLAND": ["A NOM", "F STR"]})
    outcome = play(hundred, where, {"ENGLAND": ["A NMD - BRI", "F DOV - ECH"]})
    assert board(outcome) == {"ENGLAND A BRT", "ENGLAND F ENG"}
