"""The map format's extensions for variants: base maps, the first phase and the calendar,
build sites, archipelagos, one-way moves, claimed home centres, victory by a lead, titles and
rules, digit letters; and their errors."""

from __future__ import annotations

import dataclasses

import pytest

from adjudicator.api import initial_position
from adjudicator.mapdata import MapError, parse_map
from adjudicator.progress import winner
from adjudicator.tables import tables_for
from adjudicator.types import Phase, Terrain
from tests.adjudicator.test_mapdata import MINI, _line_of

BASE = MINI.replace("map mini\n", "map base\n")


def read_base(name: str) -> tuple[str, str]:
    if name != "base":
        raise LookupError(f"unknown map {name!r}")
    return BASE, "base.map"


def test_headers_of_a_variant():
    text = MINI.replace("victory 2\n", "victory 2\ntitle Mini Game\nrule One rule.\nrule Another rule.\n"
                        "start W1900A\nyears-to-fall 5\nyears-to-spring 5\nbuilds anywhere\n")
    variant = parse_map(text, "mini.map")
    assert variant.title == "Mini Game" and variant.rules == ("One rule.", "Another rule.")
    assert str(variant.start_phase) == "W1900A" and variant.start_year == 1900
    assert variant.builds_anywhere
    assert str(variant.fall_after(Phase.parse("S1425M"))) == "F1430M"
    assert str(variant.spring_after(Phase.parse("W1430A"))) == "S1435M"
    assert variant.headline == "Mini Game: 2 powers, 2 of 2 centres to win"


def test_defaults_are_the_standard_rules():
    variant = parse_map(MINI, "mini.map")
    assert (str(variant.start_phase), variant.years_to_fall, variant.years_to_spring, variant.builds_anywhere) == (
        "S1901M", 0, 1, False)
    assert variant.title == "Mini" and variant.rules == ()


def test_a_map_on_a_base_takes_its_geography_and_gives_its_own_powers():
    text = ("map other\nbase base\nvictory 1\n[powers]\n"
            "ONE  Onese  1  homes: BBB  units: F BBB\n")
    variant = parse_map(text, "other.map", read_base)
    assert variant.name == "other" and variant.victory_centers == 1
    assert variant.provinces["CCC"].coasts == ("NC", "SC") and variant.aliases["BIG ALPHA"] == "AAA"
    assert [p.name for p in variant.powers] == ["ONE"] and variant.powers[0].letter == "1"


@pytest.mark.parametrize("text, problem, line", [
    ("base base\n[provinces]\nXXX land - X\n", "a map with a base (base) gives only [powers], not [provinces]", 2),
    ("base nowhere\n[powers]\n", "base map 'nowhere': unknown map", 2),
    ("base base\nbase base\n[powers]\n", "only one base map", 2),
])
def test_base_errors(text, problem, line):
    with pytest.raises(MapError) as caught:
        parse_map(text, "other.map", read_base)
    assert problem in caught.value.problem and caught.value.line == line and caught.value.filename == "other.map"


def test_a_base_needs_a_reader():
    with pytest.raises(MapError, match="base map 'base' cannot be read here"):
        parse_map("base base\n[powers]\n", "other.map")


ISLANDS = MINI.replace("SSS sea   -  South Sea      = Southern", "SSS sea   -  South Sea      = Southern\n"
                       "ISL archipelago SC Islands").replace(
    "SSS     F: BBB CCC/NC CCC/SC", "SSS     F: BBB CCC/NC CCC/SC ISL\nISL     F: SSS")


def test_an_archipelago_is_a_coast_where_fleets_convoy():
    variant = parse_map(ISLANDS, "mini.map")
    islands = variant.provinces["ISL"]
    assert islands.terrain is Terrain.COAST and islands.convoys and islands.supply_center
    assert variant.army_moves["ISL"] == frozenset() and variant.fleet_moves["ISL"] == {"SSS"}


def test_an_archipelago_may_list_army_moves():
    """Gibraltar (Empires and Coalitions): fleets there convoy, armies also walk in and out."""
    text = ISLANDS.replace("ISL     F: SSS", "ISL     A: AAA  F: SSS").replace("AAA     A: BBB CCC", "AAA     A: BBB CCC ISL")
    variant = parse_map(text, "mini.map")
    assert variant.provinces["ISL"].convoys and variant.army_moves["ISL"] == {"AAA"} and "ISL" in variant.army_moves["AAA"]


