"""The board value: how much each place on the map is worth to one power.

A DumbBot-class diffusion, computed from the map data alone so that it serves every
variant.  Each supply centre gets a base value: a centre of ours is worth the size of
the largest power with a unit next to it (what we could lose), anyone else's centre the
size of its owner (what we could gain; neutral centres count as a power of
``Weights.neutral_centres`` centres).  "Size" grows with the square of the centre count,
so the bot is drawn to the leader.  The base spreads over the adjacency graph of each
unit kind (armies over provinces, fleets over locations, coasts apart): step ``n``
is the node's own value of step ``n-1`` plus its neighbours', divided by 5.  A place's
value mixes the steps with weights (spring weights look ahead, autumn weights look at
centres now), plus how many of our units could reach the province (strength) less the
most units any other single power could bring there (competition).

Pure: the value of a board (a position on its map) to a power, and the weights, nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from adjudicator.api import Board
from adjudicator.types import Season, Terrain, UnitKind, Variant, province_of


@dataclass(frozen=True)
class SeasonWeights:
    """How one season turns attack/defence values and diffusion steps into a place's value."""

    attack: float  # weight of the value of taking someone else's centre
    defence: float  # weight of the value of keeping one of ours
    steps: tuple[float, ...]  # weight of diffusion step 0, 1, 2, ...
    strength: float  # per unit of ours that could reach the province
    competition: float  # per unit of the strongest other power that could reach it


@dataclass(frozen=True)
class Weights:
    """The constants of the value.  ``size(n) = square*n**2 + linear*n + constant``."""

    spring: SeasonWeights = SeasonWeights(700, 300, (100, 1000, 30, 10, 6, 5, 4, 3, 2, 1), 1000, 1000)
    fall: SeasonWeights = SeasonWeights(600, 400, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), 1000, 1000)
    adjustment: SeasonWeights = SeasonWeights(500, 500, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), 1000, 1000)
    square: float = 1.0
    linear: float = 4.0
    constant: float = 16.0
    neutral_centres: int = 3  # a neutral centre is worth as much as a centre of a power this size
    divisor: float = 5.0  # the diffusion's damping (DumbBot's 5)

    def size(self, centres: int) -> float:
        return self.square * centres * centres + self.linear * centres + self.constant

    def season(self, season: Season) -> SeasonWeights:
        if season is Season.SPRING:
            return self.spring
        return self.fall if season is Season.FALL else self.adjustment


DEFAULT_WEIGHTS = Weights()


@dataclass(frozen=True)
class Graph:
    """The nodes a unit can stand on and their neighbours: ``("A", province)`` for armies,
    ``("F", location)`` for fleets (a split coast is its own node)."""

    neighbours: Mapping[tuple[str, str], tuple[tuple[str, str], ...]]
    province: Mapping[tuple[str, str], str]  # node -> its province


@lru_cache(maxsize=16)  # a Variant hashes by identity: one graph per map object in use
def graph_of(variant: Variant) -> Graph:
    """The unit graph of ``variant`` (derived from its frozen data only)."""
    neighbours: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    for province, details in sorted(variant.provinces.items()):
        if details.terrain is not Terrain.SEA:
            neighbours[("A", province)] = tuple(("A", p) for p in sorted(variant.army_moves.get(province, ())))
    for location, targets in sorted(variant.fleet_moves.items()):
        if targets:
            neighbours[("F", location)] = tuple(("F", loc) for loc in sorted(targets))
    return Graph(MappingProxyType(neighbours), MappingProxyType({node: province_of(node[1]) for node in neighbours}))


def node_of(kind: UnitKind, location: str) -> tuple[str, str]:
    """The graph node a unit of ``kind`` at ``location`` stands on."""
    return (kind._value_, location if kind is UnitKind.FLEET else province_of(location))


