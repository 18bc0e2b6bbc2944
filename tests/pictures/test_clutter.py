"""Pictures without clutter: provinces in one piece and few links, map by map.

The bounds are what the generator reaches today (``python -m maps.generate``), so that a
change which breaks provinces up again or strews links fails here.  A map drawn from a plane
embedding of its adjacency graph has every province in one piece, and links only for the
few adjacencies no plane drawing can hold.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import maps
from pictures.geometry import Point

#: Maps drawn from a plane embedding of their graph (pictures/planar.py) today: every map
#: without anchors but pure (all seven provinces touch each other: not planar) and
#: north_sea_wars (three islands hang on one sea, CNS, which the plane drawing cannot place).
PLANE = ("canton", "twenty_twenty", "western_world_901", "year_1908")
#: map -> (most pieces over all provinces, most links); islands and real straits excepted
BOUNDS = {
    "ancient_mediterranean": (81, 53),
    "canton": (81, 0),
    "chaos": (78, 19),
    "classical_crowded": (78, 19),
    "cold_war": (113, 67),
    "empires_and_coalitions": (109, 27),
    "fleet_rome": (78, 19),
    "hundred": (41, 17),
    "modern": (144, 43),
    "north_sea_wars": (31, 6),  # falls back: three islands hang on one sea (CNS)
    "pure": (7, 10),
    "standard": (78, 19),
    "twenty_twenty": (215, 5),  # the five edges planarity drops (wrap-around straits)
    "western_world_901": (157, 1),  # one border too short to see
    "year_1908": (87, 1),
    "youngstown_redux": (193, 61),
}


def _signed_area(ring: tuple[Point, ...]) -> float:
    return sum(ring[i - 1][0] * ring[i][1] - ring[i][0] * ring[i - 1][1] for i in range(len(ring))) / 2


def _pieces(parts: tuple[tuple[Point, ...], ...]) -> int:
    """The rings wound as the first one (the rest are holes)."""
    first = _signed_area(parts[0])
    return sum(1 for ring in parts if _signed_area(ring) * first > 0)


def test_every_shipped_map_has_bounds() -> None:
    assert sorted(BOUNDS) == sorted(maps.available())


@pytest.mark.parametrize("name", PLANE)
def test_a_plane_drawing_is_a_plane_drawings_geometry(name: str) -> None:
    assert "plane drawing" in json.loads((Path(maps.__file__).parent / f"{name}.geo.json").read_text())["provenance"]


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_provinces_are_few_pieces_and_links_are_few(name: str) -> None:
    geometry = maps.load_geometry(name)
    pieces = sum(_pieces(shape.parts) for shape in geometry.provinces.values())
    most_pieces, most_links = BOUNDS[name]
    assert pieces <= most_pieces, f"{name}: {pieces} pieces for {len(geometry.provinces)} provinces"
    assert len(geometry.links) <= most_links, f"{name}: {len(geometry.links)} links"


@pytest.mark.parametrize("name", PLANE)
def test_a_map_laid_out_from_its_graph_draws_every_province_in_one_piece(name: str) -> None:
    geometry = maps.load_geometry(name)
    broken = sorted(abbrev for abbrev, shape in geometry.provinces.items() if _pieces(shape.parts) != 1)
    assert not broken, f"{name}: in pieces: {', '.join(broken)}"
