"""The map file format (adjudicator.mapdata) and the shipped standard map (maps/)."""

from __future__ import annotations

import pytest

import maps
from adjudicator.mapdata import MapError, normalise_name, parse_map
from adjudicator.types import Terrain, UnitKind

# The contract's list (shared/contracts/adjudicate.md) plus BUR, which that list leaves out
# although its own output example shows it.
CONTRACT_ABBREVIATIONS = set(
    """ADR AEG ALB ANK APU ARM BAL BAR BEL BER BLA BOH BOT BRE BUD BUL BUR CLY CON DEN EAS
    EDI ENG FIN GAL GAS GRE HEL HOL ION IRI KIE LON LVN LVP LYO MAO MAR MOS MUN NAF
    NAO NAP NTH NWG NWY PAR PIC PIE POR PRU ROM RUH RUM SER SEV SIL SKA SMY SPA STP
    SWE SYR TRI TUN TUS TYR TYS UKR VEN VIE WAL WAR WES YOR""".split()
)


@pytest.fixture(scope="module")
def standard():
    return maps.load("standard")


# -- the standard map ----------------------------------------------------------------------


def test_standard_map_has_the_board_of_the_rulebook(standard):
    assert standard.name == "standard"
    assert set(standard.provinces) == CONTRACT_ABBREVIATIONS
    assert len(standard.provinces) == 75
    assert len(standard.supply_centers) == 34
    assert standard.victory_centers == 18
    assert standard.start_year == 1901
    terrains = [p.terrain for p in standard.provinces.values()]
    assert (terrains.count(Terrain.LAND), terrains.count(Terrain.SEA), terrains.count(Terrain.COAST)) == (14, 19, 42)


def test_standard_split_coasts(standard):
    split = {a: p.coasts for a, p in standard.provinces.items() if p.coasts}
    assert split == {"BUL": ("EC", "SC"), "SPA": ("NC", "SC"), "STP": ("NC", "SC")}
    assert standard.fleet_moves["SPA/NC"] == {"GAS", "MAO", "POR"}
    assert standard.fleet_moves["SPA/SC"] == {"LYO", "MAO", "MAR", "POR", "WES"}
    assert standard.fleet_moves["STP/NC"] == {"BAR", "NWY"}
    assert standard.fleet_moves["STP/SC"] == {"BOT", "FIN", "LVN"}
    assert standard.fleet_moves["BUL/EC"] == {"BLA", "CON", "RUM"}
    assert standard.fleet_moves["BUL/SC"] == {"AEG", "CON", "GRE"}
    assert "SPA" not in standard.fleet_moves  # a fleet always stands on a coast there
    assert standard.army_moves["SPA"] == {"GAS", "MAR", "POR"}


def test_standard_powers_and_starting_units(standard):
    table = {p.name: (p.adjective, p.letter, set(p.home_centers), {str(u) for u in p.starting_units})
             for p in standard.powers}
    assert table == {
        "AUSTRIA": ("Austrian", "A", {"BUD", "TRI", "VIE"}, {"A BUD", "A VIE", "F TRI"}),
        "ENGLAND": ("English", "E", {"EDI", "LON", "LVP"}, {"F EDI", "F LON", "A LVP"}),
        "FRANCE": ("French", "F", {"BRE", "MAR", "PAR"}, {"F BRE", "A MAR", "A PAR"}),
        "GERMANY": ("German", "G", {"BER", "KIE", "MUN"}, {"A BER", "F KIE", "A MUN"}),
        "ITALY": ("Italian", "I", {"NAP", "ROM", "VEN"}, {"F NAP", "A ROM", "A VEN"}),
        "RUSSIA": ("Russian", "R", {"MOS", "SEV", "STP", "WAR"}, {"A MOS", "F SEV", "F STP/SC", "A WAR"}),
        "TURKEY": ("Turkish", "T", {"ANK", "CON", "SMY"}, {"F ANK", "A CON", "A SMY"}),
    }
    for power in standard.powers:
        assert all(u.power == power.name for u in power.starting_units)
    neutral = standard.supply_centers - {c for p in standard.powers for c in p.home_centers}
    assert neutral == {"BEL", "BUL", "DEN", "GRE", "HOL", "NWY", "POR", "RUM", "SER", "SPA", "SWE", "TUN"}


