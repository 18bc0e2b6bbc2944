"""Provinces drawn from a plane embedding of the adjacency graph (maps without anchors).

A map's adjacency graph is (nearly) planar: keep a maximal planar subgraph (the few
edges it cannot hold become links) and embed it in the plane.  Every inner face gets a
middle point joined to its corners, which makes the graph a triangulation; it is drawn
straight-line by Tutte's weighted barycentric method with the largest face on the frame,
so that no face folds.  Tutte's drawing of a large graph crowds its middle, so the
drawing is made again with the edges' weights lowered where provinces are small (an
edge pulls its ends together in proportion to its weight) and the round whose smallest
province is largest is kept.  Each province is the union of one quadrilateral per corner
of a face: the province's point, the middles of its two edges there and the face's
middle point.  Two provinces then share a border exactly where the graph has an edge
between them (from the edge's middle to both faces' middles) and meet nowhere else but
in a face's middle point, and every province is one piece.  Deterministic: no
randomness, sorted orders throughout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import networkx as nx
import numpy as np
from scipy import sparse
from scipy.sparse import linalg as splinalg

from pictures.voronoi import FRAME, Cell, signed_area

Point = tuple[float, float]
#: A graph from which planarity drops more than this share of edges is drawn another way.
MOST_DROPPED = 0.1
#: Drawings made, each re-weighted from the last one's province areas; the best is kept
#: (on twenty_twenty the smallest province grows for about 15 rounds, then shrinks).
ROUNDS = 24
#: How hard one round corrects the weights: an edge's weight is multiplied by the
#: smallest area about it over the mean area, to this power (larger overshoots).
STEP = 0.3
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
    _take(kept, sorted(edges, key=lambda e: (-len(graph[e[0]] & graph[e[1]]), e)), dropped)
    return kept, dropped


def _take(kept: nx.Graph, edges: list[tuple[str, str]], dropped: list[tuple[str, str]]) -> None:
    """Each of ``edges`` in turn added to ``kept`` unless it makes it non-planar (then to
    ``dropped``).  A run of edges that keeps it planar is taken at once, one that does not
    is halved: the same edges as one by one, with far fewer planarity tests."""
    trial = kept.copy()
    trial.add_edges_from(edges)
    if nx.check_planarity(trial)[0]:
        kept.add_edges_from(edges)
    elif len(edges) == 1:
        dropped.append(edges[0])
    else:
        _take(kept, edges[:len(edges) // 2], dropped)
        _take(kept, edges[len(edges) // 2:], dropped)


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


class _Mesh:
    """The embedded graph with a middle node in every inner face (nodes ``0..len(names)-1``
    are the provinces, then one per face), its edges and, for each edge, the provinces
    whose room it takes: those of the faces on either side."""

    def __init__(self, names: list[str], kept: nx.Graph, inner: list[list[str]]) -> None:
        index = {n: i for i, n in enumerate(names)}
        self.provinces = len(names)
        self.faces = [[index[n] for n in face] for face in inner]
        self.middles = [self.provinces + k for k in range(len(inner))]
        edges = {(min(index[a], index[b]), max(index[a], index[b])) for a, b in kept.edges()}
        edges |= {(i, middle) for face, middle in zip(self.faces, self.middles) for i in face}
        self.edges = np.array(sorted(edges), dtype=np.int64)
        row = {edge: k for k, edge in enumerate(sorted(edges))}
        about: list[set[int]] = [set() for _ in row]
        for face, middle in zip(self.faces, self.middles):
            for k, i in enumerate(face):
                about[row[(min(face[k - 1], i), max(face[k - 1], i))]].update(face)
                about[row[(i, middle)]].update(face)
        self.about = [np.array(sorted(s), dtype=np.int64) for s in about]

    @property
    def size(self) -> int:
        return self.provinces + len(self.faces)

    def corners(self, at: np.ndarray) -> list[tuple[int, tuple[Point, Point, Point, Point]]]:
        """Each face corner's quadrilateral (the province's point, the middle of its edge
        after, the face's middle, the middle of its edge before) and its province."""
        quads: list[tuple[int, tuple[Point, Point, Point, Point]]] = []
        for face, middle in zip(self.faces, self.middles):
            centre = _point(at[middle])
            for k, i in enumerate(face):
                before, after = face[k - 1], face[(k + 1) % len(face)]
                if before == after:
                    continue  # a dead end's tip: no corner to fill
                quads.append((i, (_point(at[i]), _point((at[i] + at[after]) / 2), centre, _point((at[i] + at[before]) / 2))))
        return quads

    def areas(self, at: np.ndarray) -> np.ndarray:
        room = np.zeros(self.provinces)
        for owner, quad in self.corners(at):
            room[owner] += abs(signed_area(quad))
        return room

    def flat(self, at: np.ndarray, turn: float) -> bool:
        """Whether a face corner's triangle with the face's middle is flat or turned over
        (wound against ``turn``, the sign of the faces' winding)."""
        for face, middle in zip(self.faces, self.middles):
            cx, cy = at[middle]
            for k, i in enumerate(face):
                (ax, ay), (bx, by) = at[face[k - 1]], at[i]
                if face[k - 1] != i and ((ax - cx) * (by - cy) - (ay - cy) * (bx - cx)) * turn < FLAT:
                    return True
        return False


def _point(vector: np.ndarray) -> Point:
    return (float(vector[0]), float(vector[1]))


