"""A province's convex cells joined into the few outlines a picture draws (pure).

A province made of many Voronoi cells (its own and its bridges') is drawn as the rings
around their union: each cell's edges that face no cell of the same province, chained
end to start.  An edge between two cells of one province may be met only in part (a gap
elsewhere can cut the other cell short); the stretches it does not meet are outline.
Fewer points make a smaller SVG and a faster drawing; the picture is the same.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from pictures.voronoi import FRAME, Cell, signed_area

Point = tuple[float, float]
Ring = tuple[Point, ...]
#: Two ends closer than this are one vertex (the cells' corners agree to float error).
MEET = 0.05
#: A stretch shorter than this is rounding, not outline.
SLIVER = 1e-6
#: A ring (piece or hole) of less area than this is not seen: left out.
SPECK = 1.0


def _boundary(cells: Sequence[Cell], same: Sequence[Sequence[bool]],
              faced: Callable[[int, int], tuple[float, float]]) -> list[tuple[Point, Point]]:
    """The directed edges of the union: per cell, each edge's stretches that no cell of the
    province meets (``same[k][i]``: edge ``i`` of cell ``k`` lies against the province)."""
    edges: list[tuple[Point, Point]] = []
    for k, cell in enumerate(cells):
        outline = cell.outline
        for i in range(len(outline)):
            start, end = outline[i], outline[(i + 1) % len(outline)]
            if not same[k][i]:
                edges.append((start, end))
                continue
            low, high = faced(k, i)
            for a, b in ((0.0, low), (high, 1.0)):
                if (b - a) * math.dist(start, end) > SLIVER:
                    edges.append(((start[0] + a * (end[0] - start[0]), start[1] + a * (end[1] - start[1])),
                                  (start[0] + b * (end[0] - start[0]), start[1] + b * (end[1] - start[1]))))
    return [(a, b) for a, b in edges if math.dist(a, b) > SLIVER]


def _chained(edges: list[tuple[Point, Point]]) -> list[list[Point]] | None:
    """The edges joined head to tail into closed rings; None where a chain does not close."""
    rings: list[list[Point]] = []
    unused = list(range(len(edges)))
    while unused:
        first = unused.pop(0)
        ring = [edges[first][0]]
        head = edges[first][1]
        while math.dist(head, ring[0]) > MEET:
            following = [n for n in unused if math.dist(edges[n][0], head) <= MEET]
            if not following:
                return None
            # two edges leave a vertex where the province pinches to a point: either
            # way round, the rings fill the same region
            unused.remove(following[0])
            ring.append(edges[following[0]][0])
            head = edges[following[0]][1]
        rings.append(ring)
    return rings


def _simplified(ring: list[Point]) -> list[Point]:
    """``ring`` without vertices that lie on the line through their neighbours."""
    kept = list(ring)
    changed = True
    while changed and len(kept) > 3:
        changed = False
        for i in range(len(kept)):
            before, here, after = kept[i - 1], kept[i], kept[(i + 1) % len(kept)]
            cross = (here[0] - before[0]) * (after[1] - before[1]) - (here[1] - before[1]) * (after[0] - before[0])
            if abs(cross) <= 1e-6 * max(1.0, math.dist(before, after)) or math.dist(before, here) <= SLIVER:
                del kept[i]
                changed = True
                break
    return kept


def union(cells: Sequence[Cell], owners: Sequence[int], province: int,
          faced: Callable[[int, int], tuple[float, float]]) -> list[Ring]:
    """The outlines of the cells owned by ``province``: its pieces, the largest first,
    then its holes (where gaps around a foreign cell meet inside it), wound the other way
    round, so that a path of them filled by the non-zero rule, or tested point by point
    by the even-odd rule over all rings, is the province; the convex cells themselves
    where the edges do not close into rings.

    ``faced(cell, edge)`` is the stretch (fractions) of that edge which the cell beyond
    it actually meets, as ``generate._Cells.facing`` gives it."""
    mine = [k for k, owner in enumerate(owners) if owner == province and cells[k].outline]
    convex = sorted((cells[k].outline for k in mine), key=lambda c: -abs(signed_area(c)))
    same = [[side != FRAME and owners[side] == province for side in cells[k].sides] for k in mine]
    edges = _boundary([cells[k] for k in mine], same, lambda k, i: faced(mine[k], i))
    rings = _chained(edges)
    if not rings:
        return convex
    simple = [r for r in map(_simplified, rings) if len(r) >= 3 and abs(signed_area(r)) >= SPECK]
    # outer rings first, largest first; holes (wound the other way round) after them
    orientation = math.copysign(1.0, signed_area(convex[0]))
    return [tuple(r) for r in sorted(simple, key=lambda r: -orientation * signed_area(r))]