def test_standard_adjacencies_are_symmetric_and_respect_terrain(standard):
    for province, neighbours in standard.army_moves.items():
        for other in neighbours:
            assert province in standard.army_moves[other], (province, other)
            assert standard.provinces[other].terrain is not Terrain.SEA
    for location, neighbours in standard.fleet_moves.items():
        for other in neighbours:
            assert location in standard.fleet_moves[other], (location, other)
    assert sum(len(n) for n in standard.army_moves.values()) // 2 == 111
    assert sum(len(n) for n in standard.fleet_moves.values()) // 2 == 141


def test_standard_adjacencies_match_the_peer_engines_map(standard):
    """Cross-check every adjacency against the diplomacy package's own standard map."""
    diplomacy = pytest.importorskip("diplomacy")
    from pathlib import Path

    text = (Path(diplomacy.__file__).parent / "maps" / "standard.map").read_text()
    kinds: dict[str, str] = {}
    listed: dict[str, list[str]] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) > 2 and words[2] == "ABUTS" and words[0] in ("WATER", "COAST", "LAND"):
            kinds[words[1].upper()] = words[0]
            listed[words[1].upper()] = [w for w in words[3:] if w.upper() != "SWI"]
    split = {"SPA", "STP", "BUL"}
    # Their convention: upper case = fleets and armies, lower case = armies only.
    army = {
        loc: {w.upper().split("/")[0] for w in words if kinds[w.upper().split("/")[0]] != "WATER"}
        for loc, words in listed.items() if "/" not in loc and kinds[loc] != "WATER"
    }
    fleet = {
        loc: {w for w in words if w.isupper() and kinds[w.split("/")[0]] != "LAND" and w not in split}
        for loc, words in listed.items() if kinds[loc] != "LAND" and loc not in split
    }
    assert {p: set(m) for p, m in standard.army_moves.items() if m} == army
    assert {loc: set(m) for loc, m in standard.fleet_moves.items() if m} == fleet


@pytest.mark.parametrize(
    "a, b, army, fleet",
    [
        ("ROM", "APU", True, False),  # share a border, not a coastline
        ("ROM", "VEN", True, False),
        ("APU", "VEN", True, True),
        ("SMY", "ANK", True, False),
        ("ARM", "SYR", True, False),
        ("GAS", "MAR", True, False),
        ("EDI", "LVP", True, False),
        ("FIN", "NWY", True, False),
        ("DEN", "SWE", True, True),
        ("KIE", "DEN", True, True),
        ("CON", "ANK", True, True),
        ("NAF", "TUN", True, True),
        ("BUR", "MAR", True, False),
        ("PIE", "TYR", True, False),
        ("NTH", "NWG", False, True),
        ("BLA", "ARM", False, True),
        ("BOH", "SIL", True, False),
        ("LVN", "MOS", True, False),
        ("WAL", "YOR", True, False),
        ("LON", "WAL", True, True),
    ],
)
def test_standard_adjacency_facts(standard, a, b, army, fleet):
    assert (b in standard.army_moves[a]) is army
    fleet_locations = [loc for loc in standard.fleet_moves if loc.split("/")[0] == a]
    reach = {n.split("/")[0] for loc in fleet_locations for n in standard.fleet_moves[loc]}
    assert (b in reach) is fleet


