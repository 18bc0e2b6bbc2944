"""Readable pictures: no label covered, a key for the order symbols, removals and
dislodgements that show the unit."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest
from PIL import ImageFont

import maps
from pictures import draw_svg
from pictures.svg import SYMBOLS
from tests.pictures.scenes import ADJUSTMENT, MOVEMENT, RETREAT, adjudicated

SVG = "{http://www.w3.org/2000/svg}"
FONTS = "/usr/share/fonts/truetype/dejavu/"
GLYPH = 12.2  # every unit glyph lies within this of its point (a fleet's hull: 12 wide)
CENTRE = 5.6  # a supply-centre mark, its outline included


def _box(font: ImageFont.FreeTypeFont, text: str, x: float, baseline: float, size: float) -> tuple[float, float, float, float]:
    """The ink of a label as the SVG places it (centred, at ``baseline``), measured with the font."""
    left, top, right, bottom = font.getbbox(text, anchor="ls")
    width = right - left
    return (x - width / 2, baseline + top, x + width / 2, baseline + bottom)


def _hits_circle(box: tuple[float, float, float, float], centre: tuple[float, float], radius: float) -> bool:
    x = min(max(centre[0], box[0]), box[2])
    y = min(max(centre[1], box[1]), box[3])
    return math.dist((x, y), centre) < radius


def _hits_box(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("name", maps.available())
def test_no_label_is_covered_by_a_unit_a_mark_or_another_label(name: str) -> None:
    geometry = maps.load_geometry(name)
    regular = ImageFont.truetype(FONTS + "DejaVuSans.ttf", 10)
    italic = ImageFont.truetype(FONTS + "DejaVuSans-Oblique.ttf", 7)
    circles = []
    boxes = []
    for abbrev, shape in geometry.provinces.items():
        circles += [(p, GLYPH, abbrev) for p in (shape.unit, shape.dislodged, *shape.coasts.values())]
        circles += [(shape.supply, CENTRE, abbrev)] if shape.supply else []
        boxes.append((_box(regular, abbrev, shape.label[0], shape.label[1] + 3.5, 10), abbrev))
        boxes += [(_box(italic, coast, p[0], p[1] + 2.5, 7), f"{abbrev}/{coast}") for coast, p in shape.coast_labels.items()]
    covered = [(label, owner) for box, label in boxes for point, radius, owner in circles if _hits_circle(box, point, radius)]
    assert not covered, f"labels under a unit's place or a centre mark: {covered[:10]}"
    crossing = [(a, b) for i, (box, a) in enumerate(boxes) for other, b in boxes[i + 1:] if _hits_box(box, other)]
    assert not crossing, f"labels over labels: {crossing[:10]}"


@pytest.mark.parametrize("name", maps.available())
def test_a_dislodged_unit_has_a_place_of_its_own(name: str) -> None:
    for abbrev, shape in maps.load_geometry(name).provinces.items():
        for place in (shape.unit, *shape.coasts.values()):
            assert math.dist(place, shape.dislodged) >= 1.8 * GLYPH, abbrev  # glyphs are rounder than their reach


def _layers(root: ET.Element) -> list[str]:
    return [g.get("id", "") for g in root.findall(f"{SVG}g")]


def test_labels_are_drawn_over_orders_and_units_and_the_key_explains_every_symbol() -> None:
    variant, geometry = maps.load("standard"), maps.load_geometry("standard")
    scene, _ = adjudicated(variant, MOVEMENT)
    root = ET.fromstring(draw_svg(variant, geometry, scene))
    layers = _layers(root)
    assert layers.index("labels") > layers.index("units") > layers.index("orders")
    legend = [g for g in root.iter(f"{SVG}g") if g.get("class") == "legend"]
    assert [g.get("data-symbol") for g in legend] == [symbol for symbol, _ in SYMBOLS]
    for group, (_, caption) in zip(legend, SYMBOLS):
        texts = [t.text for t in group.iter(f"{SVG}text")]
        assert caption in texts and len(list(group)) >= 2  # a symbol and its caption
        ys = [float(e.get(k, "0")) for e in group.iter() for k in ("y", "cy", "y1") if e.get(k)]
        assert min(ys) > geometry.height  # below the map, covering none of it
    title = next(t for t in root.iter(f"{SVG}text") if t.get("class") == "title")
    assert title.text == scene.title and float(title.get("y", "0")) > geometry.height


def test_a_dislodged_unit_stands_apart_from_its_attacker() -> None:
    variant, geometry = maps.load("standard"), maps.load_geometry("standard")
    scene, _ = adjudicated(variant, MOVEMENT)
    root = ET.fromstring(draw_svg(variant, geometry, scene))
    (dislodged,) = [e for e in root.iter() if "dislodged" in e.get("class", "").split()]
    (entry,) = scene.dislodged
    spot = geometry.provinces[entry.unit.location].dislodged
    assert (float(dislodged.get("cx", "0")), float(dislodged.get("cy", "0"))) == pytest.approx(spot, abs=0.05)
    attacker = geometry.point(entry.unit.location)
    assert math.dist(spot, attacker) >= 2 * GLYPH - 0.5
    title = dislodged.find(f"{SVG}title")
    assert title is not None and "dislodged" in (title.text or "")


@pytest.mark.parametrize("phase", [RETREAT, ADJUSTMENT], ids=["disbanded", "removed"])
def test_a_unit_removed_or_disbanded_is_drawn_faded_under_its_cross(phase: dict) -> None:
    variant, geometry = maps.load("standard"), maps.load_geometry("standard")
    scene, outcome = adjudicated(variant, phase)
    root = ET.fromstring(draw_svg(variant, geometry, scene))
    (disband,) = [g for g in root.iter(f"{SVG}g") if "disband" in g.get("class", "").split()]
    ghosts = [g for g in disband.iter(f"{SVG}g") if g.get("class") == "removed"]
    (order,) = [o for o in scene.orders if o.kind == "disband"]
    assert len(ghosts) == 1 and ghosts[0].get("data-power") == order.power and float(ghosts[0].get("opacity", "1")) < 1
    crosses = [e for e in disband.iter() if e.get("class") == "cross"]
    assert len(crosses) == 1
    units_left = [e for e in root.iter() if "unit" in e.get("class", "").split()]
    assert len(units_left) == len(outcome.position.units)  # the removed unit is not counted among them
