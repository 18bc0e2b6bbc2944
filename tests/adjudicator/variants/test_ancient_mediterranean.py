"""The Ancient Mediterranean's special geography, DATC style: the Baleares archipelago,
the canals (Athens-Sparta, Byzantium, the Sicilian straits, the Nile) and the four-way
junctions."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import board, parse_errors, play, position, result_of


@pytest.fixture(scope="module")
def ancient():
    return maps.load("ancient_mediterranean")


def test_opening_position(ancient):
    start = api.initial_position(ancient)
    assert str(start.phase) == "S1M"
    assert sorted(f"{u.power[:2]} {u}" for u in start.units if u.power == "ROME") == ["RO A RAV", "RO A ROM", "RO F NEA"]
    assert len(start.units) == 15


def test_armies_reach_baleares_only_by_convoy(ancient):
    where = position(ancient, "S2M", {"ROME": ["A SAG"]})
    assert parse_errors(ancient, where, "ROME", ["A SAG - BAL"])  # no land route, no fleet
    where = position(ancient, "S2M", {"ROME": ["A SAG", "F BER"]})
    outcome = play(ancient, where, {"ROME": ["A SAG - BAL", "F BER C A SAG - BAL"]})
    assert "ROME A BAL" in board(outcome)


def test_an_army_leaves_baleares_only_by_convoy(ancient):
    where = position(ancient, "S2M", {"ROME": ["A BAL"]})
    assert parse_errors(ancient, where, "ROME", ["A BAL - TAR"])
    where = position(ancient, "S2M", {"ROME": ["A BAL", "F LIG"]})
    outcome = play(ancient, where, {"ROME": ["A BAL - ETR", "F LIG C A BAL - ETR"]})
    assert "ROME A ETR" in board(outcome)


def test_a_fleet_in_baleares_convoys(ancient):
    where = position(ancient, "S2M", {"CARTHAGE": ["A SAG", "F BAL", "F LIG"]})
    outcome = play(ancient, where, {"CARTHAGE": ["A SAG - ETR", "F BAL C A SAG - ETR", "F LIG C A SAG - ETR"]})
    assert result_of(outcome, "F BAL C A SAG - ETR").result == "convoys"
    assert "CARTHAGE A ETR" in board(outcome)
    where = position(ancient, "S2M", {"CARTHAGE": ["A SAG", "F LIG"]})
    assert parse_errors(ancient, where, "CARTHAGE", ["A SAG - ETR"])  # without Baleares no chain


def test_a_fleet_moves_to_and_from_baleares_like_a_coast(ancient):
    where = position(ancient, "S2M", {"CARTHAGE": ["F BAL"], "ROME": ["F TAR"]})
    outcome = play(ancient, where, {"CARTHAGE": ["F BAL - LIG"], "ROME": ["F TAR - BAL"]})
    assert board(outcome) == {"CARTHAGE F LIG", "ROME F BAL"}


@pytest.mark.parametrize("unit, target", [
    ("F ATH", "ION"), ("F ATH", "AEG"), ("A ATH", "SPA"), ("F SPA", "ATH"),  # Athens-Sparta canal
    ("F BYZ", "BLA"), ("F BYZ", "AEG"), ("A BYZ", "BIT"),  # Byzantium
    ("F NEA", "SIC"), ("A NEA", "SIC"),  # the Sicilian straits
    ("F ALE", "MEM"), ("F MEM", "THE"), ("F THE", "BAY"),  # up the Nile
    ("F AUS", "LIB"), ("F MES", "GOT"), ("F GOT", "MES"),  # the four-way sea junction
    ("F ALE", "THE"), ("F SII", "ALE"), ("F GOP", "ALE"),  # the four-way Nile delta
])
def test_canals_and_junctions(ancient, unit, target):
    where = position(ancient, "S2M", {"GREECE": [unit]})
    outcome = play(ancient, where, {"GREECE": [f"{unit} - {target}"]})
    assert result_of(outcome, f"{unit} - {target}").result == "moves"


def test_no_other_crossings(ancient):
    where = position(ancient, "S2M", {"GREECE": ["F AEG", "F MEM"]})
    assert parse_errors(ancient, where, "GREECE", ["F AEG - ION"])
    assert parse_errors(ancient, where, "GREECE", ["F MEM - EGY"])  # Memphis is on the Nile, not the sea
