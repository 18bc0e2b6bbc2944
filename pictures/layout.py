"""Positions for a map's provinces from its adjacency graph alone (for maps without anchors).

A force-directed layout (neighbours pull, every pair pushes) from a start fixed by the
map's name, so the same map always gets the same picture.  Pure Python: generation is
done once per map, not per picture.
"""

from __future__ import annotations

import math
import random
from typing import Mapping

from adjudicator.types import Variant, province_of

Point = tuple[float, float]

GRAVITY = 0.02  # pull towards the middle, per node (so larger graphs are held as firmly)


def province_graph(variant: Variant) -> dict[str, frozenset[str]]:
    """Province -> the provinces an army or a fleet can reach from it (coasts folded)."""
    graph: dict[str, set[str]] = {abbrev: set() for abbrev in variant.provinces}
    for moves in (variant.army_moves, variant.fleet_moves):
        for origin, targets in moves.items():
            for target in targets:
                a, b = province_of(origin), province_of(target)
                if a != b:
                    graph[a].add(b)
                    graph[b].add(a)
    return {abbrev: frozenset(neighbours) for abbrev, neighbours in graph.items()}


def force_layout(graph: Mapping[str, frozenset[str]], seed: str, iterations: int = 300) -> dict[str, Point]:
    """Positions in the unit square for every node of ``graph`` (Fruchterman-Reingold with
    a weak pull to the middle instead of walls: walls crowd nodes along the frame), scaled
    at the end to fill the square."""
    names = sorted(graph)
    count = len(names)
    if count == 0:
        return {}
    chance = random.Random(seed)
    x = [chance.random() for _ in names]
    y = [chance.random() for _ in names]
    index = {name: i for i, name in enumerate(names)}
    edges = sorted({(min(index[a], index[b]), max(index[a], index[b])) for a in names for b in graph[a]})
    k = math.sqrt(1.0 / count)
    temperature = 0.1
    cooling = temperature / (iterations + 1)
    for _ in range(iterations):
        dx = [0.0] * count
        dy = [0.0] * count
        for i in range(count):
            xi, yi = x[i], y[i]
            for j in range(i + 1, count):
                ex, ey = xi - x[j], yi - y[j]
                distance2 = ex * ex + ey * ey or 1e-9
                push = k * k / distance2
                dx[i] += ex * push
                dy[i] += ey * push
                dx[j] -= ex * push
                dy[j] -= ey * push
        for i, j in edges:
            ex, ey = x[i] - x[j], y[i] - y[j]
            distance = math.hypot(ex, ey) or 1e-9
            pull = distance / k
            dx[i] -= ex * pull
            dy[i] -= ey * pull
            dx[j] += ex * pull
            dy[j] += ey * pull
        for i in range(count):
            dx[i] += (0.5 - x[i]) * GRAVITY * count
            dy[i] += (0.5 - y[i]) * GRAVITY * count
            length = math.hypot(dx[i], dy[i]) or 1e-9
            step = min(length, temperature)
            x[i] += dx[i] / length * step
            y[i] += dy[i] / length * step
        temperature -= cooling
    return {name: (_scaled(x, x[i]), _scaled(y, y[i])) for i, name in enumerate(names)}


def _scaled(values: list[float], value: float) -> float:
    low, high = min(values), max(values)
    return 0.5 if high - low < 1e-12 else (value - low) / (high - low)
