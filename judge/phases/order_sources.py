"""Where a phase's orders come from: one place asks, for every kind of game.

    phase_orders(session, game) -> {power: [canonical order lines]}

A plain game's orders are the ones its players stored (by mail); a RULE SEALED game's are
read from the verified reveals (judge/phases/sealed_flow.py).  A power missing from the
mapping has no orders: the engine's civil-disorder defaults apply.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from sqlalchemy.orm import Session

from judge.phases.sealed_flow import sealed_orders
from judge.phases.turnstate import orders_in
from judge.store.models_game import Game


def phase_orders(session: Session, game: Game) -> Mapping[str, Sequence[str]]:
    sealed = sealed_orders(session, game)
    return orders_in(session, game) if sealed is None else sealed
