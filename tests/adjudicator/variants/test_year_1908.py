"""Year 1908's special rules, DATC style: the route around Africa (Mid-Atlantic to Cairo,
fleets only, convoys too), Casablanca and Spain, the canal provinces, 18 centres to win
with a tie at the top playing on, builds at home."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from adjudicator.progress import winner
from adjudicator.tables import tables_for
from tests.adjudicator.enginehelp import board, moves_alone, parse_errors, play, position, result_of


@pytest.fixture(scope="module")
def y1908():
    return maps.load("year_1908")


def test_opening_position(y1908):
    start = api.initial_position(y1908)
    assert str(start.phase) == "S1908M"
    assert start.centers["BRITAIN"] == {"CAI", "EDI", "LON", "LVP"}
    assert sorted(str(u) for u in start.units if u.power == "ITALY") == ["A MIL", "F NAP", "F ROM/WC"]


def test_fleets_sail_around_africa_and_convoy_along_it(y1908):
    where = position(y1908, "S1909M", {"BRITAIN": ["F MID"]})
    assert "BRITAIN F CAI" in board(play(y1908, where, {"BRITAIN": ["F MID - CAI"]}))
    where = position(y1908, "S1909M", {"BRITAIN": ["A CAI"]})
    assert parse_errors(y1908, where, "BRITAIN", ["A CAI - MID"])  # a sea
    where = position(y1908, "S1909M", {"BRITAIN": ["A CAI", "F MID"]})
    outcome = play(y1908, where, {"BRITAIN": ["A CAI - POR", "F MID C A CAI - POR"]})
    assert result_of(outcome, "A CAI - POR").result == "moves"


@pytest.mark.parametrize("unit, target", [("A CAS", "SPA"), ("F CAS", "SPA/SC"), ("F SPA/SC", "CAS")])
def test_casablanca_and_spain(y1908, unit, target):
    where = position(y1908, "S1909M", {"FRANCE": [unit]})
    outcome = play(y1908, where, {"FRANCE": [f"{unit} - {target}"]})
    assert result_of(outcome, f"{unit} - {target}").result == "moves"


@pytest.mark.parametrize("canal, entry, exit", [
    ("DEN", "NTH", "BAL"), ("KIE", "HEL", "BAL"), ("CON", "AEG", "BLA"), ("SWE", "SKA", "GOB"), ("CAI", "EAS", "MID"),
])
def test_fleets_pass_through_the_canal_provinces(y1908, canal, entry, exit):
    assert moves_alone(y1908, "RUSSIA", f"F {entry}", canal, "S1909M")
    assert moves_alone(y1908, "RUSSIA", f"F {canal}", exit, "S1909M")


def test_18_centres_win_and_a_tie_at_the_top_plays_on(y1908):
    tables = tables_for(y1908)
    ordered = sorted(y1908.supply_centers)

    def centres(**counts: int) -> dict[str, frozenset[str]]:
        out, at = {}, 0
        for power, count in counts.items():
            out[power] = frozenset(ordered[at:at + count])
            at += count
        return out

    assert winner(tables, centres(FRANCE=18, ITALY=17)) == "FRANCE"
    assert winner(tables, centres(FRANCE=18, ITALY=18)) is None
    assert winner(tables, centres(FRANCE=19, ITALY=18)) == "FRANCE"
    assert winner(tables, centres(FRANCE=17, ITALY=17)) is None


def test_builds_only_in_own_home_centres(y1908):
    where = position(y1908, "W1908A", {"FRANCE": []}, {"FRANCE": ["PAR", "BEL"]})
    assert result_of(play(y1908, where, {"FRANCE": ["BUILD A PAR"]}), "A PAR B").result == "builds"
    assert parse_errors(y1908, where, "FRANCE", ["BUILD A BEL"])
