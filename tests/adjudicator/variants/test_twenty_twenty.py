"""Twenty Twenty's special rules, DATC style: a win by a lead that shrinks each year (or
by 49 centres), counted after a Fall; builds in any owned home centre of any power, never
in a centre that was neutral; the crossings."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import parse_errors, play, position, result_of


@pytest.fixture(scope="module")
def tt():
    return maps.load("twenty_twenty")


def _centres(variant, owner: str, count: int, rivals: int) -> dict[str, list[str]]:
    """``owner`` with ``count`` centres (not ALG), every other power with ``rivals`` (or its homes)."""
    spare = sorted(variant.supply_centers - {"ALG"} - {c for p in variant.powers for c in p.home_centers})
    owned = {p.name: list(p.home_centers)[:rivals] for p in variant.powers}
    owned[owner] = (list(variant.power(owner).home_centers) + spare)[:count]
    return owned


def test_opening_position(tt):
    start = api.initial_position(tt)
    assert str(start.phase) == "S2001M" and len(start.units) == 63
    assert start.centers["USA"] == {"ANC", "ATL", "OKL", "WAS"}


@pytest.mark.parametrize("year, lead_needed", [(2015, 6), (2019, 2), (2020, 1), (2024, 1)])
def test_a_lead_of_2021_minus_the_year_wins_after_the_fall(tt, year, lead_needed):
    """Nigeria takes Algeria in the Fall: its lead over every other power becomes ``lead_needed``."""
    centres = _centres(tt, "NIGERIA", 3 + lead_needed - 1, 3)
    units = {"NIGERIA": ["A TRI"]}
    fall = position(tt, f"F{year}M", units, centres)
    assert play(tt, fall, {"NIGERIA": ["A TRI - ALG"]}).winner == "NIGERIA"
    short = position(tt, f"F{year}M", units, _centres(tt, "NIGERIA", 3 + lead_needed - 2, 3))
    assert play(tt, short, {"NIGERIA": ["A TRI - ALG"]}).winner is None  # one centre short of the lead


def test_the_lead_counts_only_when_a_year_ends(tt):
    centres = _centres(tt, "NIGERIA", 30, 3)  # a lead of 27: more than any year asks
    spring = position(tt, "S2002M", {"NIGERIA": ["A TRI"]}, centres)
    assert play(tt, spring, {"NIGERIA": ["A TRI - ALG"]}).winner is None
    assert play(tt, position(tt, "F2002M", {"NIGERIA": ["A TRI"]}, centres), {"NIGERIA": ["A TRI H"]}).winner == "NIGERIA"


def test_49_centres_win_whatever_the_lead(tt):
    rest = sorted(tt.supply_centers - {"ALG", "TRI"})
    centres = {"NIGERIA": rest[:48], "USA": rest[48:95]}  # 48 and 47 before the Fall: a lead of two
    fall = position(tt, "F2003M", {"NIGERIA": ["A TRI"]}, centres)
    assert play(tt, fall, {"NIGERIA": ["A TRI - ALG"]}).winner == "NIGERIA"


def test_builds_in_any_owned_home_centre_not_a_neutral_one(tt):
    where = position(tt, "W2001A", {"USA": ["A OKL"]}, {"USA": ["OKL", "VAN", "ALG"]})
    outcome = play(tt, where, {"USA": ["BUILD F VAN"]})  # Canada's home centre, taken
    assert result_of(outcome, "F VAN B").result == "builds"
    assert parse_errors(tt, where, "USA", ["BUILD A ALG"])  # a neutral centre


@pytest.mark.parametrize("unit, target", [
    ("A ANC", "VLA"), ("F ANC", "VLA"), ("A KOR", "NAG"),
])
def test_the_crossings(tt, unit, target):
    where = position(tt, "S2002M", {"USA": [unit]})
    outcome = play(tt, where, {"USA": [f"{unit} - {target}"]})
    assert result_of(outcome, f"{unit} - {target}").result == "moves"
