"""An SVG's ``<text>`` elements written onto its drawn image with FreeType (Pillow).

CairoSVG sets text one glyph at a time in Python (a font lookup and a measure per
character): on a map of 200 provinces, the labels cost more than the whole board.
``svg_to_png`` therefore hands CairoSVG the SVG without its texts and writes them here,
in C, with the DejaVu Sans faces the SVG names first: the same letters at the same
places (the SVG's own ``x``/``y``, size, weight, style, anchor, colour and opacity).
The texts are drawn last, above everything: the pictures' labels are their top layer,
and a power's initials sit on its unit.  Where the DejaVu files are not installed,
``split`` finds nothing and CairoSVG draws the texts itself.
"""

from __future__ import annotations

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


def _walk(element: ET.Element, inherited: dict[str, str], opacity: float, found: list[Lettering]) -> None:
    style = {**inherited, **{k: v for k in _INHERITED if (v := element.get(k)) is not None}}
    opacity *= _number(element.get("opacity"), 1.0)
    if element.tag == f"{_SVG}text":
        found.append(Lettering(
            x=_number(element.get("x"), 0.0), y=_number(element.get("y"), 0.0), text=element.text or "",
            size=_number(style.get("font-size"), 16.0), bold=style.get("font-weight") == "bold",
            italic=style.get("font-style") == "italic", anchor=_ANCHORS.get(style.get("text-anchor", "start"), "ls"),
            fill=style.get("fill", "#000000"), opacity=opacity))
        return
    for child in element:
        _walk(child, style, opacity, found)


def split(svg: str) -> tuple[str, tuple[Lettering, ...]]:
    """(the SVG without its texts, the texts) when this module can draw them; else
    (``svg``, ()).  Texts with children (``tspan``) or a transform are left to CairoSVG."""
    if not all((FONTS / face).is_file() for face in _FACES.values()) or "<tspan" in svg or "transform=" in svg:
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


def write(image: "Image", letterings: tuple[Lettering, ...], scale: float) -> None:
    """Draw ``letterings`` onto ``image`` (RGB), SVG units times ``scale``."""
    from PIL import ImageColor, ImageDraw

    draw = ImageDraw.Draw(image, "RGBA")
    for item in letterings:
        if not item.text.strip():
            continue
        red, green, blue = ImageColor.getrgb(item.fill)[:3]
        draw.text((item.x * scale, item.y * scale), item.text, font=_font(item.bold, item.italic, round(item.size * scale, 2)),
                  fill=(red, green, blue, round(255 * item.opacity)), anchor=item.anchor)
