"""A whole game between machine players, in process, through our adjudicator.

Every phase: each power that must order something is asked (``Player.orders``), the
phase is adjudicated, and play goes on until a power reaches the map's victory count or
the last phase of ``last_year`` (its winter) is over.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Mapping

from adjudicator import api
from adjudicator.types import Position, Variant
from bot.player import Player


@dataclass(frozen=True)
class GameRecord:
    """How a game ended: the final position, its winner (a solo), the phases played and the
    seconds each player spent choosing orders."""

    position: Position
    winner: str | None
    phases: int
    seconds: Mapping[str, float]  # power -> time spent in its player's orders()
    illegal_orders: int  # orders the adjudicator's parser refused (a correct player gives none)

    def centres(self, power: str) -> int:
        return len(self.position.centers.get(power, ()))

    def survived(self, power: str) -> bool:
        return self.centres(power) > 0 or any(u.power == power for u in self.position.units)


def play(variant: Variant, players: Mapping[str, Player], last_year: int = 1910,
         start: Position | None = None) -> GameRecord:
    """Play from ``start`` (the map's first spring by default) to a solo or the end of ``last_year``."""
    position = start if start is not None else api.initial_position(variant)
    seconds = {power: 0.0 for power in players}
    phases = illegal = 0
    winner = None
    while position.phase.year <= last_year and winner is None:
        board = api.prepare(variant, position)
        orders = {}
        for power in api.requirements(board):
            started = time.perf_counter()
            given = players[power].orders(board, power)
            seconds[power] += time.perf_counter() - started
            # through the parser, as a player's mail would go: what it refuses is counted
            orders[power] = api.parse_orders(board, power, [order.canonical() for order in given])
            illegal += len(orders[power].errors)
        outcome = api.adjudicate(board, orders)
        position, winner = outcome.position, outcome.winner
        phases += 1
    return GameRecord(position, winner, phases, seconds, illegal)
