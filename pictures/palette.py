"""Colours: land, sea and neutral tones, and one colour per power.

Maps of up to twelve powers take their colours from ``POWERS``, twelve colours chosen
(by a greedy farthest-point search over a grid of hues, lightnesses and saturations)
so that any two differ by at least ``LEAST_DIFFERENCE`` in CIEDE2000 as seen with
normal vision and with each full dichromacy (pictures/vision.py), and differ as much
from the sea and the land.  A geometry's named colours are wishes: each power gets the
palette colour nearest its wish that no earlier power took.  Maps of more powers (chaos,
twenty_twenty) get hues spread around the wheel, which no palette keeps apart; their
units carry the power's initials as well (pictures/svg.py).
"""

from __future__ import annotations

import colorsys
from typing import Mapping, Sequence

from pictures import vision

SEA = "#b7d3e9"
LAND = "#efe7d4"
IMPASSABLE = "#c9c2b4"
BORDER = "#5b5b5b"
INK = "#1b1b1b"
FAILED = "#d01010"
BUILT = "#0a8a2a"
UNOWNED_CENTRE = "#ffffff"
OWNED_SHARE = 0.45  # how much of the owner's colour an owned centre's province takes


#: Blue, orange, green, maroon, lavender, amber, black, grey, plum, dark green, navy, mint.
POWERS = ("#1d56c9", "#b25900", "#39ac73", "#800000", "#bf80ff", "#ffb21a",
          "#141414", "#808080", "#602055", "#206040", "#0000b2", "#80ff95")
LEAST_DIFFERENCE = 12.0  # CIEDE2000, under every vision in pictures.vision.VISIONS


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
    """Power -> colour: from ``POWERS`` when the map has at most twelve powers (each
    named wish answered by the nearest free colour), else from ``spread``."""
    if len(powers) > len(POWERS):
        return dict(zip(powers, spread(len(powers))))
    free = list(POWERS)
    chosen: dict[str, str] = {}
    for power in powers:
        wish = named.get(power)
        if wish is not None:
            chosen[power] = min(free, key=lambda c: vision.difference(to_rgb(c), to_rgb(wish)))
            free.remove(chosen[power])
    for power in powers:
        if power not in chosen:
            chosen[power] = free.pop(0)
    return {power: chosen[power] for power in powers}


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour`` (for initials on a unit)."""
    red, green, blue = to_rgb(colour)
    return INK if 0.299 * red + 0.587 * green + 0.114 * blue > 140 else "#ffffff"


def to_rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` -> (r, g, b)."""
    text = colour.lstrip("#")
    return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))


def to_hex(rgb: Sequence[float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in rgb)


def tint(colour: str, share: float = OWNED_SHARE) -> str:
    """``colour`` mixed with white: ``share`` of the colour, the rest white."""
    return to_hex([share * c + (1 - share) * 255 for c in to_rgb(colour)])