@pytest.mark.parametrize(
    "alias, province",
    [
        ("MAO", "MAO"), ("MID", "MAO"), ("MID ATLANTIC OCEAN", "MAO"), ("MID ATLANTIC", "MAO"), ("MIDATLANTIC", "MAO"),
        ("NAO", "NAO"), ("NAT", "NAO"), ("NORTH ATLANTIC", "NAO"), ("NORTH ATLANTIC OCEAN", "NAO"),
        ("LYO", "LYO"), ("GOL", "LYO"), ("GULF OF LYON", "LYO"), ("GULF OF LYONS", "LYO"),
        ("NWG", "NWG"), ("NRG", "NWG"), ("NORWEGIAN SEA", "NWG"),
        ("BOT", "BOT"), ("GOB", "BOT"), ("GULF OF BOTHNIA", "BOT"),
        ("ENG", "ENG"), ("ENGLISH CHANNEL", "ENG"),
        ("TYS", "TYS"), ("TYN", "TYS"), ("TYRRHENIAN SEA", "TYS"),
        ("HEL", "HEL"), ("HELGOLAND BIGHT", "HEL"), ("HELIGOLAND", "HEL"),
        ("SKA", "SKA"), ("SKAGERRAK", "SKA"),
        ("LVN", "LVN"), ("LIV", "LVN"), ("LIVONIA", "LVN"),
        ("NWY", "NWY"), ("NOR", "NWY"), ("NORWAY", "NWY"),
        ("ST PETERSBURG", "STP"), ("SAINT PETERSBURG", "STP"), ("STPETERSBURG", "STP"),
        ("EASTERN MEDITERRANEAN", "EAS"), ("WESTERN MEDITERRANEAN", "WES"),
        ("TYROLIA", "TYR"), ("TYROL", "TYR"), ("LIVERPOOL", "LVP"), ("LPL", "LVP"),
    ],
)
def test_standard_aliases(standard, alias, province):
    assert standard.aliases[alias] == province


def test_normalise_name():
    assert normalise_name("Mid-Atlantic Ocean") == "MID ATLANTIC OCEAN"
    assert normalise_name("  St. Petersburg ") == "ST PETERSBURG"
    assert normalise_name("gulf  of\tLyon's") == "GULF OF LYONS"


def test_maps_package_lists_and_refuses_unknown_names():
    assert "standard" in maps.available()
    for bad in ("nosuchmap", "../maps/standard", "standard.map", ""):
        with pytest.raises(maps.UnknownMapError) as caught:
            maps.load(bad)
        assert "standard" in str(caught.value)  # says what exists


# -- the format's errors -------------------------------------------------------------------------

MINI = """\
# a small but complete map
map mini
victory 2
[provinces]
AAA land  SC Alpha          = Alp, Big Alpha
BBB coast SC Bravo Land
CCC coast -  Charlie
SSS sea   -  South Sea      = Southern
[coasts]
CCC NC SC
[adjacencies]
AAA     A: BBB CCC
BBB     A: AAA CCC   F: SSS CCC/NC
CCC     A: AAA BBB
CCC/NC  F: BBB SSS
CCC/SC  F: SSS
SSS     F: BBB CCC/NC CCC/SC
[powers]
ONE  Onese  O  homes: AAA  units: A AAA
TWO  Twoish T  homes: BBB  units: F BBB
"""


def _line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if fragment in line)


def test_mini_map_parses():
    variant = parse_map(MINI, "mini.map")
    assert variant.name == "mini"
    assert variant.victory_centers == 2
    assert variant.provinces["CCC"].coasts == ("NC", "SC")
    assert variant.fleet_moves["CCC/SC"] == {"SSS"}
    assert variant.aliases["BIG ALPHA"] == "AAA"
    assert variant.aliases["SOUTH SEA"] == "SSS"
    assert variant.army_moves["SSS"] == frozenset()
    assert [str(u) for u in variant.power("TWO").starting_units] == ["F BBB"]
    assert variant.power("TWO").starting_units[0].kind is UnitKind.FLEET


def test_defaults_name_from_file_and_victory_from_centres():
    text = MINI.replace("map mini\n", "").replace("victory 2\n", "")
    variant = parse_map(text, "some/dir/other.map")
    assert variant.name == "other"
    assert variant.victory_centers == 2  # more than half of 2 centres


