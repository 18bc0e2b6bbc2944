"""The standings' queries on PostgreSQL: the final position's JSON read by the database, a
game rated at its end, the rebuild and a record (SQLite runs the rest of the tests)."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import select

from judge.standing.keeping import TurnVerdict, rate_finished_game, rebuild, record_turns
from judge.standing.records import record_of
from judge.store.engine import Store
from judge.store.models_game import Game, Membership
from judge.store.models_standing import RatingEntry
from judge.store.schema import upgrade

ENDED_AT = datetime(2026, 5, 1, tzinfo=timezone.utc)
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")


def test_rating_and_records_on_postgres(postgres_url):
    store = Store(postgres_url)
    upgrade(store.engine)
    try:
        with store.unit_of_work() as session:
            game = Game(name="pg", master_password_hash="x", status="ended", created_at=ENDED_AT, ended_at=ENDED_AT,
                        phase="F1905M", rules=["NO_PRESS"], outcome={"result": "solo", "powers": ["FRANCE"]},
                        position={"map": "standard", "units": {"FRANCE": ["A PAR"], "ENGLAND": ["F LON"]},
                                  "centers": {"FRANCE": ["PAR"], "ENGLAND": ["LON"], "ITALY": []}})
            session.add(game)
            session.flush()
            for index, power in enumerate(POWERS):
                member = Membership(game_id=game.id, role="player", power=power, address=f"P{index}@example.net",
                                    password_hash="x", joined_at=ENDED_AT)
                session.add(member)
                session.flush()
                record_turns(session, game.id, "S1901M", [TurnVerdict(
                    power, member.id, member.address, "late" if power == "ITALY" else "on_time")])
            assert rate_finished_game(session, game.id) == 7
            assert rate_finished_game(session, game.id) == 0  # once only
        with store.unit_of_work() as session:
            results = dict(session.execute(select(RatingEntry.player, RatingEntry.result)).all())
            assert results["p2@example.net"] == "solo" and results["p1@example.net"] == "survived"
            assert results["p4@example.net"] == "eliminated"
            pools = {pool for (pool,) in session.execute(select(RatingEntry.pool))}
            assert pools == {"gunboat"}
            before = sorted(session.execute(select(RatingEntry.player, RatingEntry.rating)).all())
            assert rebuild(session).entries == 7
            assert sorted(session.execute(select(RatingEntry.player, RatingEntry.rating)).all()) == before
            italy = record_of(session, ["p4@example.net"])  # stored as P4@...: any case finds it
            assert (italy.finished, italy.eliminations, italy.punctuality.late, italy.dedication) == (1, 1, 1, -2)
    finally:
        store.dispose()
