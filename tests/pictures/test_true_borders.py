"""Pictures whose borders are true: provinces touch where the map makes them adjacent,
and only there; a drawn link where adjacent provinces could not be made to touch."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from functools import lru_cache
from itertools import combinations

import pytest

import maps
from adjudicator import api
from adjudicator.types import Terrain
from pictures import draw_svg
from pictures.geometry import Geometry
from pictures.layout import province_graph
from pictures.scene import scene_of_position

SVG = "{http://www.w3.org/2000/svg}"
SEEN = 7.0  # a shared edge at least this long is a border a player sees (the generator aims at 8)
Edge = tuple[tuple[float, float], tuple[float, float]]


def _edges(geometry: Geometry, abbrev: str) -> list[Edge]:
    return [(part[i], part[(i + 1) % len(part)]) for part in geometry.provinces[abbrev].parts for i in range(len(part))]


def _box(edges: list[Edge]) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) around the edges."""
    return (min(min(p[0], q[0]) for p, q in edges), min(min(p[1], q[1]) for p, q in edges),
            max(max(p[0], q[0]) for p, q in edges), max(max(p[1], q[1]) for p, q in edges))


def _overlap(first: Edge, second: Edge) -> float:
    """How long two segments run together (collinear within the files' rounding)."""
    (x0, y0), (x1, y1) = first
    length = math.hypot(x1 - x0, y1 - y0)
    if length < 1e-9:
        return 0.0
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    offsets = [abs((px - x0) * uy - (py - y0) * ux) for px, py in second]
    if max(offsets) > 0.25:
        return 0.0
    along = sorted((px - x0) * ux + (py - y0) * uy for px, py in second)
    return max(0.0, min(length, along[1]) - max(0.0, along[0]))


@lru_cache(maxsize=None)
def _shared(name: str) -> dict[frozenset[str], float]:
    """Length of the boundary each pair of provinces shares, measured on the outlines."""
    geometry = maps.load_geometry(name)
    edges = {a: _edges(geometry, a) for a in geometry.provinces}
    boxes = {a: _box(e) for a, e in edges.items()}
    shared: dict[frozenset[str], float] = {}
    for a, b in combinations(sorted(edges), 2):
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = boxes[a], boxes[b]
        if ax0 > bx1 + 1 or bx0 > ax1 + 1 or ay0 > by1 + 1 or by0 > ay1 + 1:
            continue
        total = sum(_overlap(e, f) for e in edges[a] for f in edges[b])
        if total > 0:
            shared[frozenset((a, b))] = total
    return shared


@pytest.mark.parametrize("name", maps.available())
def test_provinces_share_a_border_if_and_only_if_adjacent_else_a_link_is_drawn(name: str) -> None:
    variant, geometry = maps.load(name), maps.load_geometry(name)
    graph = province_graph(variant)
    adjacent = {frozenset((a, b)) for a in graph for b in graph[a]}
    shared = _shared(name)
    strangers = {pair: length for pair, length in shared.items() if pair not in adjacent and length > 0.5}
    assert not strangers, f"borders drawn between provinces that are not adjacent: {strangers}"
    links = {frozenset(pair) for pair in geometry.links}
    hidden = {pair for pair in adjacent if shared.get(pair, 0.0) < SEEN and pair not in links}
    assert not hidden, f"adjacent provinces with neither a border nor a link: {hidden}"
    assert links <= adjacent
    root = ET.fromstring(draw_svg(variant, geometry, scene_of_position(variant, api.initial_position(variant))))
    drawn = [e for e in root.iter(f"{SVG}line") if e.get("class") == "link"]
    assert {frozenset(e.get("data-provinces", "").split()) for e in drawn} == links and len(drawn) == len(links)


def test_the_standard_maps_borders_are_the_ones_players_named() -> None:
    shared = _shared("standard")
    for pair in ("BUR MUN", "BUR RUH", "NAO NWG", "LVP NAO", "LVP IRI", "ENG LON", "SPA MAO"):
        assert shared.get(frozenset(pair.split()), 0.0) >= SEEN, pair
    for pair in ("BUR PIE", "LON PIC", "LON HOL", "PAR MAR", "SWE STP"):
        assert shared.get(frozenset(pair.split()), 0.0) == 0.0, pair


@pytest.mark.parametrize("name", maps.available())
def test_each_province_holds_its_units_and_is_named_on_hover(name: str) -> None:
    variant, geometry = maps.load(name), maps.load_geometry(name)
    for abbrev, shape in geometry.provinces.items():
        for point in (shape.unit, *shape.coasts.values()):
            assert shape.contains(point), (abbrev, point)
    root = ET.fromstring(draw_svg(variant, geometry, scene_of_position(variant, api.initial_position(variant))))
    shapes = [e for e in root.iter(f"{SVG}path") if e.get("class") == "province"]
    assert sorted(e.get("data-province") for e in shapes) == sorted(variant.provinces)
    for element in shapes:
        title = element.find(f"{SVG}title")
        assert title is not None and title.text == variant.provinces[element.get("data-province", "")].name


@pytest.mark.parametrize("name", maps.available())
def test_the_shore_is_drawn_where_land_meets_a_sea_it_borders_and_split_coasts_are_named(name: str) -> None:
    variant, geometry = maps.load(name), maps.load_geometry(name)
    seas = {a for a, p in variant.provinces.items() if p.terrain is Terrain.SEA}
    graph = province_graph(variant)
    edges = {a: _edges(geometry, a) for a in geometry.provinces}
    boxes = {a: _box(e) for a, e in edges.items()}
    for x0, y0, x1, y1 in geometry.shore:
        segment = ((x0, y0), (x1, y1))
        if math.dist(*segment) < 3:
            continue  # too short to tell its two sides apart at the files' rounding
        near = [a for a, (left, top, right, bottom) in boxes.items()
                if left - 1 <= min(x0, x1) and max(x0, x1) <= right + 1 and top - 1 <= min(y0, y1) and max(y0, y1) <= bottom + 1]
        touching = [a for a in near if any(_overlap(segment, f) > 0.5 for f in edges[a])]
        assert len(touching) == 2 and len(seas & set(touching)) == 1, (segment, touching)
        assert touching[1] in graph[touching[0]]
    coastal = {a for a in variant.provinces if a not in seas and graph[a] & seas}
    assert bool(geometry.shore) == bool(coastal and seas)
    root = ET.fromstring(draw_svg(variant, geometry, scene_of_position(variant, api.initial_position(variant))))
    named = {(e.get("data-province"), e.text) for e in root.iter(f"{SVG}text") if e.get("class") == "coast"}
    assert named == {(a, c) for a, p in variant.provinces.items() for c in p.coasts}
