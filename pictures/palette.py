"""Colours: land, sea and neutral tones, and one colour per power.

A geometry may name each power's colour; a power it does not name gets one from a
palette spread around the colour wheel in the map's power order, so every variant
(up to chaos's 34 powers) gets distinct colours without anyone choosing them.
"""

from __future__ import annotations

import colorsys
from typing import Mapping, Sequence

SEA = "#b7d3e9"
LAND = "#efe7d4"
IMPASSABLE = "#c9c2b4"
BORDER = "#5b5b5b"
INK = "#1b1b1b"
FAILED = "#d01010"
BUILT = "#0a8a2a"
UNOWNED_CENTRE = "#ffffff"
OWNED_SHARE = 0.45  # how much of the owner's colour an owned centre's province takes


def spread(count: int) -> list[str]:
    """``count`` distinct colours, hues a golden angle apart."""
    colours = []
    for index in range(count):
        hue = (index * 0.381966) % 1.0
        lightness = 0.42 if index % 2 == 0 else 0.55
        red, green, blue = colorsys.hls_to_rgb(hue, lightness, 0.7)
        colours.append(to_hex((red * 255, green * 255, blue * 255)))
    return colours


def power_colors(powers: Sequence[str], named: Mapping[str, str]) -> dict[str, str]:
    """Power -> colour: ``named`` where given, else the palette's colour for its place."""
    fallback = spread(len(powers))
    return {power: named.get(power, fallback[index]) for index, power in enumerate(powers)}


def to_rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` -> (r, g, b)."""
    text = colour.lstrip("#")
    return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))


def to_hex(rgb: Sequence[float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in rgb)


def tint(colour: str, share: float = OWNED_SHARE) -> str:
    """``colour`` mixed with white: ``share`` of the colour, the rest white."""
    return to_hex([share * c + (1 - share) * 255 for c in to_rgb(colour)])
