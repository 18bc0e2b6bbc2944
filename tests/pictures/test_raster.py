"""The PNG drawn from the picture's own element tree (pictures/raster.py) is the picture
CairoSVG draws from the SVG text: the same pixels, on scenes with every kind of order."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image, ImageChops

import maps
from adjudicator import api
from adjudicator.types import Variant
from pictures import draw_svg, png, raster, svg_to_png, tree_to_png
from pictures.scene import Scene, scene_of_position
from pictures.svg import draw_tree, svg_text
from tests.pictures.scenes import ADJUSTMENT, MOVEMENT, RETREAT, adjudicated

#: A pixel may differ by this much in a channel (cairo's rounding), and only so few pixels.
CHANNEL_TOLERANCE = 8
SHARE_TOLERANCE = 0.001


def _start(name: str) -> tuple[Variant, Scene]:
    variant = maps.load(name)
    return variant, scene_of_position(variant, api.initial_position(variant))


def _standard(doc: dict) -> tuple[Variant, Scene]:
    variant = maps.load("standard")
    return variant, adjudicated(variant, doc)[0]


def _differing_share(first: Image.Image, second: Image.Image) -> float:
    """The share of pixels where some channel differs by more than the tolerance."""
    difference = ImageChops.difference(first, second).convert("L").point(lambda v: 255 if v > CHANNEL_TOLERANCE else 0)
    return difference.histogram()[255] / (first.width * first.height)


@pytest.mark.parametrize(("scene_of", "scale"), [
    (lambda: _standard(MOVEMENT), 1.0),  # moves, supports, a convoy, a bounce, a dislodged unit
    (lambda: _standard(RETREAT), 0.73),  # a retreat, a disbanded unit (faded: a group's opacity)
    (lambda: _standard(ADJUSTMENT), 1.0),  # builds, a removal
    (lambda: _start("chaos"), 0.6),  # 34 powers: initials on the units
    (lambda: _start("twenty_twenty"), 0.38),  # links between provinces that do not touch, as mailed
], ids=["movement", "retreat", "adjustment", "chaos", "twenty_twenty"])
def test_the_direct_drawing_is_cairosvgs_drawing_of_the_svg(scene_of, scale: float) -> None:
    variant, scene = scene_of()
    tree = draw_tree(variant, maps.load_geometry(variant.name), scene)
    direct, texts = raster.draw(tree, scale)
    by_cairosvg, texts_by_cairosvg = png._draw_by_cairosvg(png._TITLE.sub("", svg_text(tree)), scale)
    assert direct.size == by_cairosvg.size
    assert texts == texts_by_cairosvg and texts  # the same letters left to FreeType
    assert _differing_share(direct, by_cairosvg) <= SHARE_TOLERANCE
    # and it is a picture, not a blank: the board's colours are in it
    assert len(direct.getcolors(1 << 20) or ()) > 20


@pytest.mark.parametrize("name", maps.available())
def test_every_maps_picture_is_drawn_without_cairosvg(name: str) -> None:
    variant, scene = _start(name)
    image, texts = raster.draw(draw_tree(variant, maps.load_geometry(name), scene), 0.25)
    assert image.mode == "RGB" and len(texts) >= len(variant.provinces)


def test_the_svg_text_and_the_tree_give_the_same_png() -> None:
    variant, scene = _standard(MOVEMENT)
    tree = draw_tree(variant, maps.load_geometry("standard"), scene)
    assert svg_text(tree) == draw_svg(variant, maps.load_geometry("standard"), scene)
    assert tree_to_png(tree, scale=0.5) == svg_to_png(svg_text(tree), scale=0.5)


CURVED = """<svg xmlns="http://www.w3.org/2000/svg" width="60" height="40">
<rect x="0" y="0" width="60" height="40" fill="#ffffff"/>
<path d="M5,35 C15,0 45,0 55,35" fill="none" stroke="#d01010" stroke-width="3"/></svg>"""


@pytest.mark.parametrize("svg", [
    CURVED,  # a curve
    CURVED.replace('<path d="M5,35 C15,0 45,0 55,35"', '<path transform="rotate(10)" d="M5,35 L55,35"'),
    CURVED.replace('stroke-width="3"', 'stroke-width="3mm"'),  # a unit on a length
], ids=["curve", "transform", "unit"])
def test_an_svg_outside_what_we_write_is_left_to_cairosvg(svg: str) -> None:
    with pytest.raises(raster.Unsupported):
        raster.draw(ET.fromstring(svg), 1.0)
    image = Image.open(io.BytesIO(svg_to_png(svg))).convert("RGB")
    assert image.size == (60, 40)
    pixels = [image.getpixel((x, y)) for x in range(60) for y in range(40)]
    reds = sum(1 for pixel in pixels if isinstance(pixel, tuple) and pixel[0] > 150 > pixel[1])
    assert reds > 30  # the red line is drawn all the same


def test_an_svg_inside_the_picture_is_left_to_cairosvg() -> None:
    inner = '<svg x="10" width="20" height="20"><rect width="5" height="5"/></svg>'
    nested = CURVED.replace('<path d="M5,35 C15,0 45,0 55,35"', f'{inner}<path d="M5,35 L55,35"')
    with pytest.raises(raster.Unsupported):
        raster.draw(ET.fromstring(nested), 1.0)
