"""Youngstown Redux's special rules, DATC style: the box sea regions (fleets sail around
the world), the six split coasts, and the victory rule (the most of those at 28; a tie at
the top plays on)."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from adjudicator.progress import winner
from adjudicator.tables import tables_for
from tests.adjudicator.enginehelp import board, parse_errors, play, position, result_of

# Each box touches the boxes of its row and column (the godip names spell them out).
BOX_NEIGHBOURS = {
    "BXA": "BCD", "BXB": "ACE", "BXC": "ABFGH", "BXD": "AEF",
    "BXE": "BDF", "BXF": "CDEGH", "BXG": "CFH", "BXH": "CFG",
}


@pytest.fixture(scope="module")
def youngstown():
    return maps.load("youngstown_redux")


def test_opening_position(youngstown):
    start = api.initial_position(youngstown)
    assert len(start.units) == 44 and len(youngstown.powers) == 10
    assert sorted(str(u) for u in start.units if u.power == "BRITAIN") == ["F ADE", "F EDI", "F LIE", "F LON", "F SIG"]
    assert len(youngstown.supply_centers) == 81


@pytest.mark.parametrize("box", sorted(BOX_NEIGHBOURS))
def test_boxes_touch_the_boxes_of_their_row_and_column(youngstown, box):
    boxes = {p for p in youngstown.fleet_moves[box] if p.startswith("BX")}
    assert boxes == {f"BX{letter}" for letter in BOX_NEIGHBOURS[box]}


def test_a_fleet_sails_around_the_world(youngstown):
    where = position(youngstown, "S1901M", {"JAPAN": ["F NPO"]})
    for target in ("BXD", "BXA", "NAO", "IRI"):
        outcome = play(youngstown, where, {"JAPAN": [f"F {where.units[0].location} - {target}"]})
        assert board(outcome) == {f"JAPAN F {target}"}
        where = position(youngstown, "S1901M", {"JAPAN": [f"F {target}"]})
    where = position(youngstown, "S1901M", {"JAPAN": ["F BXA"]})
    assert parse_errors(youngstown, where, "JAPAN", ["F BXA - BXE"])  # not in its row or column


def test_split_coasts(youngstown):
    split = {a: p.coasts for a, p in youngstown.provinces.items() if p.coasts}
    assert split == {"ARA": ("NC", "SC"), "HEB": ("NC", "SC"), "LEV": ("NC", "SC"), "SPA": ("NC", "SC"),
                     "STP": ("NC", "SC"), "THA": ("EC", "WC")}
    where = position(youngstown, "S1901M", {"TURKEY": ["F RED"]})
    outcome = play(youngstown, where, {"TURKEY": ["F RED - LEV/SC"]})
    assert board(outcome) == {"TURKEY F LEV/SC"}
    assert parse_errors(youngstown, where, "TURKEY", ["F RED - LEV/NC"])
    where = position(youngstown, "S1901M", {"BRITAIN": ["F SIG"]})
    assert {result_of(play(youngstown, where, {"BRITAIN": [f"F SIG - THA/{c}"]}), f"F SIG - THA/{c}").result
            for c in ("EC", "WC")} == {"moves"}


def centres(counts: dict[str, int], variant) -> dict[str, frozenset[str]]:
    pool = iter(sorted(variant.supply_centers))
    return {power: frozenset(next(pool) for _ in range(n)) for power, n in counts.items()}


def test_the_most_at_28_wins_and_a_tie_at_the_top_plays_on(youngstown):
    tables = tables_for(youngstown)
    assert winner(tables, centres({"CHINA": 28, "JAPAN": 27}, youngstown)) == "CHINA"
    assert winner(tables, centres({"CHINA": 28, "JAPAN": 30}, youngstown)) == "JAPAN"
    assert winner(tables, centres({"CHINA": 29, "JAPAN": 29, "INDIA": 20}, youngstown)) is None
    assert winner(tables, centres({"CHINA": 27, "JAPAN": 27}, youngstown)) is None
