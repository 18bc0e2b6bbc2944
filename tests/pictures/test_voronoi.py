"""Voronoi cells: a partition of the frame, each site in its own cell."""

from __future__ import annotations

import random

from pictures import voronoi


def _area(polygon: voronoi.Polygon) -> float:
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1]))) / 2


def test_cells_tile_the_frame_and_hold_their_sites() -> None:
    chance = random.Random(7)
    sites = [(chance.uniform(0, 300), chance.uniform(0, 200)) for _ in range(40)]
    cells = voronoi.cells(sites, 300, 200)
    assert abs(sum(_area(c) for c in cells) - 300 * 200) < 1e-6
    for site, cell in zip(sites, cells):
        assert voronoi.contains(cell, site)
        assert voronoi.contains(cell, voronoi.centroid(cell))


def test_two_sites_split_the_frame_at_the_bisector() -> None:
    left, right = voronoi.cells([(25.0, 50.0), (75.0, 50.0)], 100, 100)
    assert sorted(left) == sorted([(0.0, 0.0), (50.0, 0.0), (50.0, 100.0), (0.0, 100.0)])
    assert _area(right) == 5000
