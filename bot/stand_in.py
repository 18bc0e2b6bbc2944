"""The bot as a stand-in: the orders of a power nobody plays (civil disorder, an empty seat),
as the canonical lines a player would have sent.

Deterministic: the search budget is counted in evaluations (no clock), and the seed comes
from the game's name, so a phase processed again (a rollback, an audit) gets the same
orders.  About a second per power on the shared development machine.
"""

from __future__ import annotations

import hashlib

from adjudicator import api
from adjudicator.types import Position, Variant
from bot.agreements import NO_AGREEMENTS, Agreements
from bot.player import Budget
from bot.search import StrategicBot

STAND_IN_BUDGET = Budget(iterations=1500, seconds=None)


def game_seed(name: str) -> int:
    """A seed from a game's name: the same on every run and machine."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:4], "big")


def stand_in_lines(variant: Variant, position: Position, power: str, seed: int,
                   budget: Budget = STAND_IN_BUDGET, agreements: Agreements = NO_AGREEMENTS) -> list[str]:
    """``power``'s orders in ``position`` by the strategic bot, within what a negotiator
    agreed (``agreements``: a seat that talks), as canonical lines (none when it has nothing
    to order)."""
    board = api.prepare(variant, position)
    if power not in api.requirements(board):
        return []
    return [order.canonical() for order in StrategicBot(seed, budget).orders(board, power, agreements)]
