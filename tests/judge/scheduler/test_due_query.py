"""Due games are found through the due-time index; idle and stale games cost a pass nothing."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import event, select

from judge.config import Settings
from judge.lifecycle import ENDED
from judge.store.models_game import Game
from judge.edge.scheduler import PROCESSED, due_games, run_pass
from tests.judge.scheduler.seed import seed_game
from tests.judge.commands.harness import JUDGE
from tests.judge.storage import migrated_store

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


def test_the_due_query_searches_the_due_time_index(tmp_path):
    store = migrated_store(tmp_path, "j.db")
    with store.unit_of_work() as session:
        seen: list[str] = []

        @event.listens_for(store.engine, "before_cursor_execute")
        def remember(conn, cursor, statement, params, context, executemany):
            seen.append(statement)

        due_games(session, NOW)
        compiled = next(s for s in seen if "FROM game" in s)
        raw = session.connection().exec_driver_sql("EXPLAIN QUERY PLAN " + compiled, (NOW.replace(tzinfo=None),))
        plan = raw.all()
    store.dispose()
    details = " ".join(str(row[-1]) for row in plan)
    assert "ix_game_next_due_at" in details, details


def test_idle_and_stale_games_are_left_alone(tmp_path):
    store = migrated_store(tmp_path, "j.db")
    with store.unit_of_work() as session:
        seed_game(session, "idle", NOW, due=NOW + timedelta(hours=3))
        seed_game(session, "asleep", NOW, due=None)
        stale = seed_game(session, "over", NOW, due=NOW - timedelta(hours=1))
        stale.status = ENDED
        seed_game(session, "due", NOW, due=NOW)
    report = run_pass(store, Settings(judge=JUDGE), NOW)
    assert report.due == 1 and report.count(PROCESSED) == 1
    with store.unit_of_work() as session:
        due = dict(session.execute(select(Game.name, Game.next_due_at)).all())
    assert due["over"] is None  # cleared: never listed again
    assert due["idle"] == NOW + timedelta(hours=3) and due["asleep"] is None
    assert run_pass(store, Settings(judge=JUDGE), NOW).due == 0
    store.dispose()
