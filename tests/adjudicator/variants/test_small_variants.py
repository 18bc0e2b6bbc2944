"""Special rules of Pure, Fleet Rome and Chaos, DATC style: a position, orders, the result."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from tests.adjudicator.enginehelp import board, play, position, result_of


@pytest.fixture(scope="module")
def pure():
    return maps.load("pure")


@pytest.fixture(scope="module")
def chaos():
    return maps.load("chaos")


# -- Pure ----------------------------------------------------------------------------------------


def test_pure_every_province_borders_every_other(pure):
    start = api.initial_position(pure)
    swap = play(pure, start, {"ENGLAND": ["A LON - CON"], "TURKEY": ["A CON - LON"]})
    assert result_of(swap, "A LON - CON").result == "bounce"  # head to head, as anywhere
    ring = play(pure, start, {"ENGLAND": ["A LON - CON"], "TURKEY": ["A CON - MOS"], "RUSSIA": ["A MOS - LON"]})
    assert {"ENGLAND A CON", "TURKEY A MOS", "RUSSIA A LON"} <= board(ring)  # London and Moscow border


def test_pure_support_decides_and_four_centres_win(pure):
    where = position(pure, "F1903M",
                     {"FRANCE": ["A PAR", "A LON", "A BER"], "ITALY": ["A ROM"], "RUSSIA": ["A MOS"]},
                     {"FRANCE": ["PAR", "LON", "BER"], "ITALY": ["ROM"], "RUSSIA": ["MOS"]})
    outcome = play(pure, where, {"FRANCE": ["A LON - ROM", "A BER S A LON - ROM", "A PAR H"],
                                 "ITALY": ["A ROM H"], "RUSSIA": ["A MOS S A ROM"]})
    assert result_of(outcome, "A LON - ROM").result == "bounce"  # 2 against 2
    outcome = play(pure, where, {"FRANCE": ["A LON - ROM", "A BER S A LON - ROM", "A PAR H"], "ITALY": ["A ROM H"]})
    assert result_of(outcome, "A LON - ROM").result == "moves"
    assert str(outcome.position.phase) == "F1903R"
    outcome = play(pure, outcome.position, {"ITALY": ["A ROM R VIE"]})
    assert outcome.winner == "FRANCE"  # four of seven centres
    assert sorted(outcome.position.centers["FRANCE"]) == ["BER", "LON", "PAR", "ROM"]


def test_pure_has_no_fleets(pure):
    where = position(pure, "W1901A", {"ITALY": []}, {"ITALY": ["ROM"]})
    parsed = api.parse_orders(api.prepare(pure, where), "ITALY", ["BUILD F ROM"])
    assert parsed.errors and "fleet" in str(parsed.errors[0]).lower()


# -- Fleet Rome ----------------------------------------------------------------------------------


def test_fleet_rome_italy_opens_with_a_fleet_in_rome():
    variant = maps.load("fleet_rome")
    start = api.initial_position(variant)
    italy = sorted(str(u) for u in start.units if u.power == "ITALY")
    assert italy == ["A VEN", "F NAP", "F ROM"]
    outcome = play(variant, start, {"ITALY": ["F ROM - TYS", "F NAP - ION", "A VEN - APU"]})
    assert {result_of(outcome, o).result for o in ("F ROM - TYS", "F NAP - ION", "A VEN - APU")} == {"moves"}
    assert variant.army_moves == maps.load("standard").army_moves  # the standard board


# -- Chaos ---------------------------------------------------------------------------------------


def test_chaos_starts_with_winter_builds_and_no_units(chaos):
    start = api.initial_position(chaos)
    assert str(start.phase) == "W1900A" and start.units == ()
    needed = api.requirements(api.prepare(chaos, start))
    assert len(needed) == 34 and all(r.builds == 1 for r in needed.values())
    outcome = play(chaos, start, {"LONDON": ["BUILD F LON"], "PARIS": ["BUILD A PAR"], "STPETERSBURG": ["BUILD F STP/NC"]})
    assert str(outcome.position.phase) == "S1901M"
    assert board(outcome) == {"LONDON F LON", "PARIS A PAR", "STPETERSBURG F STP/NC"}


def test_chaos_builds_in_any_owned_centre_but_not_elsewhere(chaos):
    where = position(chaos, "W1902A", {"PARIS": ["A BUR"], "BREST": []},
                     {"PARIS": ["PAR", "BEL", "MAR"], "BREST": ["BRE"]})
    outcome = play(chaos, where, {"PARIS": ["BUILD A BEL", "BUILD F MAR"]})  # captured centres
    assert result_of(outcome, "A BEL B").result == "builds"
    assert result_of(outcome, "F MAR B").result == "builds"
    parsed = api.parse_orders(api.prepare(chaos, where), "PARIS", ["BUILD A BRE"])
    assert parsed.errors and "does not own BRE" in str(parsed.errors[0])
    standard = maps.load("standard")
    where = position(standard, "W1902A", {"FRANCE": ["A BUR"]}, {"FRANCE": ["PAR", "BEL"]})
    parsed = api.parse_orders(api.prepare(standard, where), "FRANCE", ["BUILD A BEL"])
    assert parsed.errors and "home" in str(parsed.errors[0])  # the standard rule is unchanged


def test_chaos_power_letters_are_distinct_and_never_master_or_observers(chaos):
    letters = [p.letter for p in chaos.powers]
    assert len(set(letters)) == 34 and not {"M", "O"} & set(letters)
