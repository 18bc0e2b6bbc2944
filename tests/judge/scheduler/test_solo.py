"""A solo at the map's victory count ends the game from the scheduler pass."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import select

from judge.config import Settings
from judge.store.queries import variant_named
from judge.store.models_game import Game, OrderSet
from judge.store.models_mail import OutboxMessage
from judge.edge.scheduler import PROCESSED, run_pass
from tests.judge.scheduler.seed import seed_game
from tests.judge.commands.harness import JUDGE
from tests.judge.storage import migrated_store

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


def test_the_eighteenth_centre_ends_the_game(tmp_path):
    variant = variant_named("standard")
    others = sorted(variant.supply_centers - {"MUN", "BER"})[:17]
    store = migrated_store(tmp_path, "j.db")
    with store.unit_of_work() as session:
        game = seed_game(session, "solo", NOW, orders=False, due=NOW)
        game.position = {"map": "standard", "phase": "F1905M",
                         "units": {"FRANCE": ["A BUR"], "GERMANY": ["A BER"]},
                         "centers": {"FRANCE": others, "GERMANY": ["BER", "MUN"]}}
        game.phase = "F1905M"
        session.flush()
        session.add(OrderSet(game_id=game.id, phase="F1905M", power="FRANCE", orders=["A BUR - MUN"], submitted_at=NOW))
        session.add(OrderSet(game_id=game.id, phase="F1905M", power="GERMANY", orders=["A BER H"], submitted_at=NOW))
    report = run_pass(store, Settings(judge=JUDGE), NOW)
    assert report.count(PROCESSED) == 1
    with store.unit_of_work() as session:
        game = session.execute(select(Game)).scalar_one()
        assert game.status == "ended" and game.next_due_at is None
        assert game.outcome == {"result": "solo", "powers": ["FRANCE"], "phase": "W1905A"}
        kinds = [row.kind for row in session.execute(select(OutboxMessage)).scalars()]
        ends = [row.raw.decode() for row in session.execute(select(OutboxMessage)).scalars() if row.kind == "game_end"]
    store.dispose()
    assert kinds.count("results") == 8 and kinds.count("game_end") == 8
    assert "Subject: solo: game over, FRANCE wins" in ends[0]
    assert "FRANCE has won with a solo victory." in ends[0]
    assert "p0@solo.test" in ends[0]  # the players revealed
