"""svg_to_png for mail: a palette PNG, drawn smaller only when it must be to fit."""

from __future__ import annotations

import io

from PIL import Image

import maps
from adjudicator import api
from pictures import draw_svg, svg_to_png
from pictures.scene import scene_of_position
from pictures.svg import picture_size


def _start(name: str) -> str:
    variant = maps.load(name)
    return draw_svg(variant, maps.load_geometry(name), scene_of_position(variant, api.initial_position(variant)))


def test_a_big_map_is_drawn_smaller_to_fit_and_a_small_one_is_not():
    big = _start("youngstown_redux")
    whole = Image.open(io.BytesIO(full := svg_to_png(big)))
    assert whole.mode == "P" and len(full) > 68_000  # 256 colours, at its own size
    fitted = svg_to_png(big, max_bytes=68_000, max_pixels=1_100_000)
    image = Image.open(io.BytesIO(fitted))
    assert len(fitted) <= 68_000 and image.width < whole.width
    assert abs(image.width / image.height - whole.width / whole.height) < 0.01  # the same picture, smaller

    small = _start("north_sea_wars")
    kept = Image.open(io.BytesIO(svg_to_png(small, max_bytes=68_000, max_pixels=1_100_000)))
    width, height = picture_size(maps.load("north_sea_wars"), maps.load_geometry("north_sea_wars"))
    assert kept.size == (round(width), round(height))