@dataclass(frozen=True)
class ValueMap:
    """The value of each node of the unit graph to ``power``; ``scale`` is the largest value
    (``relative`` divides by it, giving values in [0, 1])."""

    power: str
    values: Mapping[tuple[str, str], float]
    scale: float

    def of(self, kind: UnitKind, location: str) -> float:
        return self.values.get(node_of(kind, location), 0.0)

    def relative(self, kind: UnitKind, location: str) -> float:
        return self.of(kind, location) / self.scale if self.scale > 0 else 0.0


def base_values(board: Board, power: str, weights: Weights, season: SeasonWeights) -> dict[str, float]:
    """Province -> its undiffused value to ``power`` (0 for a province without a centre)."""
    tables, position = board.tables, board.position
    sizes = {p: weights.size(len(c)) for p, c in position.centers.items()}
    neutral = weights.size(weights.neutral_centres)
    owner = {centre: p for p, owned in position.centers.items() for centre in owned}
    threats = _adjacent_powers(board)
    base: dict[str, float] = {}
    for centre in sorted(tables.supply_centers):
        holder = owner.get(centre)
        if holder == power:
            others = [sizes.get(p, weights.size(0)) for p in threats.get(centre, ()) if p != power]
            base[centre] = season.defence * (max(others) if others else 0.0)
        else:
            base[centre] = season.attack * (sizes.get(holder, 0.0) if holder is not None else neutral)
    return base


def _adjacent_powers(board: Board) -> dict[str, set[str]]:
    """Province -> the powers with a unit that could move there (or standing there)."""
    tables = board.tables
    found: dict[str, set[str]] = {}
    for unit in board.position.units:
        found.setdefault(tables.prov_of.get(unit.location, unit.location), set()).add(unit.power)
        for province in tables.reach[unit.kind].get(unit.location, ()):
            found.setdefault(province, set()).add(unit.power)
    return found


def diffuse(graph: Graph, base: Mapping[str, float], steps: int, divisor: float = 5.0) -> list[dict[tuple[str, str], float]]:
    """The diffusion steps 0..steps-1 of a province base value over ``graph``'s nodes.

    Linear with non-negative coefficients: raising any base value never lowers any step."""
    current = {node: base.get(province, 0.0) for node, province in graph.province.items()}
    found = [current]
    for _ in range(steps - 1):
        current = {node: (value + sum(current[n] for n in graph.neighbours[node])) / divisor
                   for node, value in current.items()}
        found.append(current)
    return found


def value_map(board: Board, power: str, weights: Weights = DEFAULT_WEIGHTS, season: Season | None = None) -> ValueMap:
    """The value of every node to ``power`` on ``board`` (season weights of the position's
    phase unless ``season`` is given: the builds of a winter look at the spring ahead)."""
    graph = graph_of(board.variant)
    chosen = weights.season(season if season is not None else board.position.phase.season)
    steps = diffuse(graph, base_values(board, power, weights, chosen), len(chosen.steps), weights.divisor)
    strength, competition = _forces(board, power)
    values: dict[tuple[str, str], float] = {}
    for node, province in graph.province.items():
        total = sum(w * step[node] for w, step in zip(chosen.steps, steps))
        total += chosen.strength * strength.get(province, 0) - chosen.competition * competition.get(province, 0)
        values[node] = total
    scale = max((abs(v) for v in values.values()), default=0.0)
    return ValueMap(power, MappingProxyType(values), scale)


def _forces(board: Board, power: str) -> tuple[dict[str, int], dict[str, int]]:
    """Province -> our units that could move there; province -> the most units of any other
    single power that could."""
    counts: dict[str, dict[str, int]] = {}
    tables = board.tables
    for unit in board.position.units:
        for province in tables.reach[unit.kind].get(unit.location, ()):
            per_power = counts.setdefault(province, {})
            per_power[unit.power] = per_power.get(unit.power, 0) + 1
    strength = {p: c.get(power, 0) for p, c in counts.items()}
    competition = {p: max((n for q, n in c.items() if q != power), default=0) for p, c in counts.items()}
    return strength, competition
