"""Shared pieces of the bot tests: the standard map and a small variant of our own."""

from __future__ import annotations

import pytest

import maps
from adjudicator.mapdata import parse_map
from adjudicator.types import Variant

# Three powers around an inland sea with a split-coast province: enough to show that the
# bots read everything from the map data.
TRIANGLE = """\
map triangle
victory 4
[provinces]
NOR coast SC North
EAS coast SC East
WES coast SC West
MID coast SC Middle
HIL land  SC Hills
CAP coast -  Cape
INS sea   -  Inner Sea
OUT sea   -  Outer Sea
[coasts]
CAP NC SC
[adjacencies]
NOR    A: EAS WES MID     F: INS OUT EAS WES
EAS    A: NOR MID HIL CAP F: INS NOR CAP/NC
WES    A: NOR MID HIL CAP F: INS NOR OUT CAP/SC
MID    A: NOR EAS WES HIL F: INS
HIL    A: EAS WES MID
CAP    A: EAS WES
CAP/NC F: EAS INS
CAP/SC F: WES OUT
INS    F: NOR EAS WES MID CAP/NC OUT
OUT    F: NOR WES CAP/SC INS
[powers]
RED   Redish   R homes: NOR units: F NOR
GREEN Greenish G homes: EAS units: A EAS
BLUE  Bluish   B homes: WES units: A WES
"""


@pytest.fixture(scope="session")
def standard() -> Variant:
    return maps.load("standard")


@pytest.fixture(scope="session")
def triangle() -> Variant:
    return parse_map(TRIANGLE, "triangle.map")
