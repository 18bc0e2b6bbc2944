"""Pictures of every shipped map's start, and of phases with every kind of order."""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

import maps
from adjudicator import api
from adjudicator.types import Terrain
from pictures import draw_svg, palette, svg_to_png, voronoi
from pictures.geometry import Geometry
from pictures.scene import scene_of_position
from pictures.svg import UNIT_RADIUS, picture_size
from tests.pictures.scenes import ADJUSTMENT, MOVEMENT, RETREAT, adjudicated

SVG = "{http://www.w3.org/2000/svg}"


def _classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


def _with_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if name in _classes(e)]


def _clear_point(geometry: Geometry, abbrev: str) -> tuple[int, int] | None:
    """A pixel inside ``abbrev``'s shape, away from its unit, label, marks and border."""
    shape = geometry.provinces[abbrev]
    marks = [p for s in geometry.provinces.values() for p in (s.unit, s.label, s.dislodged, *([s.supply] if s.supply else []),
                                                              *s.coasts.values(), *s.coast_labels.values())]
    links = list(geometry.link_lines.values())
    for part in sorted(shape.parts, key=lambda p: -len(p)):
        xs, ys = [p[0] for p in part], [p[1] for p in part]
        for x in range(int(min(xs)), int(max(xs)) + 1, 2):
            for y in range(int(min(ys)), int(max(ys)) + 1, 2):
                if (voronoi.contains(part, (x, y)) and all(math.dist((x, y), mark) > 16 for mark in marks)
                        and all(_to_segment((x, y), part[i], part[(i + 1) % len(part)]) > 5 for i in range(len(part)))
                        and all(_to_segment((x, y), start, end) > 4 for start, end in links)):
                    return x, y
    return None  # a province too small for one


def _to_segment(point: tuple[float, float], start: tuple[float, float], end: tuple[float, float]) -> float:
    dx, dy = end[0] - start[0], end[1] - start[1]
    length2 = dx * dx + dy * dy
    share = 0.0 if length2 == 0 else max(0.0, min(1.0, ((point[0] - start[0]) * dx + (point[1] - start[1]) * dy) / length2))
    return math.dist(point, (start[0] + share * dx, start[1] + share * dy))


def _pixel(png: bytes, point: tuple[int, int]) -> tuple[int, int, int]:
    return Image.open(io.BytesIO(png)).convert("RGB").getpixel(point)


def _near(actual: tuple[int, int, int], colour: str) -> bool:
    return all(abs(a - e) <= 3 for a, e in zip(actual, palette.to_rgb(colour)))


@pytest.mark.parametrize("name", maps.available())
def test_every_map_starts_with_one_glyph_per_unit_and_its_owners_colours(name: str) -> None:
    variant = maps.load(name)
    geometry = maps.load_geometry(name)
    position = api.initial_position(variant)
    svg = draw_svg(variant, geometry, scene_of_position(variant, position))
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    glyphs = _with_class(root, "unit")
    assert len(glyphs) == len(position.units)
    assert sorted(g.get("data-power") for g in glyphs) == sorted(u.power for u in position.units)
    assert len(_with_class(root, "province")) == len(variant.provinces)

    png = svg_to_png(svg)
    image = Image.open(io.BytesIO(png))
    colours = palette.power_colors([p.name for p in variant.powers], geometry.colors)
    width, height = picture_size(variant, geometry)
    assert image.format == "PNG" and image.size == (round(width), round(height)) and height > geometry.height
    keys = _with_class(root, "key")
    assert [k.get("data-power") for k in keys] == [p.name for p in variant.powers]
    assert all(k.get("fill") == colours[k.get("data-power")] for k in keys)
    for power in variant.powers:
        centre, point = next((c, p) for c in sorted(position.centers[power.name]) if (p := _clear_point(geometry, c)))
        assert _near(_pixel(png, point), palette.tint(colours[power.name])), (power.name, centre)
    owned = {c for centres in position.centers.values() for c in centres}
    seas = [a for a, p in sorted(variant.provinces.items()) if p.terrain is Terrain.SEA]
    lands = [a for a, p in sorted(variant.provinces.items()) if p.terrain is not Terrain.SEA and a not in owned]
    for provinces, colour in ((seas, palette.SEA), (lands, palette.LAND)):
        clear = [(a, p) for a in provinces[:6] if (p := _clear_point(geometry, a))]
        assert clear or not provinces  # (pure has no sea)
        for abbrev, point in clear[:1]:
            assert _near(_pixel(png, point), colour), abbrev


