"""A picture's SVG -> PNG bytes: ``pictures.raster`` draws the element tree our SVG
writer makes with cairo directly (CairoSVG draws any other SVG, slowly: it parses each
number in Python), FreeType writes the texts (``pictures.lettering``), Pillow encodes.
Hover titles are for SVG viewers: no drawer reads them.

A board is flat colours (provinces with hard edges) under anti-aliased units, orders and
letters, a few thousand colours in all: reduced to a palette of 256 (no dithering) it
looks the same and its PNG is about a quarter of the full-colour one's size (61 kB
against 211 kB for the standard map); Pillow encodes it in a fraction of cairo's own PNG
writer's time (figures in docs/benchmarks.md).  Fewer colours would merge the tints of
Chaos's 34 powers.  A picture for mail must fit in a results mail of 120 kB with its text
and record: given ``max_bytes``, a picture over it is drawn again smaller, and given
``max_pixels`` a big map (Modern, Youngstown) is drawn smaller at once.  Pictures are
opaque (the board covers the frame), so the image starts as RGB.
"""

from __future__ import annotations

import io
import math
import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Callable

from pictures import lettering, raster

if TYPE_CHECKING:
    from PIL.Image import Image

PNG_COMPRESSION = 6  # zlib level: on a palette image 6 costs little more time than 3
PALETTE_COLOURS = 256
#: Drawn smaller at most this many times, each to the scale the size so far suggests.
SHRINKS = 3
#: A palette PNG's bytes grow as about this power of the scale, not the square: its flat
#: areas cost little, its lines and letters grow with their length (1.3-1.5 measured on
#: twenty_twenty, western_world_901 and youngstown_redux).
SIZE_EXPONENT = 1.4
#: A picture drawn smaller aims at this share of ``max_bytes``: under it at the first try.
FIT_SHARE = 0.93


#: (SVG width and height, scale asked, max_bytes) -> the scale that last fitted, when it had
#: to be smaller: the next phase of the same map starts there instead of drawing twice.
_FITTED: dict[tuple[str, float, int], float] = {}


def svg_to_png(svg: str, scale: float = 1.0, max_bytes: int | None = None, max_pixels: int | None = None) -> bytes:
    """The PNG image of ``svg``, ``scale`` times its size in SVG units, with a palette;
    drawn smaller when it must be to have at most ``max_pixels`` and weigh at most
    ``max_bytes`` (None: any size).  ``max_pixels`` is the cheap first guess: drawing is
    most of the cost, and a picture drawn too big must be drawn again."""
    # Hover titles are for SVG viewers: no drawer needs them.
    text = _TITLE.sub("", svg)
    try:
        root: ET.Element | None = ET.fromstring(text)
    except ET.ParseError:
        root = None  # CairoSVG says what is wrong with it
    found = _SIZE.search(svg[:2000])
    size = (float(found.group(1)), float(found.group(2))) if found else None
    return _fitted(lambda at: _draw(root, lambda: text, at), size, scale, max_bytes, max_pixels)


def tree_to_png(root: ET.Element, scale: float = 1.0, max_bytes: int | None = None,
                max_pixels: int | None = None) -> bytes:
    """``svg_to_png`` of the SVG element tree ``root`` (``pictures.svg.draw_tree``), drawn
    from the tree itself: the SVG text need not be read back."""
    try:
        size: tuple[float, float] | None = raster.picture_size(root)
    except raster.Unsupported:
        size = None

    def text() -> str:
        return _TITLE.sub("", ET.tostring(root, encoding="unicode"))

    return _fitted(lambda at: _draw(root, text, at), size, scale, max_bytes, max_pixels)


def _fitted(draw: Callable[[float], "Image"], size: tuple[float, float] | None, scale: float,
            max_bytes: int | None, max_pixels: int | None) -> bytes:
    """The PNG of ``draw(scale)`` within the caps (``svg_to_png``); ``size``: the picture's
    width and height in SVG units, when known."""
    asked = scale
    frame = f"{size[0]:g}x{size[1]:g}" if size else ""
    if max_pixels is not None and size:
        area = size[0] * size[1] * scale * scale
        if area > max_pixels:
            scale *= math.sqrt(max_pixels / area)
    if max_bytes is not None:
        scale = min(scale, _FITTED.get((frame, asked, max_bytes), scale))
    png = _encode(draw(scale))
    if max_bytes is None:
        return png
    tried = [(scale, len(png))]
    for _ in range(SHRINKS):
        if len(png) <= max_bytes:
            break
        scale = _smaller(tried, max_bytes)
        png = _encode(draw(scale))
        tried.append((scale, len(png)))
        if frame and len(_FITTED) < 256:  # a few maps, a few sizes: bounded all the same
            _FITTED[(frame, asked, max_bytes)] = scale
    return png


def _smaller(tried: list[tuple[float, int]], max_bytes: int) -> float:
    """The scale to draw at next, from the (scale, PNG bytes) tried so far, all too big:
    bytes go as a power of the scale, ``SIZE_EXPONENT`` until two tries measure it."""
    scale, size = tried[-1]
    exponent = SIZE_EXPONENT
    if len(tried) >= 2:
        before, size_before = tried[-2]
        if before != scale and size_before != size:
            exponent = min(2.5, max(1.0, math.log(size_before / size) / math.log(before / scale)))
    return scale * (FIT_SHARE * max_bytes / size) ** (1 / exponent)


_TITLE = re.compile(r"<title>[^<]*</title>")
_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([0-9.]+)"[^>]*?\bheight="([0-9.]+)"')


def _draw(root: ET.Element | None, text: Callable[[], str], scale: float) -> "Image":
    """The picture of ``root`` drawn by ``pictures.raster``; where it cannot, of the SVG
    ``text()`` (without titles) by CairoSVG.  Then the texts, by FreeType."""
    try:
        if root is None:
            raise raster.Unsupported("not well-formed XML")
        image, letterings = raster.draw(root, scale)
    except raster.Unsupported:
        image, letterings = _draw_by_cairosvg(text(), scale)
    lettering.write(image, letterings, scale)
    return image


def _draw_by_cairosvg(svg: str, scale: float) -> tuple["Image", tuple[lettering.Lettering, ...]]:
    """Any SVG: CairoSVG draws all but the texts it leaves to FreeType (it sets them slowly)."""
    # Imported on use: drawing SVG (and the judge's other work) does not need cairo.
    from cairosvg.parser import Tree  # type: ignore[import-untyped]
    from cairosvg.surface import PNGSurface  # type: ignore[import-untyped]
    from PIL import Image

    board, letterings = lettering.split(svg)
    surface = PNGSurface(Tree(bytestring=board.encode("utf-8")), None, 96, scale=scale).cairo
    surface.flush()
    image = Image.frombuffer("RGB", (surface.get_width(), surface.get_height()), surface.get_data(),
                             "raw", "BGRX", surface.get_stride(), 1).copy()
    return image, letterings


def _encode(image: "Image") -> bytes:
    from PIL import Image

    paletted = image.quantize(colors=PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    paletted.save(out, format="PNG", compress_level=PNG_COMPRESSION)
    return out.getvalue()
