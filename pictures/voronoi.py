"""Voronoi cells clipped to a rectangle, by half-plane clipping (pure, no dependencies).

Each site's cell starts as the frame and is cut by the perpendicular bisector with the
other sites, nearest first, until no farther site can reach the cell.  Cells are convex,
so a cell's centroid lies inside it.  Each edge of a cell remembers which site's bisector
made it (``Cell.sides``), so a caller knows which cells share which edges; a ``gap``
between chosen pairs of sites moves both cells back from their bisector, leaving a strip
between them that belongs to neither.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import AbstractSet, Sequence

Point = tuple[float, float]
Polygon = tuple[Point, ...]
FRAME = -1  # the side of an edge that lies on the frame


@dataclass(frozen=True, slots=True)
class Cell:
    """A convex cell; ``sides[i]`` is the site whose bisector (or ``FRAME``) made the edge
    from ``outline[i]`` to ``outline[i + 1]``."""

    outline: Polygon
    sides: tuple[int, ...]


def _clip(polygon: list[Point], sides: list[int], normal: Point, limit: float, side: int) -> tuple[list[Point], list[int]]:
    """The part of ``polygon`` where ``normal . p <= limit`` (Sutherland-Hodgman, one edge);
    the new edge along the clip line gets ``side``."""
    nx, ny = normal
    kept: list[Point] = []
    kept_sides: list[int] = []
    count = len(polygon)
    for index in range(count):
        current = polygon[index]
        following = polygon[(index + 1) % count]
        side_current = nx * current[0] + ny * current[1] - limit
        side_following = nx * following[0] + ny * following[1] - limit
        crossing: Point | None = None
        if (side_current <= 0) != (side_following <= 0):
            share = side_current / (side_current - side_following)
            crossing = (current[0] + share * (following[0] - current[0]), current[1] + share * (following[1] - current[1]))
        if side_current <= 0:
            kept.append(current)
            kept_sides.append(sides[index])
            if crossing is not None:
                kept.append(crossing)
                kept_sides.append(side)
        elif crossing is not None:
            kept.append(crossing)
            kept_sides.append(sides[index])
    return kept, kept_sides


def labelled_cells(sites: Sequence[Point], width: float, height: float, owners: Sequence[int] | None = None,
                   gaps: AbstractSet[tuple[int, int]] = frozenset(), gap: float = 0.0) -> list[Cell]:
    """The cell of each site within the frame ``[0, width] x [0, height]``.  Sites may
    share an owner (``owners[i]``, default each its own); cells of sites whose owners
    ``(a, b)`` (``a < b``) are in ``gaps`` are kept ``gap`` apart.  Sites must be
    distinct; a site outside the frame may get an empty cell."""
    owner = list(owners) if owners is not None else list(range(len(sites)))
    frame = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
    result: list[Cell] = []
    for index, (x, y) in enumerate(sites):
        polygon, sides = list(frame), [FRAME] * 4
        others = sorted((math.dist((x, y), site), other) for other, site in enumerate(sites) if other != index)
        reach = max(math.dist((x, y), corner) for corner in frame)
        for distance, other in others:
            if not polygon or distance > 2 * reach + gap:
                break  # no farther bisector can cut the cell
            ox, oy = sites[other]
            normal = (ox - x, oy - y)
            middle = ((x + ox) / 2, (y + oy) / 2)
            limit = normal[0] * middle[0] + normal[1] * middle[1]
            mine, theirs = owner[index], owner[other]
            if (min(mine, theirs), max(mine, theirs)) in gaps:
                limit -= gap / 2 * distance
            clipped, clipped_sides = _clip(polygon, sides, normal, limit, other)
            if len(clipped) != len(polygon) or clipped != polygon:
                polygon, sides = clipped, clipped_sides
                reach = max((math.dist((x, y), p) for p in polygon), default=0.0)
        result.append(Cell(tuple(polygon), tuple(sides)))
    return result


def cells(sites: Sequence[Point], width: float, height: float) -> list[Polygon]:
    """The Voronoi cell of each site within the frame ``[0, width] x [0, height]``."""
    return [cell.outline for cell in labelled_cells(sites, width, height)]


def signed_area(polygon: Sequence[Point]) -> float:
    """The shoelace area of a simple polygon: positive when it turns from the x axis
    towards the y axis (clockwise on a picture, whose y axis points down)."""
    return sum(polygon[i - 1][0] * polygon[i][1] - polygon[i][0] * polygon[i - 1][1] for i in range(len(polygon))) / 2


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