def _tutte(mesh: _Mesh, weights: np.ndarray, fixed: Mapping[int, Point]) -> np.ndarray:
    """Every free node at the weighted mean of its neighbours, the fixed ones where given
    (one sparse linear system: the graph's weighted Laplacian over the free nodes)."""
    first, second = mesh.edges[:, 0], mesh.edges[:, 1]
    rows = np.concatenate([first, second, first, second])
    columns = np.concatenate([second, first, first, second])
    laplacian = sparse.csr_matrix((np.concatenate([-weights, -weights, weights, weights]), (rows, columns)),
                                  shape=(mesh.size, mesh.size))
    pinned = np.array(sorted(fixed), dtype=np.int64)
    free = np.array([i for i in range(mesh.size) if i not in fixed], dtype=np.int64)
    at = np.zeros((mesh.size, 2))
    at[pinned] = [fixed[i] for i in pinned]
    at[free] = splinalg.spsolve(laplacian[free][:, free].tocsc(), -(laplacian[free][:, pinned] @ at[pinned]))
    return at


def draw(graph: Mapping[str, frozenset[str]], width: float, height: float, margin: float) -> Drawing | None:
    """The drawing of ``graph`` in the frame, or None when it is not connected, too far
    from planar for this method, or its best drawing still squashes a province or
    flattens a face."""
    names = sorted(graph)
    edges = {(min(a, b), max(a, b)) for a in graph for b in graph[a]}
    if len(names) < 4 or not nx.is_connected(nx.Graph(list(edges))) or len(set(a for e in edges for a in e)) != len(names):
        return None
    kept, dropped = _planar_part(graph)
    if len(dropped) > MOST_DROPPED * len(edges):
        return None
    faces = _faces(nx.check_planarity(kept)[1])
    outer = max(faces, key=lambda f: (len(f), f))
    mesh = _Mesh(names, kept, [f for f in faces if f is not outer])
    rim = [names.index(n) for n in dict.fromkeys(outer)]
    box = (margin, margin, width - margin, height - margin)
    weights, shares = np.ones(len(mesh.edges)), np.ones(len(rim))
    mean = (width - 2 * margin) * (height - 2 * margin) / len(names)
    best: tuple[float, np.ndarray] | None = None
    turn = 0.0
    for _ in range(ROUNDS):
        at = _tutte(mesh, weights, dict(zip(rim, _rim(shares, box))))
        if not turn:  # the faces' winding (the picture's y axis points down: either way will do)
            turn = 1.0 if sum(signed_area([_point(at[i]) for i in f]) for f in mesh.faces) > 0 else -1.0
        room = mesh.areas(at)
        if not mesh.flat(at, turn) and (best is None or room.min() > best[0]):
            best = (float(room.min()), at)
        # an edge between small provinces, or beside them, is lengthened: weight lowered;
        # a small province on the frame gets more of it
        weights = weights * (np.array([max(float(room[about].min()), 1.0) for about in mesh.about]) / mean) ** STEP
        weights /= np.exp(np.log(weights).mean())
        shares = shares * (mean / np.maximum(room[rim], 1.0)) ** STEP
        shares /= shares.sum()
    if best is None or best[0] < SMALLEST:
        return None  # a face drawn flat, or a province squashed: no room for its unit
    return _cells(names, mesh, best[1], dropped)


def _rim(shares: np.ndarray, box: tuple[float, float, float, float]) -> list[Point]:
    """Points round the rectangle ``box``, each in the middle of its share of the way round,
    the nearest to each of its corners moved onto it, so that the provinces on the outer
    face fill the frame."""
    left, top, right, bottom = box
    perimeter = 2 * (right - left + bottom - top)
    middles = (np.cumsum(shares) - shares / 2) / shares.sum()
    points = [_along(box, float(share)) for share in middles]
    corners = ((0.0, (left, top)), ((right - left) / perimeter, (right, top)),
               ((right - left + bottom - top) / perimeter, (right, bottom)),
               ((2 * (right - left) + bottom - top) / perimeter, (left, bottom)))
    moved: set[int] = set()
    for share, corner in corners:
        nearest = min(range(len(points)), key=lambda k: (min(abs(middles[k] - share), 1 - abs(middles[k] - share)), k))
        if nearest not in moved:
            points[nearest] = corner
            moved.add(nearest)
    return points


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


def _cells(names: list[str], mesh: _Mesh, at: np.ndarray, dropped: list[tuple[str, str]]) -> Drawing:
    corners = mesh.corners(at)
    outlines = [quad for _, quad in corners]
    by_segment: dict[tuple[Point, Point], list[int]] = {}
    for k, outline in enumerate(outlines):
        for i in range(4):
            by_segment.setdefault(_key(outline[i], outline[(i + 1) % 4]), []).append(k)
    cells: list[Cell] = []
    for k, outline in enumerate(outlines):
        sides = []
        for i in range(4):
            others = [o for o in by_segment[_key(outline[i], outline[(i + 1) % 4])] if o != k]
            sides.append(others[0] if others else FRAME)
        cells.append(Cell(outline, tuple(sides)))
    points = {n: _point(at[i]) for i, n in enumerate(names)}
    return Drawing(cells, [owner for owner, _ in corners], points, sorted(dropped))


def _key(a: Point, b: Point) -> tuple[Point, Point]:
    first, second = sorted(((round(a[0], 6), round(a[1], 6)), (round(b[0], 6), round(b[1], 6))))
    return (first, second)