@pytest.mark.parametrize(
    "old, new, at, problem",
    [
        ("AAA     A: BBB CCC", "AAA     A: BBB CCC XYZ", "AAA     A:", "unknown province 'XYZ' in adjacency"),
        ("AAA     A: BBB CCC", "AAA     A: BBB", "CCC     A:", "one-way adjacency: CCC A: lists AAA"),
        ("SSS     F: BBB CCC/NC CCC/SC", "SSS     F: BBB CCC/NC", "CCC/SC  F:", "one-way adjacency: CCC/SC F: lists SSS"),
        ("= Southern", "= Southern, Alp", "SSS sea", "duplicate alias 'Alp': already names AAA"),
        ("CCC coast -  Charlie", "CCC coast -  Charlie = Bravo land", "CCC coast", "duplicate alias 'Bravo land'"),
        ("SSS sea   -  South Sea", "AAA sea   -  South Sea", "AAA sea", "duplicate province 'AAA'"),
        ("CCC/SC  F: SSS", "CCC/WC  F: SSS", "CCC/WC", "bad coast 'CCC/WC' in adjacency: CCC has coasts NC, SC"),
        ("CCC NC SC", "CCC NC XC", "CCC NC XC", "bad coast 'XC' for CCC"),
        ("CCC NC SC", "AAA NC SC", "AAA NC SC", "only coastal provinces have split coasts"),
        ("SSS     F: BBB CCC/NC CCC/SC", "SSS     F: BBB CCC", "SSS     F:", "bad coast: 'CCC' has split coasts"),
        ("CCC     A: AAA BBB", "CCC     A: AAA BBB  F: SSS", "CCC     A:", "bad coast: fleet moves of CCC are given per coast"),
        ("ONE  Onese  O  homes: AAA", "ONE  Onese  O  homes: AAA CCC", "ONE  Onese", "home centre CCC of ONE is not a supply centre"),
        ("TWO  Twoish T  homes: BBB", "TWO  Twoish T  homes: AAA", "TWO  Twoish", "AAA is already a home centre of ONE"),
        ("TWO  Twoish T", "TWO  Twoish O", "TWO  Twoish", "letter O of TWO is already used by ONE"),
        ("TWO  Twoish T", "ONE  Twoish T", "ONE  Twoish", "duplicate power ONE"),
        ("units: F BBB", "units: F AAA", "TWO  Twoish", "a fleet cannot stand on land (AAA)"),
        ("units: F BBB", "units: A SSS", "TWO  Twoish", "an army cannot stand on 'SSS'"),
        ("units: F BBB", "units: F CCC", "TWO  Twoish", "bad coast: a fleet in CCC must name its coast"),
        ("units: F BBB", "units: A AAA", "TWO  Twoish", "two starting units in AAA"),
        ("AAA     A: BBB CCC", "AAA     A: BBB CCC SSS", "AAA     A:", "SSS is a sea: an army in AAA cannot move there"),
        ("BBB     A: AAA CCC   F: SSS CCC/NC", "BBB     A: AAA CCC   F: SSS CCC/NC AAA", "BBB     A:", "AAA is land"),
        ("BBB     A: AAA CCC   F:", "BBB     A: AAA AAA CCC   F:", "BBB     A:", "AAA listed twice"),
        ("AAA land  SC Alpha", "AAA hill  SC Alpha", "AAA hill", "unknown terrain 'hill'"),
        ("[coasts]", "[coast]", "[coast]", "unknown section '[coast]'"),
        ("victory 2", "victory 3", "TWO  Twoish", "victory needs 3 centres but the map has only 2"),
        ("victory 2", "victory two", "victory two", "victory needs a positive whole number"),
        ("map mini", "mapp mini", "mapp mini", "unexpected 'mapp mini' before the first section"),
        ("SSS sea   -  South Sea      = Southern", "SSS sea   -  South Sea      = Southern\nZZZ sea - Zed Sea",
         "ZZZ sea", "ZZZ has no adjacencies"),
    ],
)
def test_map_errors_name_file_line_and_problem(old, new, at, problem):
    assert old in MINI
    text = MINI.replace(old, new, 1)
    with pytest.raises(MapError) as caught:
        parse_map(text, "mini.map")
    error = caught.value
    assert error.filename == "mini.map"
    assert problem in error.problem
    assert error.line == _line_of(text, at)
    assert str(error) == f"mini.map:{error.line}: {error.problem}"


def test_section_order_and_repetition_are_checked():
    with pytest.raises(MapError, match=r"mini.map:2: section \[provinces\] must come before \[powers\]"):
        parse_map("[powers]\n[provinces]\n", "mini.map")
    with pytest.raises(MapError, match=r"section \[powers\] appears twice"):
        parse_map(MINI + "[powers]\n", "mini.map")