def test_one_way_moves():
    text = ISLANDS.replace("SSS     F: BBB CCC/NC CCC/SC ISL\nISL     F: SSS", "SSS     F: BBB CCC/NC CCC/SC  F>: ISL\nISL     F: BBB")
    text = text.replace("BBB     A: AAA CCC   F: SSS CCC/NC", "BBB     A: AAA CCC   F: SSS CCC/NC ISL")
    variant = parse_map(text, "mini.map")
    assert "ISL" in variant.fleet_moves["SSS"] and "SSS" not in variant.fleet_moves["ISL"]
    tables = tables_for(variant)
    assert tables.sea_landing["ISL"] == {"SSS"} and "SSS" not in tables.sea_touching["ISL"]  # convoyed in, not out


def test_claimed_home_centres_are_not_owned_at_the_start():
    text = MINI.replace("ONE  Onese  O  homes: AAA  units: A AAA", "ONE  Onese  O  homes: AAA  claims: CCC units: A AAA")
    text = text.replace("CCC coast -  Charlie", "CCC coast SC Charlie").replace("victory 2", "victory 3")
    variant = parse_map(text, "mini.map")
    assert variant.power("ONE").home_centers == ("AAA", "CCC") and variant.power("ONE").claims == ("CCC",)
    assert initial_position(variant).centers["ONE"] == {"AAA"}


def test_builds_in_any_home_centre():
    variant = parse_map(MINI.replace("victory 2", "victory 2\nbuilds any-home"), "mini.map")
    assert variant.builds_any_home and not variant.builds_anywhere
    assert tables_for(variant).build_homes == {"ONE": {"AAA", "BBB"}, "TWO": {"AAA", "BBB"}}
    assert tables_for(parse_map(MINI, "mini.map")).build_homes == {"ONE": {"AAA"}, "TWO": {"BBB"}}


@pytest.mark.parametrize("counts, year, expected", [
    ((3, 1), 2019, "ONE"),  # a lead of 2 = 2021 - 2019
    ((3, 2), 2019, None),
    ((3, 2), 2020, "ONE"),  # at least one from 2020 on
    ((3, 2), 2030, "ONE"),
    ((3, 3), 2030, None),  # a tie is no lead
    ((3, 2), None, None),  # a phase that did not end the year: the count alone
    ((9, 8), None, "ONE"),  # the count of centres still wins
])
def test_victory_by_a_lead_that_shrinks_each_year(counts, year, expected):
    variant = parse_map(MINI.replace("victory 2", "victory 2\nlead-until 2021"), "mini.map")
    assert variant.lead_until == 2021
    variant = dataclasses.replace(variant, victory_centers=9)  # more centres than the little map has
    centers = {"ONE": frozenset(f"X{i}" for i in range(counts[0])), "TWO": frozenset(f"Y{i}" for i in range(counts[1]))}
    tables = tables_for(variant)
    assert winner(tables, centers, year) == expected


@pytest.mark.parametrize("old, new, at, problem", [
    ("victory 2", "victory 2\nbuilds everywhere", "builds everywhere", "builds must be 'home', 'anywhere' or 'any-home'"),
    ("victory 2", "victory 2\nlead-until soon", "lead-until soon", "lead-until needs a positive whole number"),
    ("victory 2", "victory 2\nneutral-armies some", "neutral-armies some", "neutral-armies must be 'yes' or 'no'"),
    ("TWO  Twoish T", "NEUTRAL  Twoish T", "NEUTRAL  Twoish", "NEUTRAL is the power of neutral armies, not a power of the map"),
    ("SSS     F: BBB CCC/NC CCC/SC ISL", "SSS     F: BBB CCC/NC CCC/SC  F>: ISL", "SSS     F:",
     "SSS F>: lists ISL as one-way, but ISL lists SSS back (use F: for a two-way move)"),
    ("victory 2", "victory 2\nstart spring", "start spring", "start needs a year (1901) or a phase"),
    ("victory 2", "victory 2\nstart S1901R", "start S1901R", "a game cannot start with a retreat phase"),
    ("victory 2", "victory 2\nyears-to-spring 0", "years-to-spring 0", "years-to-spring needs a positive whole number"),
    ("victory 2", "victory 2\nyears-to-fall -1", "years-to-fall -1", "years-to-fall needs a whole number"),
    ("TWO  Twoish T", "TWO  Twoish !", "TWO  Twoish", "the letter of TWO must be one letter or digit"),
    ("ISL     F: SSS", "ISL     A: AAA  F: SSS", "ISL     A:", "one-way adjacency: ISL A: lists AAA"),
    ("ONE  Onese  O  homes: AAA", "ONE  Onese  O  homes: AAA claims: AAA", "ONE  Onese", "a home centre of ONE is listed twice"),
])
def test_extension_errors_name_the_line_and_what_is_accepted(old, new, at, problem):
    assert old in ISLANDS
    text = ISLANDS.replace(old, new, 1)
    with pytest.raises(MapError) as caught:
        parse_map(text, "mini.map")
    assert problem in caught.value.problem
    assert caught.value.line == _line_of(text, at)
