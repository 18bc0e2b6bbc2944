"""A DumbBot-style player, written from the published description of David Norman's DumbBot
(daide.org.uk, "DumbBot Algorithm"), not from its source.

Stage one values every place (``bot.values``: centres by size, diffused over the map,
strength and competition).  Stage two orders each unit, in random order: it takes the
best-valued place among its own and its neighbours', with a chance of taking the next best
that grows the closer the next one's value is to the best.  Staying put is a hold.  A place
another of our units is already moving to, or staying in, is taken only if that unit needs
help (someone else could contest the place): then we support it; otherwise the unit looks
at its next choice.  Retreats go to the best free place, builds to the best home centres,
removals take the least valuable units (``bot.adjust``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from adjudicator.api import Board
from adjudicator.orders import Hold, Move, Order, SupportHold, SupportMove
from adjudicator.types import PhaseKind, Unit, province_of
from bot.adjust import orders_by_value
from bot.player import phase_rng
from bot.values import DEFAULT_WEIGHTS, ValueMap, Weights, value_map


@dataclass(frozen=True)
class DumbBot:
    seed: int = 0
    weights: Weights = DEFAULT_WEIGHTS
    alternative_percent: int = 50  # how likely the next-best place is taken when it is as good as the best
    difference_modifier: float = 5.0  # how fast that chance falls as the next-best gets worse
    name: str = field(default="DumbBot")

    def orders(self, board: Board, power: str) -> list[Order]:
        if board.position.phase.kind is not PhaseKind.MOVEMENT:
            return orders_by_value(board, power, self.weights)
        return self.movement_orders(board, power, value_map(board, power, self.weights))

    def movement_orders(self, board: Board, power: str, values: ValueMap) -> list[Order]:
        """The orders of a movement phase on ``values``, which must be ``value_map(board,
        power, self.weights)`` (a caller that has it already saves computing it again)."""
        return self._movement(board, power, values, phase_rng(self.seed, board, power, self.name))

    def _movement(self, board: Board, power: str, values: ValueMap, rng: random.Random) -> list[Order]:
        tables = board.tables
        ours = [u for p, u in sorted(board.units.items()) if u.power == power]
        rng.shuffle(ours)
        contested = _contested(board, power)
        moving: dict[str, Unit] = {}  # target province -> our unit moving there
        staying: dict[str, Unit] = {}  # province -> our unit that stays there
        orders: dict[str, Order] = {}
        for unit in ours:
            here = unit.province
            places = [unit.location, *tables.steps[unit.kind].get(unit.location, ())]
            ranked = sorted(places, key=lambda loc: (-values.of(unit.kind, loc), loc))
            order: Order | None = None
            for location in self._preference(ranked, unit, values, rng):
                target = province_of(location)
                if target == here:
                    order = Hold(unit)
                    break
                if target in moving:
                    if target in contested:
                        order = SupportMove(unit, moving[target], target)
                        break
                    continue
                if target in staying:
                    if target in contested:
                        order = SupportHold(unit, staying[target])
                        break
                    continue
                order = Move(unit, location)
                break
            if order is None:
                order = Hold(unit)
            if type(order) is Move:
                moving[province_of(order.destination)] = unit
            else:
                staying[here] = unit
            orders[here] = order
        return [orders[p] for p in sorted(orders)]

    def _preference(self, ranked: list[str], unit: Unit, values: ValueMap, rng: random.Random) -> list[str]:
        """``ranked`` (best first) with the first choice possibly passed over for the next ones:
        each next place is chosen with a chance that falls with its distance from the best."""
        best = values.of(unit.kind, ranked[0])
        start = 0
        while start + 1 < len(ranked):
            following = values.of(unit.kind, ranked[start + 1])
            gap = (best - following) / best if best > 0 else 1.0
            chance = self.alternative_percent * max(0.0, 1.0 - self.difference_modifier * gap)
            if rng.randrange(100) >= chance:
                break
            start += 1
        return ranked[start:] + ranked[:start]


def _contested(board: Board, power: str) -> set[str]:
    """Provinces some other power's unit could move into (or stands in)."""
    tables = board.tables
    found: set[str] = set()
    for province, unit in board.units.items():
        if unit.power != power:
            found.add(province)
            found.update(tables.reach[unit.kind].get(unit.location, ()))
    return found