def _order_groups(svg: str) -> dict[str, list[set[str]]]:
    groups: dict[str, list[set[str]]] = {}
    for element in _with_class(ET.fromstring(svg), "order"):
        classes = _classes(element)
        groups.setdefault(element.get("data-location", ""), []).append(classes)
    return groups


def test_a_movement_phase_draws_each_order_by_its_result() -> None:
    variant, geometry = maps.load("standard"), maps.load_geometry("standard")
    scene, outcome = adjudicated(variant, MOVEMENT)
    results = {o.location: o.result for o in scene.orders}
    assert {"moves", "bounce", "supports", "cut", "convoys", "dislodged", "void"} <= set(results.values())
    svg = draw_svg(variant, geometry, scene)
    root = ET.fromstring(svg)
    units = _with_class(root, "unit")
    assert len(units) == len(outcome.position.units) + len(outcome.dislodged) == 12
    assert [u.get("data-power") for u in _with_class(root, "dislodged")] == ["GERMANY"]
    groups = _order_groups(svg)
    assert groups["PAR"] == [{"order", "move"}]
    assert groups["YOR"] == [{"order", "move"}]
    assert groups["NTH"] == [{"order", "convoy"}]
    assert groups["MAR"] == [{"order", "support_move"}]
    assert groups["LON"] == [{"order", "support_hold"}]
    assert groups["MUN"] == [{"order", "support_hold", "failed"}]  # cut
    assert groups["KIE"] == [{"order", "move", "failed"}]  # bounced
    assert groups["BUR"] == [{"order", "hold", "failed"}]  # dislodged
    assert groups["VEN"] == [{"order", "hold"}, {"order", "move", "failed"}]  # void A VEN - MOS, so it holds
    failed_moves = [g for g in _with_class(root, "order") if {"move", "failed"} <= _classes(g)]
    assert all(len(_with_class(g, "cross")) == 1 for g in failed_moves)


def test_a_retreat_phase_draws_the_retreat_from_beside_the_province_and_crosses_the_disband() -> None:
    variant, geometry = maps.load("standard"), maps.load_geometry("standard")
    scene, outcome = adjudicated(variant, RETREAT)
    assert sorted(r.result for r in outcome.results) == ["disbanded", "retreats"]
    root = ET.fromstring(draw_svg(variant, geometry, scene))
    assert len(_with_class(root, "unit")) == len(outcome.position.units) == 5
    (retreat,) = _with_class(root, "retreat")
    line = retreat.find(f"{SVG}line")
    assert line is not None
    start = (float(line.get("x1", 0)), float(line.get("y1", 0)))
    assert math.dist(start, geometry.provinces["MUN"].dislodged) <= UNIT_RADIUS + 0.1  # from the dislodged unit's own spot
    (disband,) = _with_class(root, "disband")
    assert len(_with_class(disband, "cross")) == 1


def test_an_adjustment_phase_rings_builds_crosses_removals_and_recolours_centres() -> None:
    variant, geometry = maps.load("standard"), maps.load_geometry("standard")
    scene, outcome = adjudicated(variant, ADJUSTMENT)
    assert sorted(r.result for r in outcome.results) == ["builds", "builds", "removes", "waived"]
    svg = draw_svg(variant, geometry, scene)
    root = ET.fromstring(svg)
    assert len(_with_class(root, "unit")) == len(outcome.position.units) == 7
    assert len(_with_class(root, "build")) == 2 and len(_with_class(root, "disband")) == 1
    assert not _with_class(root, "waive")
    colours = palette.power_colors([p.name for p in variant.powers], geometry.colors)
    png = svg_to_png(svg)
    munich, burgundy = _clear_point(geometry, "MUN"), _clear_point(geometry, "BUR")
    assert munich and burgundy
    assert _near(_pixel(png, munich), palette.tint(colours["FRANCE"]))
    assert _near(_pixel(png, burgundy), palette.LAND)
    munich_mark = next(e for e in _with_class(root, "centre") if e.get("data-province") == "MUN")
    assert munich_mark.get("data-owner") == "FRANCE"
