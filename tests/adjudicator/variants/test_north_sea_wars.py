"""North Sea Wars' special rules, DATC style: the trade provinces entered from the Central
North Sea and never left back to it, Jutland's two coasts, Sealand, the year 0."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import board, parse_errors, play, position, result_of


@pytest.fixture(scope="module")
def nsw():
    return maps.load("north_sea_wars")


def test_the_game_starts_in_the_year_0_and_counts_on(nsw):
    start = api.initial_position(nsw)
    assert str(start.phase) == "S0M" and start.centers["NORSE"] == {"GOT", "SOR"}
    spring = play(nsw, start, {})
    assert str(spring.position.phase) == "F0M"
    where = position(nsw, "F0M", {"NORSE": ["F SOR"]}, {"NORSE": ["GOT", "SOR"]})
    assert str(play(nsw, where, {"NORSE": ["F SOR - ENS"]}).position.phase) == "W0A"


@pytest.mark.parametrize("trade", ["WOO", "IRO", "GRA"])
def test_a_fleet_enters_a_trade_province_and_cannot_sail_back(nsw, trade):
    where = position(nsw, "S1M", {"NORSE": ["F CNS"]})
    outcome = play(nsw, where, {"NORSE": [f"F CNS - {trade}"]})
    assert f"NORSE F {trade}" in board(outcome)
    where = position(nsw, "S1M", {"NORSE": [f"F {trade}"]})
    assert parse_errors(nsw, where, "NORSE", [f"F {trade} - CNS"])
    assert not parse_errors(nsw, where, "NORSE", [f"F {trade} - {'IRO' if trade != 'IRO' else 'WOO'}"])


def test_units_move_freely_among_the_trade_provinces(nsw):
    where = position(nsw, "S1M", {"NORSE": ["A WOO", "F IRO"]})
    outcome = play(nsw, where, {"NORSE": ["A WOO - GRA", "F IRO - WOO"]})
    assert {"NORSE A GRA", "NORSE F WOO"} <= board(outcome)


def test_an_army_is_convoyed_into_a_trade_province_but_not_out(nsw):
    where = position(nsw, "S1M", {"BRITONS": ["A SBR", "F WNS", "F CNS"]})
    outcome = play(nsw, where, {"BRITONS": ["A SBR - WOO", "F WNS C A SBR - WOO", "F CNS C A SBR - WOO"]})
    assert result_of(outcome, "A SBR - WOO").result == "moves"
    where = position(nsw, "S1M", {"BRITONS": ["A WOO", "F WNS", "F CNS"]})
    assert parse_errors(nsw, where, "BRITONS", ["A WOO - SBR"])


def test_a_unit_in_the_central_north_sea_cannot_be_supported_back_from_a_trade_province(nsw):
    """A fleet in Wood cannot reach the Central North Sea, so it cannot support a move there."""
    where = position(nsw, "S1M", {"NORSE": ["F WOO", "F ENS"], "BRITONS": ["F CNS"]})
    assert parse_errors(nsw, where, "NORSE", ["F WOO S F ENS - CNS"])


def test_jutland_has_two_coasts_and_sealand_no_sea_route_to_amsivaria(nsw):
    where = position(nsw, "S1M", {"NORSE": ["F SEA"], "FRYSIANS": ["F AMS"]})
    outcome = play(nsw, where, {"NORSE": ["F SEA - JUT/EC"], "FRYSIANS": ["F AMS - JUT/WC"]})
    assert result_of(outcome, "F SEA - JUT/EC").result != "moves"  # both enter Jutland: a bounce
    assert parse_errors(nsw, where, "NORSE", ["F SEA - AMS"])
    assert parse_errors(nsw, where, "NORSE", ["F SEA - JUT/WC"])
    where = position(nsw, "S1M", {"NORSE": ["A SEA"]})
    assert not parse_errors(nsw, where, "NORSE", ["A SEA - AMS"]) and not parse_errors(nsw, where, "NORSE", ["A SEA - LIM"])
