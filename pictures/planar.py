"""Provinces drawn from a plane embedding of the adjacency graph (maps without anchors).

A map's adjacency graph is (nearly) planar: keep a maximal planar subgraph (the few
edges it cannot hold become links), embed it in the plane, draw it straight-line with
convex faces (Tutte's barycentric method, the outer face on an ellipse), then relax it
towards even spacing without ever turning a face over.  Each province is the union of
one quadrilateral per corner of a face: the province's point, the middles of its two
edges there and the face's middle point.  Two provinces then share a border exactly
where the graph has an edge between them (from the edge's middle to both faces'
middles) and meet nowhere else but in a face's middle point, and every province is one
piece.  Deterministic: no randomness, sorted orders throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import networkx as nx

from pictures.voronoi import FRAME, Cell

Point = tuple[float, float]
#: A graph from which planarity drops more than this share of edges is drawn another way.
MOST_DROPPED = 0.1
TUTTE_ROUNDS = 3000  # Gauss-Seidel sweeps: fewer leave near-flat faces folded on twenty_twenty
RELAX_ROUNDS = 200
#: The least area a province may be drawn with: room for a unit (12 across) and its label.
SMALLEST = 400.0
#: A face corner whose triangle with the face's middle has less area than this (twice,
#: in square picture units) is drawn flat: neighbours across it would seem to touch.
FLAT = 50.0


@dataclass(frozen=True)
class Drawing:
    """Cells (``owners[k]`` is the index in ``names`` of cell ``k``'s province), the
    province points, and the adjacent pairs planarity dropped (drawn as links)."""

    cells: list[Cell]
    owners: list[int]
    points: dict[str, Point]
    dropped: list[tuple[str, str]]


def _planar_part(graph: Mapping[str, frozenset[str]]) -> tuple[nx.Graph, list[tuple[str, str]]]:
    """A maximal planar subgraph and the edges left out.  Edges in more triangles are
    taken first: the mesh of neighbouring lands and seas is, a long way round the world
    (a wrap-around map's edge, a strait far across) rarely is, so it is the one dropped."""
    kept = nx.Graph()
    kept.add_nodes_from(sorted(graph))
    dropped: list[tuple[str, str]] = []
    edges = {(min(a, b), max(a, b)) for a in graph for b in graph[a]}
    for a, b in sorted(edges, key=lambda e: (-len(graph[e[0]] & graph[e[1]]), e)):
        kept.add_edge(a, b)
        if not nx.check_planarity(kept)[0]:
            kept.remove_edge(a, b)
            dropped.append((a, b))
    return kept, dropped


def _faces(embedding: nx.PlanarEmbedding) -> list[list[str]]:
    """Every face as its walk of nodes, each half-edge in exactly one face."""
    seen: set[tuple[str, str]] = set()
    faces: list[list[str]] = []
    for u, v in sorted(embedding.edges()):
        if (u, v) in seen:
            continue
        mark: set[tuple[str, str]] = set()
        walk = embedding.traverse_face(u, v, mark_half_edges=mark)
        seen |= mark
        faces.append(list(walk))
    return faces


def _bad(face: list[str], at: Mapping[str, Point]) -> bool:
    """Whether ``face`` (an inner face, wound positively) is no longer star-shaped from its
    middle point: its corners' quadrilaterals would overlap."""
    count = len(face)
    cx, cy = sum(at[n][0] for n in face) / count, sum(at[n][1] for n in face) / count
    for i in range(count):
        (ax, ay), (bx, by) = at[face[i - 1]], at[face[i]]
        if face[i - 1] != face[i] and (ax - cx) * (by - cy) - (ay - cy) * (bx - cx) < FLAT:
            return True
    return False


def draw(graph: Mapping[str, frozenset[str]], width: float, height: float, margin: float) -> Drawing | None:
    """The drawing of ``graph`` in the frame, or None when it is not connected or too far
    from planar for this method."""
    names = sorted(graph)
    edges = {(min(a, b), max(a, b)) for a in graph for b in graph[a]}
    if len(names) < 4 or not nx.is_connected(nx.Graph(list(edges))) or len(set(a for e in edges for a in e)) != len(names):
        return None
    kept, dropped = _planar_part(graph)
    if len(dropped) > MOST_DROPPED * len(edges):
        return None
    embedding = nx.check_planarity(kept)[1]
    faces = _faces(embedding)
    outer = max(faces, key=lambda f: (len(f), f))
    inner = [f for f in faces if f is not outer]
    middle = (width / 2, height / 2)
    at: dict[str, Point] = {}
    ring = list(dict.fromkeys(outer))
    box = (margin, margin, width - margin, height - margin)
    for k, name in enumerate(ring):
        at[name] = _along(box, k / len(ring))
    free = [n for n in names if n not in at]
    for n in free:
        at[n] = middle
    neighbours = {n: sorted(kept[n]) for n in names}
    for _ in range(TUTTE_ROUNDS):
        for n in free:
            around = neighbours[n]
            at[n] = (sum(at[m][0] for m in around) / len(around), sum(at[m][1] for m in around) / len(around))
    # wind the inner faces positively (the picture's y axis points down: either way will do)
    sign = 1.0 if sum(_area2(f, at) for f in inner) > 0 else -1.0
    inner = [f if sign > 0 else f[::-1] for f in inner]
    _relax(names, neighbours, inner, at, set(ring), width, height, margin)
    if any(_bad(face, at) for face in inner):
        return None  # a face drawn folded (a part hanging by two provinces collapsed): not a plane drawing
    drawing = _cells(names, inner, at, dropped)
    room: dict[int, float] = {}
    for cell, owner in zip(drawing.cells, drawing.owners):
        room[owner] = room.get(owner, 0.0) + abs(_shoelace(cell.outline))
    smallest = min(room.get(i, 0.0) for i in range(len(names)))
    return drawing if smallest >= SMALLEST else None  # a province squashed flat: no room for its unit


def _shoelace(ring: tuple[Point, ...]) -> float:
    return sum(ring[i - 1][0] * ring[i][1] - ring[i][0] * ring[i - 1][1] for i in range(len(ring))) / 2


def _along(box: tuple[float, float, float, float], share: float) -> Point:
    """The point ``share`` of the way round the rectangle ``box`` (clockwise on the picture)."""
    left, top, right, bottom = box
    w, h = right - left, bottom - top
    walk = share * 2 * (w + h)
    if walk < w:
        return (left + walk, top)
    if walk < w + h:
        return (right, top + walk - w)
    if walk < 2 * w + h:
        return (right - (walk - w - h), bottom)
    return (left, bottom - (walk - 2 * w - h))


def _snapped(box: tuple[float, float, float, float], point: Point) -> Point:
    """The point of the rectangle ``box``'s edge nearest to ``point``."""
    left, top, right, bottom = box
    x, y = min(right, max(left, point[0])), min(bottom, max(top, point[1]))
    side = min((x - left, 0), (right - x, 1), (y - top, 2), (bottom - y, 3))[1]
    return ((left, y), (right, y), (x, top), (x, bottom))[side]


def _area2(face: list[str], at: Mapping[str, Point]) -> float:
    return sum(at[face[i - 1]][0] * at[face[i]][1] - at[face[i]][0] * at[face[i - 1]][1] for i in range(len(face)))


def _relax(names: list[str], neighbours: Mapping[str, list[str]], inner: list[list[str]], at: dict[str, Point],
           rim: set[str], width: float, height: float, margin: float) -> None:
    """Spread the points (neighbours pull to a common length, near points push) while no
    inner face folds: a move that would fold one is not made (one that Tutte's drawing,
    stopped short of its limit, left folded may unfold)."""
    faces_of: dict[str, list[list[str]]] = {n: [] for n in names}
    for face in inner:
        for n in set(face):
            faces_of[n].append(face)
    length = math.sqrt(width * height / len(names))
    for step in range(RELAX_ROUNDS):
        heat = 0.1 * length * (1 - step / RELAX_ROUNDS) + 0.01 * length
        for n in names:
            x, y = at[n]
            fx = fy = 0.0
            for m in neighbours[n]:
                dx, dy = at[m][0] - x, at[m][1] - y
                d = math.hypot(dx, dy) or 1e-9
                fx += dx / d * (d - length) / length
                fy += dy / d * (d - length) / length
            for face in faces_of[n]:
                for m in face:
                    if m != n:
                        dx, dy = x - at[m][0], y - at[m][1]
                        d = math.hypot(dx, dy) or 1e-9
                        if d < length:
                            fx += dx / d * (length - d) / length
                            fy += dy / d * (length - d) / length
            force = math.hypot(fx, fy)
            if force < 1e-9:
                continue
            folded = [_bad(face, at) for face in faces_of[n]]
            move = min(heat, force * length * 0.2)
            for _ in range(4):  # a shorter step where the full one would fold a face
                target = (x + fx / force * move, y + fy / force * move)
                if n in rim:  # the rim slides along the frame
                    target = _snapped((margin, margin, width - margin, height - margin), target)
                at[n] = target
                if not any(_bad(face, at) and not was for face, was in zip(faces_of[n], folded)):
                    break
                at[n] = (x, y)
                move /= 3


def _cells(names: list[str], inner: list[list[str]], at: Mapping[str, Point], dropped: list[tuple[str, str]]) -> Drawing:
    index = {n: i for i, n in enumerate(names)}
    outlines: list[tuple[Point, ...]] = []
    owners: list[int] = []

    def mid(a: str, b: str) -> Point:
        (ax, ay), (bx, by) = sorted((at[a], at[b]))
        return ((ax + bx) / 2, (ay + by) / 2)

    for face in inner:
        count = len(face)
        centre = (sum(at[n][0] for n in face) / count, sum(at[n][1] for n in face) / count)
        for i, n in enumerate(face):
            before, after = face[i - 1], face[(i + 1) % count]
            if before == after:
                continue  # a dead end's tip: no corner to fill
            outlines.append((at[n], mid(n, after), centre, mid(n, before)))
            owners.append(index[n])
    by_segment: dict[tuple[Point, Point], list[int]] = {}
    for k, outline in enumerate(outlines):
        for i in range(4):
            key = _key(outline[i], outline[(i + 1) % 4])
            by_segment.setdefault(key, []).append(k)
    cells: list[Cell] = []
    for k, outline in enumerate(outlines):
        sides = []
        for i in range(4):
            others = [o for o in by_segment[_key(outline[i], outline[(i + 1) % 4])] if o != k]
            sides.append(others[0] if others else FRAME)
        cells.append(Cell(outline, tuple(sides)))
    return Drawing(cells, owners, dict(at), sorted(dropped))


def _key(a: Point, b: Point) -> tuple[Point, Point]:
    first, second = sorted(((round(a[0], 6), round(a[1], 6)), (round(b[0], 6), round(b[1], 6))))
    return (first, second)
