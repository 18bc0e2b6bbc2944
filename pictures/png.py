"""SVG text -> PNG bytes: CairoSVG draws (needs Debian's libcairo2), Pillow encodes.

CairoSVG's own ``svg2png`` spends two thirds of its time in cairo's PNG encoder at its
fixed compression; Pillow at a low compression level encodes the same pixels in a
fraction of that (figures in docs/benchmarks.md).  Pictures are opaque (the board
covers the frame), so the image is RGB.
"""

from __future__ import annotations

import io

PNG_COMPRESSION = 3  # zlib level: 1-3 cost little time and give nearly the size of 6


def svg_to_png(svg: str, scale: float = 1.0) -> bytes:
    """The PNG image of ``svg``, ``scale`` times its size in SVG units."""
    # Imported on use: drawing SVG (and the judge's other work) does not need cairo.
    from cairosvg.parser import Tree  # type: ignore[import-untyped]
    from cairosvg.surface import PNGSurface  # type: ignore[import-untyped]
    from PIL import Image

    surface = PNGSurface(Tree(bytestring=svg.encode("utf-8")), None, 96, scale=scale).cairo
    surface.flush()
    image = Image.frombuffer("RGB", (surface.get_width(), surface.get_height()), surface.get_data(),
                             "raw", "BGRX", surface.get_stride(), 1)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=PNG_COMPRESSION)
    return out.getvalue()
