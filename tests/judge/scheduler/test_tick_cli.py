"""`judge tick` (one pass and exit) and the test-only clock file."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from judge.daemon.clockfile import ClockFileError, FileClock, set_clock
from judge.store.engine import Store
from judge.store.models_game import Game
from tests.fixtures.judge_process import run_judge
from tests.judge.scheduler.seed import seed_game
from tests.judge.storage import migrated_store

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


def test_tick_processes_the_due_game_at_the_clock_files_time(tmp_path):
    store = migrated_store(tmp_path, "judge.db")
    with store.unit_of_work() as session:
        seed_game(session, "g1", NOW, due=NOW)
    store.dispose()
    clock = tmp_path / "clock"
    set_clock(clock, NOW)
    done = run_judge(["tick", "--clock-file", str(clock)], tmp_path)
    assert done.returncode == 0 and "1 due game(s)" in done.stdout and "1 processed" in done.stdout, done.stderr
    store = Store(f"sqlite:///{tmp_path / 'judge.db'}")
    with store.unit_of_work() as session:
        assert session.execute(select(Game.phase)).scalar() == "F1901M"
    store.dispose()


def test_a_bad_clock_file_is_refused_quoting_it(tmp_path):
    clock = tmp_path / "clock"
    clock.write_text("next tuesday\n")
    with pytest.raises(ClockFileError, match="'next tuesday', not an ISO 8601 instant"):
        FileClock(clock)
    clock.write_text("2026-03-02T12:00:00\n")
    with pytest.raises(ClockFileError, match="no UTC offset"):
        FileClock(clock)
    result = run_judge(["tick", "--clock-file", str(tmp_path / "missing")], tmp_path)
    assert result.returncode == 2 and "cannot be read" in result.stderr


def test_the_clock_follows_the_file(tmp_path):
    clock_path = tmp_path / "clock"
    set_clock(clock_path, NOW)
    clock = FileClock(clock_path)
    assert clock() == NOW
    set_clock(clock_path, NOW + timedelta(days=3))
    assert clock() == NOW + timedelta(days=3)
