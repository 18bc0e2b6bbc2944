"""svg_to_png for mail: a palette PNG, drawn smaller only when it must be to fit."""

from __future__ import annotations

import io
import math

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


def test_a_picture_drawn_smaller_is_not_much_smaller_than_the_cap_asks(monkeypatch):
    from pictures import png, raster

    png._FITTED.clear()  # no scale remembered from an earlier picture of this frame
    scales: list[float] = []
    real_draw = raster.draw
    monkeypatch.setattr(raster, "draw", lambda root, scale: scales.append(scale) or real_draw(root, scale))
    fitted = svg_to_png(_start("twenty_twenty"), max_bytes=68_000, max_pixels=1_100_000)
    assert 0.8 * 68_000 <= len(fitted) <= 68_000  # as big as the cap allows, less a margin
    assert len(scales) <= 3 and scales == sorted(scales, reverse=True)  # each try smaller, few tries
    png._FITTED.clear()


def test_the_next_scale_follows_the_sizes_measured():
    from pictures.png import FIT_SHARE, SIZE_EXPONENT, _smaller

    once = _smaller([(1.0, 144_000)], 72_000)
    assert once == (FIT_SHARE * 0.5) ** (1 / SIZE_EXPONENT)
    # two tries measure the exponent: the bytes halved when the scale went from 1 to 0.6
    twice = _smaller([(1.0, 160_000), (0.6, 80_000)], 72_000)
    exponent = math.log(2) / math.log(1 / 0.6)
    assert abs(twice - 0.6 * (FIT_SHARE * 72_000 / 80_000) ** (1 / exponent)) < 1e-12
    assert twice < 0.6
