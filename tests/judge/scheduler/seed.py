"""A started game written straight into a store (any dialect), for tests and benchmarks that
need games without the mail round trip."""

from __future__ import annotations

from datetime import datetime, timedelta

from adjudicator.api import initial_position
from adjudicator.jsonio import position_to_json
from judge.store.queries import variant_named
from judge.lifecycle import ACTIVE
from judge.store.models_game import MASTER, PLAYER, Game, Membership, OrderSet
from tests.judge.scheduler.driver import HOLDS

FAKE_HASH = "scrypt$256$8$1$00$00"  # never verified in these tests


def seed_game(session, name: str, now: datetime, *, orders: bool = True, due: datetime | None = None,
              deadline: datetime | None = None) -> Game:
    """An active S1901M game with seven players (and their orders when ``orders``)."""
    variant = variant_named("standard")
    position = initial_position(variant)
    game = Game(
        name=name, master_password_hash=FAKE_HASH, map_name="standard", rules=[], timing={}, zone="UTC",
        status=ACTIVE, position=position_to_json(position), phase=str(position.phase),
        deadline=deadline or now + timedelta(days=3), delay=0, next_due_at=due, created_at=now,
    )
    session.add(game)
    session.flush()
    session.add(Membership(game_id=game.id, role=MASTER, address=f"gm@{name}.test", password_hash=FAKE_HASH,
                           joined_at=now))
    for index, power in enumerate(p.name for p in variant.powers):
        session.add(Membership(game_id=game.id, role=PLAYER, power=power, address=f"p{index}@{name}.test",
                               password_hash=FAKE_HASH, joined_at=now))
        if orders:
            session.add(OrderSet(game_id=game.id, phase=game.phase, power=power, orders=HOLDS[power],
                                 submitted_at=now))
    return game
