"""An SVG's ``<text>`` elements written onto its drawn image with FreeType (Pillow).

CairoSVG sets text one glyph at a time in Python (a font lookup and a measure per
character): on a map of 200 provinces, the labels cost more than the whole board.  The
picture's texts are therefore written here, in C, with the DejaVu Sans faces the SVG
names first: the same letters at the same places (the SVG's own ``x``/``y``, size,
weight, style, anchor, colour and opacity).  ``pictures.raster`` collects them while it
draws (``of``); for an SVG that CairoSVG draws, ``split`` takes them out first.  The
texts are drawn last, above everything: the pictures' labels are their top layer, and a
power's initials sit on its unit.  Each text's coverage is set once and kept (``_mask``):
a judge writes the same labels at the same places phase after phase.  Where the DejaVu
files are not installed, CairoSVG draws the texts itself.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image
    from PIL.ImageFont import FreeTypeFont

FONTS = Path("/usr/share/fonts/truetype/dejavu")
_FACES = {(False, False): "DejaVuSans.ttf", (True, False): "DejaVuSans-Bold.ttf",
          (False, True): "DejaVuSans-Oblique.ttf", (True, True): "DejaVuSans-BoldOblique.ttf"}
_INHERITED = ("font-size", "font-weight", "font-style", "text-anchor", "fill")
_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}  # Pillow's: horizontal, then the baseline
_SVG = "{http://www.w3.org/2000/svg}"
_TEXT = re.compile(r"<text\b[^>]*>[^<]*</text>")


@dataclass(frozen=True, slots=True)
class Lettering:
    """One ``<text>`` as drawn: where (SVG units), what, and how."""

    x: float
    y: float
    text: str
    size: float
    bold: bool
    italic: bool
    anchor: str
    fill: str
    opacity: float


def _number(value: str | None, default: float) -> float:
    try:
        return float(value) if value is not None else default
    except ValueError:
        return default


def of(element: ET.Element, style: dict[str, str], opacity: float) -> Lettering:
    """The Lettering of a ``<text>`` element, with the ``style`` it inherits (its own
    attributes first) and the product of its and its groups' opacities."""
    style = {**style, **{k: v for k in _INHERITED if (v := element.get(k)) is not None}}
    return Lettering(
        x=_number(element.get("x"), 0.0), y=_number(element.get("y"), 0.0), text=element.text or "",
        size=_number(style.get("font-size"), 16.0), bold=style.get("font-weight") == "bold",
        italic=style.get("font-style") == "italic", anchor=_ANCHORS.get(style.get("text-anchor", "start"), "ls"),
        fill=style.get("fill", "#000000"), opacity=opacity)


def _walk(element: ET.Element, inherited: dict[str, str], opacity: float, found: list[Lettering]) -> None:
    opacity *= _number(element.get("opacity"), 1.0)
    if element.tag == f"{_SVG}text":
        found.append(of(element, inherited, opacity))
        return
    style = {**inherited, **{k: v for k in _INHERITED if (v := element.get(k)) is not None}}
    for child in element:
        _walk(child, style, opacity, found)


@lru_cache(maxsize=1)
def available() -> bool:
    """Whether the DejaVu faces are installed (else the texts are left to CairoSVG)."""
    return all((FONTS / face).is_file() for face in _FACES.values())


def split(svg: str) -> tuple[str, tuple[Lettering, ...]]:
    """(the SVG without its texts, the texts) when this module can draw them; else
    (``svg``, ()).  Texts with children (``tspan``) or a transform are left to CairoSVG."""
    if not available() or "<tspan" in svg or "transform=" in svg:
        return svg, ()
    found: list[Lettering] = []
    _walk(ET.fromstring(svg), {}, 1.0, found)
    stripped, count = _TEXT.subn("", svg)
    if count != len(found):  # a text this pattern does not see whole: leave them all to CairoSVG
        return svg, ()
    return stripped, tuple(found)


@lru_cache(maxsize=32)
def _font(bold: bool, italic: bool, size: float) -> "FreeTypeFont":
    from PIL import ImageFont

    return ImageFont.truetype(str(FONTS / _FACES[(bold, italic)]), size)


@lru_cache(maxsize=8192)  # a few maps' labels at a few sizes; each mask a few hundred bytes
def _mask(text: str, bold: bool, italic: bool, size: float, anchor: str,
          start: tuple[float, float]) -> tuple["Image", int, int]:
    """The coverage of ``text`` set at ``start`` (a fraction of a pixel: FreeType places
    glyphs to the sub-pixel), and the offset of the mask's corner from the whole pixel
    the text is set at.  A judge writes the same labels phase after phase: set once."""
    from PIL import Image, ImageDraw

    font = _font(bold, italic, size)
    left, top, right, bottom = font.getbbox(text, anchor=anchor)
    margin = 2  # the box is rounded to whole pixels; the sub-pixel start may reach past it
    x, y = margin - math.floor(left), margin - math.floor(top)
    mask = Image.new("L", (math.ceil(right) - math.floor(left) + 2 * margin,
                           math.ceil(bottom) - math.floor(top) + 2 * margin))
    ImageDraw.Draw(mask).text((x + start[0], y + start[1]), text, font=font, fill=255, anchor=anchor)
    return mask, -x, -y


def write(image: "Image", letterings: tuple[Lettering, ...], scale: float) -> None:
    """Draw ``letterings`` onto ``image`` (RGB), SVG units times ``scale``."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image, "RGBA")
    for item in letterings:
        if not item.text.strip():
            continue
        red, green, blue = _rgb(item.fill)
        x, y, size = item.x * scale, item.y * scale, round(item.size * scale, 2)
        if item.opacity < 1.0:  # rare (a removed unit's initials): drawn blended, not cached
            draw.text((x, y), item.text, font=_font(item.bold, item.italic, size),
                      fill=(red, green, blue, round(255 * item.opacity)), anchor=item.anchor)
            continue
        fraction_x, whole_x = math.modf(x)
        fraction_y, whole_y = math.modf(y)
        mask, dx, dy = _mask(item.text, item.bold, item.italic, size, item.anchor, (fraction_x, fraction_y))
        image.paste((red, green, blue), (int(whole_x) + dx, int(whole_y) + dy), mask)


@lru_cache(maxsize=256)
def _rgb(colour: str) -> tuple[int, int, int]:
    from PIL import ImageColor

    red, green, blue = ImageColor.getrgb(colour)[:3]
    return red, green, blue
