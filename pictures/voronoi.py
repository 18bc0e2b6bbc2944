"""Voronoi cells clipped to a rectangle, by half-plane clipping (pure, no dependencies).

Each site's cell starts as the frame and is cut by the perpendicular bisector with every
other site: O(n^2) clips, a few milliseconds for the hundred-odd sites of a map.  Cells
are convex, so a cell's centroid lies inside it.
"""

from __future__ import annotations

from typing import Sequence

Point = tuple[float, float]
Polygon = tuple[Point, ...]


def _clip(polygon: list[Point], normal: Point, limit: float) -> list[Point]:
    """The part of ``polygon`` where ``normal . p <= limit`` (Sutherland-Hodgman, one edge)."""
    nx, ny = normal
    kept: list[Point] = []
    count = len(polygon)
    for index in range(count):
        current = polygon[index]
        following = polygon[(index + 1) % count]
        side_current = nx * current[0] + ny * current[1] - limit
        side_following = nx * following[0] + ny * following[1] - limit
        if side_current <= 0:
            kept.append(current)
        if (side_current <= 0) != (side_following <= 0):
            share = side_current / (side_current - side_following)
            kept.append((current[0] + share * (following[0] - current[0]), current[1] + share * (following[1] - current[1])))
    return kept


def cells(sites: Sequence[Point], width: float, height: float) -> list[Polygon]:
    """The Voronoi cell of each site within the frame ``[0, width] x [0, height]``.

    Sites must be distinct; a site outside the frame may get an empty cell."""
    frame = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
    result: list[Polygon] = []
    for index, (x, y) in enumerate(sites):
        polygon = list(frame)
        for other_index, (ox, oy) in enumerate(sites):
            if other_index == index or not polygon:
                continue
            normal = (ox - x, oy - y)
            middle = ((x + ox) / 2, (y + oy) / 2)
            polygon = _clip(polygon, normal, normal[0] * middle[0] + normal[1] * middle[1])
        result.append(tuple(polygon))
    return result


def centroid(polygon: Polygon) -> Point:
    """The area centroid of a simple polygon (the vertex mean when it has no area)."""
    area = cx = cy = 0.0
    count = len(polygon)
    for index in range(count):
        x0, y0 = polygon[index]
        x1, y1 = polygon[(index + 1) % count]
        cross = x0 * y1 - x1 * y0
        area += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    if abs(area) < 1e-12:
        return (sum(p[0] for p in polygon) / count, sum(p[1] for p in polygon) / count)
    return (cx / (3 * area), cy / (3 * area))


def contains(polygon: Polygon, point: Point) -> bool:
    """Whether ``point`` lies inside ``polygon`` (even-odd rule)."""
    x, y = point
    inside = False
    count = len(polygon)
    for index in range(count):
        x0, y0 = polygon[index]
        x1, y1 = polygon[(index + 1) % count]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside
