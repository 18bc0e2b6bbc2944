"""Every map checked move by move against its published source.

The source of a map from godip (github.com/zond/godip, whose variants carry the recorded
games of vDiplomacy and Diplicity) is godip's own variant: its facts are kept in
``sources/godip_<variant>.json``, read from godip's Go source by ``python -m
maps.godip_facts`` (the commit and files are named in each document).  Every army move
and every fleet move between any two locations of our map is probed against what godip
allows, and the supply centres, home centres and starting units are compared.  The maps
of MILA's ``diplomacy`` package are checked against it in test_peer_maps.py; every
shipped map has at least one source.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import maps
from adjudicator.types import Terrain, Variant
from tests.adjudicator.variants.test_peer_maps import PEERS

SOURCES_DIR = Path(__file__).with_name("sources")
CLASSICAL = {"NAT": "NAO", "NRG": "NWG", "MID": "MAO", "GOL": "LYO"}  # godip's spelling -> ours


@dataclass(frozen=True)
class Source:
    variant: str  # godip's folder under variants/
    renames: dict[str, str]  # godip's abbreviation -> ours, where they differ
    # What godip's Start sets up by code rather than as data: units it sets (location ->
    # (kind, nation)), and whether it gives every centre to the nation its SC names.
    units_by_code: tuple[tuple[str, tuple[str, str]], ...] = ()
    centres_owned_by_code: bool = False
    powers: tuple[tuple[str, str], ...] = ()  # godip's nation (letters only, upper case) -> ours


GODIP = {
    "standard": Source("classical", CLASSICAL),
    # classical's Start, then RemoveUnit and SetUnit: Italy's fleet in Rome
    "fleet_rome": Source("fleetrome", CLASSICAL, units_by_code=(("rom", ("Fleet", "Italy")),)),
    # no units (it starts with builds); SetSupplyCenters gives each of the 34 nations its centre
    "chaos": Source("chaos", CLASSICAL, centres_owned_by_code=True),
    "pure": Source("pure", {}),
    "hundred": Source("hundred", {}),
    "ancient_mediterranean": Source("ancientmediterranean", {}),
    "cold_war": Source("coldwar", {}),
    "youngstown_redux": Source("youngstownredux", {}),
    "north_sea_wars": Source("northseawars", {}),
    "empires_and_coalitions": Source("empiresandcoalitions", {}, powers=(("OTTOMANEMPIRE", "OTTOMAN"),)),
    "twenty_twenty": Source("twentytwenty", {}),
    "year_1908": Source("year1908", {}),
    "canton": Source("canton", {}),
    "classical_crowded": Source("classicalcrowded", CLASSICAL),
    "western_world_901": Source("westernworld901", {}, powers=(
        ("ABBASIDCALIPHATE", "ABBASID"), ("EASTFRANKISHKINGDOM", "EASTFRANKS"), ("EASTERNROMANEMPIRE", "BYZANTIUM"),
        ("KHAGANATEOFKHAZARIA", "KHAZARIA"), ("KINGDOMOFDENMARK", "DENMARK"), ("PRINCIPALITYOFKIEV", "KIEV"),
        ("TULUNIDEMIRATE", "TULUNID"), ("UMAYYADEMIRATE", "UMAYYAD"), ("WESTFRANKISHKINGDOM", "WESTFRANKS"))),
}


@cache
def facts(variant: str) -> dict[str, Any]:
    return json.loads((SOURCES_DIR / f"godip_{variant}.json").read_text(encoding="utf-8"))


def _ours(location: str, renames: dict[str, str]) -> str:
    province, slash, coast = location.upper().partition("/")
    return renames.get(province, province) + slash + coast


def godip_moves(doc: dict[str, Any], renames: dict[str, str]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Army moves (province -> provinces) and fleet moves (location -> locations) as godip
    allows them: an edge from A to B carrying the unit's flag (Land, Sea), into a node that
    carries it too."""
    nodes, edges = doc["provinces"], doc["edges"]

    def moves(kind: str, origin: str) -> set[str]:
        return {_ours(target, renames) for target, flags in edges.get(origin, {}).items()
                if kind in flags and kind in nodes.get(target, {}).get("flags", ())}

    army = {_ours(loc, renames): moves("Land", loc) for loc, node in nodes.items()
            if "Land" in node["flags"] and "/" not in loc}
    fleet = {_ours(loc, renames): moves("Sea", loc) for loc, node in nodes.items() if "Sea" in node["flags"]}
    return army, fleet


