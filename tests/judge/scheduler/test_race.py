"""Two scheduler passes racing on the same due game (two daemons on one database) process it
exactly once; a pass that crashes mid-processing leaves the game unprocessed and due."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import pytest
from sqlalchemy import func, select

from judge.config import Settings
from judge.store.engine import Store
from judge.store.models_game import Game, PhaseRecord
from judge.store.models_mail import OutboxMessage
from judge.store.schema import upgrade
from judge.edge import scheduler
from tests.judge.scheduler.seed import seed_game
from tests.judge.commands.harness import JUDGE
from tests.judge.storage import migrated_store

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
SETTINGS = Settings(judge=JUDGE)


def race(url: str, monkeypatch: pytest.MonkeyPatch, passes: int = 2) -> list[scheduler.PassReport]:
    """Seed one ready game, then run ``passes`` passes at once, each on its own engine; every
    pass lists the game as due before any of them tries to claim it.

    (On SQLite the claim transactions still queue on the write lock, BEGIN IMMEDIATE; the
    later one finds the version changed.  On PostgreSQL they overlap: SKIP LOCKED or the
    version guard turns the others away.)"""
    setup = Store(url)
    upgrade(setup.engine)
    with setup.unit_of_work() as session:
        seed_game(session, "race", NOW, due=NOW)
    setup.dispose()

    listed = threading.Barrier(passes, timeout=30)
    original = scheduler.claim

    def wait_then_claim(session, game_id, version, now):
        listed.wait()  # every pass has listed the game (in its own, finished, transaction)
        return original(session, game_id, version, now)

    monkeypatch.setattr(scheduler, "claim", wait_then_claim)
    stores = [Store(url) for _ in range(passes)]
    reports: list[scheduler.PassReport] = []
    errors: list[BaseException] = []

    def one_pass(store: Store) -> None:
        try:
            reports.append(scheduler.run_pass(store, SETTINGS, NOW))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one_pass, args=(store,)) for store in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a pass did not finish within 60 s"
    for store in stores:
        store.dispose()
    assert not errors, errors
    return reports


def processed_once(url: str, reports: list[scheduler.PassReport]) -> None:
    assert all(r.due == 1 for r in reports)  # every pass saw the game due
    assert sorted(r.count(scheduler.PROCESSED) for r in reports) == [0] * (len(reports) - 1) + [1]
    assert sum(r.count(scheduler.SKIPPED) for r in reports) == len(reports) - 1
    store = Store(url)
    with store.unit_of_work() as session:
        assert session.execute(select(func.count()).select_from(PhaseRecord)).scalar() == 1
        assert session.execute(select(Game.phase)).scalar() == "F1901M"
        results = session.execute(
            select(func.count()).select_from(OutboxMessage).where(OutboxMessage.kind == "results")
        ).scalar()
        assert results == 8  # one copy per player and the master, not two
    store.dispose()


def test_two_passes_on_sqlite_process_once(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'race.db'}"
    processed_once(url, race(url, monkeypatch))


@pytest.mark.postgres
def test_two_passes_on_postgresql_process_once(postgres_url, monkeypatch):
    processed_once(postgres_url, race(postgres_url, monkeypatch, passes=3))


def test_a_crash_mid_processing_leaves_the_phase_for_the_next_pass(tmp_path, monkeypatch):
    store = migrated_store(tmp_path, "crash.db")
    with store.unit_of_work() as session:
        seed_game(session, "crash", NOW, due=NOW)

    from judge.phases import processing

    def broken_render(*args, **kwargs):
        raise RuntimeError("power cut while rendering the results")

    monkeypatch.setattr(processing, "render", broken_render)
    report = scheduler.run_pass(store, SETTINGS, NOW)
    assert report.count(scheduler.FAILED) == 1
    with store.unit_of_work() as session:
        assert session.execute(select(Game.phase, Game.next_due_at)).one() == ("S1901M", NOW)
        assert session.execute(select(func.count()).select_from(PhaseRecord)).scalar() == 0
        assert session.execute(select(func.count()).select_from(OutboxMessage)).scalar() == 0
    monkeypatch.undo()
    assert scheduler.run_pass(store, SETTINGS, NOW).count(scheduler.PROCESSED) == 1
    with store.unit_of_work() as session:
        assert session.execute(select(Game.phase)).scalar() == "F1901M"
    store.dispose()
