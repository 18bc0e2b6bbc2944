"""The SVG's texts, written by FreeType onto the PNG: the same words, where the SVG puts them."""

from __future__ import annotations

import io

from PIL import Image

import maps
from adjudicator import api
from pictures import draw_svg, lettering, palette, svg_to_png
from pictures.scene import scene_of_position

SMALL = """<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60">
<rect x="0" y="0" width="120" height="60" fill="#ffffff"/>
<g font-family="DejaVu Sans" text-anchor="middle" fill="#1b1b1b" opacity="0.5">
<text x="30" y="20" font-size="10">ABC</text><text x="30" y="40" font-size="7" font-style="italic">NC</text></g>
<text x="70" y="50" font-size="15" font-weight="bold" fill="#d01010">A &amp; B</text></svg>"""


def test_the_texts_are_taken_out_with_what_they_inherit() -> None:
    board, texts = lettering.split(SMALL)
    assert "<text" not in board and "<rect" in board
    first, coast, title = texts
    assert (first.text, first.x, first.y, first.size, first.anchor, first.fill, first.opacity) == \
        ("ABC", 30.0, 20.0, 10.0, "ms", "#1b1b1b", 0.5)
    assert coast.italic and not coast.bold and coast.size == 7.0
    assert (title.text, title.bold, title.anchor, title.fill, title.opacity) == ("A & B", True, "ls", "#d01010", 1.0)


def test_a_text_with_parts_is_left_to_cairosvg() -> None:
    svg = SMALL.replace(">ABC<", "><tspan>ABC</tspan><")
    assert lettering.split(svg) == (svg, ())


def test_a_label_is_written_at_its_place_in_the_png() -> None:
    variant, geometry = maps.load("standard"), maps.load_geometry("standard")
    svg = draw_svg(variant, geometry, scene_of_position(variant, api.initial_position(variant)))
    image = Image.open(io.BytesIO(svg_to_png(svg))).convert("RGB")
    ink = palette.to_rgb(palette.INK)
    for abbrev in ("NAO", "BUR", "MOS"):
        x, y = geometry.provinces[abbrev].label
        box = [image.getpixel((round(x) + dx, round(y) + dy)) for dx in range(-10, 11) for dy in range(-4, 5)]
        dark = [p for p in box if all(abs(a - b) <= 40 for a, b in zip(p, ink))]
        assert len(dark) >= 15, abbrev  # the letters' strokes, in ink
    # above the letters, the land's own colour (to the palette's rounding): no stray ink
    x, y = geometry.provinces["BUR"].label
    above = image.getpixel((round(x), round(y) - 12))
    assert all(abs(a - b) <= 3 for a, b in zip(above, palette.to_rgb(palette.LAND)))


def test_a_text_set_once_is_written_as_pillow_writes_it_at_any_fraction_of_a_pixel() -> None:
    from PIL import ImageChops, ImageDraw

    for x, y, size, anchor in ((30.0, 20.0, 10.0, "ms"), (41.37, 17.82, 3.78, "ls"), (-2.6, 8.25, 15.0, "rs"),
                               (97.5, 39.9, 6.5, "ms")):
        item = lettering.Lettering(x, y, "MOS & NC", size, True, False, anchor, "#d01010", 1.0)
        expected = Image.new("RGB", (100, 40), palette.to_rgb(palette.LAND))
        ImageDraw.Draw(expected, "RGBA").text((x, y), item.text, font=lettering._font(True, False, size),
                                              fill=(208, 16, 16, 255), anchor=anchor)
        for _ in range(2):  # set, then taken from the cache
            written = Image.new("RGB", (100, 40), palette.to_rgb(palette.LAND))
            lettering.write(written, (item,), 1.0)
            assert ImageChops.difference(written, expected).getbbox() is None, (x, y, size, anchor)
