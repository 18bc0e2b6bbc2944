"""How far apart two colours look: CIEDE2000, under normal and colour-blind vision.

``difference`` is the CIEDE2000 colour difference (Sharma, Wu and Dalal's formulation)
of two sRGB colours under D65.  ``seen`` is a colour as a person with a full
protanopia, deuteranopia or tritanopia sees it, by the Machado, Oliveira and Fernandes
(2009) simulation matrices at severity 1, applied to linear RGB.
"""

from __future__ import annotations

import math
from typing import Sequence

RGB = tuple[float, float, float]

VISIONS = ("normal", "protanopia", "deuteranopia", "tritanopia")
_MATRICES = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def _linear(channel: float) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _gamma(value: float) -> float:
    v = min(1.0, max(0.0, value))
    return 255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055)


def seen(rgb: Sequence[float], vision: str) -> RGB:
    """``rgb`` (0-255) as seen with ``vision`` (one of VISIONS)."""
    if vision == "normal":
        return (float(rgb[0]), float(rgb[1]), float(rgb[2]))
    linear = [_linear(c) for c in rgb]
    rows = _MATRICES[vision]
    return (_gamma(sum(m * c for m, c in zip(rows[0], linear))),
            _gamma(sum(m * c for m, c in zip(rows[1], linear))),
            _gamma(sum(m * c for m, c in zip(rows[2], linear))))


def lab(rgb: Sequence[float]) -> RGB:
    """CIELAB (D65) of an sRGB colour (0-255)."""
    r, g, b = (_linear(c) for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def difference(first: Sequence[float], second: Sequence[float]) -> float:
    """CIEDE2000 difference of two sRGB colours (0-255 channels)."""
    return lab_difference(lab(first), lab(second))


def lab_difference(first: Sequence[float], second: Sequence[float]) -> float:
    """CIEDE2000 difference of two CIELAB colours."""
    l1, a1, b1 = first
    l2, a2, b2 = second
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1p, a2p = a1 * (1 + g), a2 * (1 + g)
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    else:
        dh = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    dH = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    d_theta = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cp_mean ** 7 / (cp_mean ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc = 1 + 0.045 * cp_mean
    sh = 1 + 0.015 * cp_mean * t
    rt = -math.sin(math.radians(2 * d_theta)) * rc
    return math.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dH / sh) ** 2 + rt * (dc / sc) * (dH / sh))


def least_difference(colours: Sequence[Sequence[float]]) -> tuple[float, str]:
    """The smallest pairwise difference among ``colours`` under any vision, and that vision."""
    best = (math.inf, "normal")
    for vision in VISIONS:
        shown = [seen(c, vision) for c in colours]
        for i in range(len(shown)):
            for j in range(i + 1, len(shown)):
                best = min(best, (difference(shown[i], shown[j]), vision))
    return best
