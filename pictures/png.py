"""SVG text -> PNG bytes: CairoSVG draws (needs Debian's libcairo2), Pillow encodes.

CairoSVG's own ``svg2png`` spends two thirds of its time in cairo's PNG encoder at its
fixed compression; Pillow encodes the same pixels in a fraction of that (figures in
docs/benchmarks.md).  A board is flat colours with anti-aliased edges, a few thousand
colours in all: reduced to a palette of 256 (no dithering) it looks the same and its PNG
is about a quarter of the full-colour one's size (61 kB against 211 kB for the standard
map).  Fewer colours would merge the tints of Chaos's 34 powers.  A picture for mail must
fit in a results mail of 120 kB with its text and record: given ``max_bytes``, a picture
over it is drawn again smaller (the big maps: Modern, Youngstown).  Pictures are opaque
(the board covers the frame), so the image starts as RGB.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image

PNG_COMPRESSION = 6  # zlib level: on a palette image 6 costs little more time than 3
PALETTE_COLOURS = 256
#: Drawn smaller at most this many times, each to the scale the size so far suggests.
SHRINKS = 3


def svg_to_png(svg: str, scale: float = 1.0, max_bytes: int | None = None) -> bytes:
    """The PNG image of ``svg``, ``scale`` times its size in SVG units, with a palette;
    drawn smaller when it must be to weigh at most ``max_bytes`` (None: any size)."""
    png = _encode(_draw(svg, scale))
    if max_bytes is None:
        return png
    for _ in range(SHRINKS):
        if len(png) <= max_bytes:
            break
        # PNG size goes roughly with the area: shrink both sides by the root, and a margin.
        scale *= math.sqrt(max_bytes / len(png)) * 0.95
        png = _encode(_draw(svg, scale))
    return png


def _draw(svg: str, scale: float) -> "Image":
    # Imported on use: drawing SVG (and the judge's other work) does not need cairo.
    from cairosvg.parser import Tree  # type: ignore[import-untyped]
    from cairosvg.surface import PNGSurface  # type: ignore[import-untyped]
    from PIL import Image

    surface = PNGSurface(Tree(bytestring=svg.encode("utf-8")), None, 96, scale=scale).cairo
    surface.flush()
    return Image.frombuffer("RGB", (surface.get_width(), surface.get_height()), surface.get_data(),
                            "raw", "BGRX", surface.get_stride(), 1)


def _encode(image: "Image") -> bytes:
    from PIL import Image

    paletted = image.quantize(colors=PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    paletted.save(out, format="PNG", compress_level=PNG_COMPRESSION)
    return out.getvalue()
