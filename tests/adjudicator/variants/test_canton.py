"""Canton's special geography, DATC style: the canals of Constantinople and Egypt, the
four split coasts."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import board, moves_alone, parse_errors, play, position


@pytest.fixture(scope="module")
def canton():
    return maps.load("canton")


def test_opening_position(canton):
    start = api.initial_position(canton)
    assert str(start.phase) == "S1901M" and len(start.units) == 23
    assert sorted(str(u) for u in start.units if u.power == "HOLLAND") == ["F BOR", "F JAV", "F SUM"]


@pytest.mark.parametrize("canal, entry, exit", [("CON", "BLA", "MED"), ("EGY", "MED", "RED")])
def test_fleets_pass_through_the_canals(canton, canal, entry, exit):
    assert moves_alone(canton, "TURKEY", f"F {entry}", canal) and moves_alone(canton, "TURKEY", f"F {canal}", exit)


def test_split_coasts(canton):
    assert {a: p.coasts for a, p in canton.provinces.items() if p.coasts} == {
        "BUL": ("EC", "SC"), "CAN": ("EC", "SC"), "DAM": ("SC", "WC"), "SIA": ("EC", "WC")}
    where = position(canton, "S1902M", {"FRANCE": ["F GOS"]})
    assert "FRANCE F SIA/EC" in board(play(canton, where, {"FRANCE": ["F GOS - SIA/EC"]}))
    assert parse_errors(canton, where, "FRANCE", ["F GOS - SIA/WC"])
