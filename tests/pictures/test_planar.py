"""The plane drawing of an adjacency graph (pictures/planar.py): provinces fill the frame,
each in one piece with room for its unit, bordering exactly its neighbours."""

from __future__ import annotations

import math
from itertools import product

from pictures import planar
from pictures.voronoi import FRAME, signed_area

WIDTH, HEIGHT, MARGIN = 600.0, 480.0, 40.0


def _grid(columns: int, rows: int) -> dict[str, frozenset[str]]:
    """A triangulated grid: each cell's neighbours right, below and below-right."""
    near: dict[str, set[str]] = {f"{c}:{r}": set() for c, r in product(range(columns), range(rows))}
    for c, r in product(range(columns), range(rows)):
        for dc, dr in ((1, 0), (0, 1), (1, 1)):
            if c + dc < columns and r + dr < rows:
                near[f"{c}:{r}"].add(f"{c + dc}:{r + dr}")
                near[f"{c + dc}:{r + dr}"].add(f"{c}:{r}")
    return {name: frozenset(others) for name, others in near.items()}


def test_a_large_graphs_drawing_fills_the_frame_and_gives_every_province_room() -> None:
    graph = _grid(9, 8)  # 72 provinces, 7 rings deep: unweighted Tutte squashes the middle
    drawing = planar.draw(graph, WIDTH, HEIGHT, MARGIN)
    assert drawing is not None and drawing.dropped == []
    names = sorted(graph)
    room = {name: 0.0 for name in names}
    for cell, owner in zip(drawing.cells, drawing.owners):
        room[names[owner]] += abs(signed_area(cell.outline))
    inside = (WIDTH - 2 * MARGIN) * (HEIGHT - 2 * MARGIN)
    assert math.isclose(sum(room.values()), inside, rel_tol=1e-9)  # the frame's corners too
    assert min(room.values()) >= planar.SMALLEST
    # Tutte's unweighted drawing leaves the smallest 4 % of the mean area; re-weighted, it
    # gets 16 % (a corner province with one face), most get 80-95 %
    assert min(room.values()) >= 0.1 * inside / len(names)
    assert sorted(room.values())[len(names) // 2] >= 0.7 * inside / len(names)


def _bordering(drawing: planar.Drawing, names: list[str]) -> set[frozenset[str]]:
    """The pairs of provinces whose drawn cells share a side."""
    return {frozenset((names[drawing.owners[k]], names[drawing.owners[side]]))
            for k, cell in enumerate(drawing.cells) for side in cell.sides
            if side != FRAME and drawing.owners[side] != drawing.owners[k]}


def test_cells_border_exactly_the_adjacent_provinces() -> None:
    graph = _grid(5, 4)
    drawing = planar.draw(graph, WIDTH, HEIGHT, MARGIN)
    assert drawing is not None
    assert _bordering(drawing, sorted(graph)) == {frozenset((a, b)) for a in graph for b in graph[a]}


def test_islands_hanging_on_one_sea_are_drawn_inside_it() -> None:
    graph = {name: set(others) for name, others in _grid(4, 4).items()}
    for island in ("X", "Y", "Z"):  # three islands off province 1:1, adjacent to it and each other only
        graph[island] = {"1:1"} | {"X", "Y", "Z"} - {island}
        graph["1:1"].add(island)
    drawing = planar.draw({n: frozenset(o) for n, o in graph.items()}, WIDTH, HEIGHT, MARGIN)
    assert drawing is not None
    names = sorted(graph)
    assert _bordering(drawing, names) == {frozenset((a, b)) for a in graph for b in graph[a]}
    for island in ("X", "Y", "Z"):
        cells = [cell for cell, owner in zip(drawing.cells, drawing.owners) if names[owner] == island]
        assert len(cells) == 1 and abs(signed_area(cells[0].outline)) >= planar.SMALLEST