def _power_key(name: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", name.upper())


@pytest.fixture(scope="module", params=sorted(GODIP))
def pair(request) -> tuple[Variant, dict[str, Any], Source]:
    source = GODIP[request.param]
    return maps.load(request.param), facts(source.variant), source


def test_every_shipped_map_has_a_source():
    assert set(maps.available()) <= set(GODIP) | set(PEERS)


def test_the_source_is_named(pair):
    _, doc, source = pair
    assert doc["source"] == "https://github.com/zond/godip" and re.fullmatch(r"[0-9a-f]{40}", doc["commit"])
    assert all(f.startswith("variants/") for f in doc["files"])


def test_same_provinces_and_centres(pair):
    variant, doc, source = pair
    assert {_ours(loc, source.renames).split("/")[0] for loc in doc["provinces"]} == set(variant.provinces)
    assert {_ours(p, source.renames) for p, node in doc["provinces"].items() if "sc" in node} == variant.supply_centers
    coasts = {p: {c for c in doc["provinces"] if c.startswith(p + "/")} for p in doc["provinces"] if "/" not in p}
    assert {_ours(p, source.renames): {_ours(c, source.renames).split("/")[1] for c in cs}
            for p, cs in coasts.items() if cs} == {p: set(d.coasts) for p, d in variant.provinces.items() if d.coasts}


def test_every_army_move(pair):
    """Each ordered pair of provinces an army could stand on: a move of ours is legal iff godip's is."""
    variant, doc, source = pair
    army, _ = godip_moves(doc, source.renames)
    land = [p for p, d in variant.provinces.items() if d.terrain is not Terrain.SEA]
    wrong = [(a, b) for a in land for b in land if a != b and (b in variant.army_moves[a]) != (b in army.get(a, ()))]
    assert not wrong, f"army moves that differ from godip's {source.variant}: {wrong}"


def test_every_fleet_move(pair):
    """Each ordered pair of locations a fleet could stand on (coasts apart): ours iff godip's."""
    variant, doc, source = pair
    _, fleet = godip_moves(doc, source.renames)
    locations = sorted(set(variant.fleet_moves) | set(fleet))
    wrong = [(a, b) for a in locations for b in locations if a.split("/")[0] != b.split("/")[0]
             and (b in variant.fleet_moves.get(a, ())) != (b in fleet.get(a, ()))]
    assert not wrong, f"fleet moves that differ from godip's {source.variant}: {wrong}"


def test_same_powers_homes_and_units(pair):
    variant, doc, source = pair
    units = {**doc["units"], **dict(source.units_by_code)}
    owners = ({province: node["sc"] for province, node in doc["provinces"].items() if node.get("sc")}
              if source.centres_owned_by_code else doc["owners"])
    ours = {p.name: ({*p.home_centers}, {str(u) for u in p.starting_units}, set(p.home_centers) - set(p.claims))
            for p in variant.powers}
    renamed = dict(source.powers)

    def power(nation: str) -> tuple[set[str], set[str], set[str]]:
        key = _power_key(nation)
        return theirs.setdefault(renamed.get(key, key), (set(), set(), set()))

    theirs: dict[str, tuple[set[str], set[str], set[str]]] = {}
    for province, node in doc["provinces"].items():  # a power's home centres: the graph's
        if node.get("sc", "Neutral") != "Neutral":
            power(node["sc"])[0].add(_ours(province, source.renames))
    for location, (kind, nation) in units.items():
        power(nation)[1].add(f"{kind[0]} {_ours(location, source.renames)}")
    for province, nation in owners.items():  # the centres it owns at the start
        if nation != "Neutral":
            power(nation)[2].add(_ours(province, source.renames))
    assert ours == theirs
