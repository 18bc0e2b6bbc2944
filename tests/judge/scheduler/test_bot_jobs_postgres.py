"""The judge's bot's jobs shared by several judges on one PostgreSQL: a claim skips a job
another judge holds (no waiting), and two bot workers at once do every job once and have
the phase processed once."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from judge.daemon.bot_worker import BotWorker
from judge.edge.scheduler import run_pass
from judge.phases.bot_moves import claim_job
from judge.store.leases import Owner, register
from judge.store.models_bots import BotJob
from judge.store.models_game import PhaseRecord
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.scheduler.driver import HOLDS, SETTINGS, TurnHarness

pytestmark = pytest.mark.postgres


def test_two_judges_share_the_bots_jobs_on_postgresql(tmp_path, postgres_url) -> None:
    judge = TurnHarness(tmp_path, url=postgres_url)
    try:
        create_game(judge, "TIMING GRACE 12H", "RULE CIVIL_DISORDER", "RULE CD_BOT")
        seats = fill_game(judge)
        for power, seat in seats.items():
            if power not in ("ENGLAND", "ITALY"):
                judge.orders(seat, HOLDS[power])
        judge.advance(days=6, hours=13)
        run_pass(judge.store, SETTINGS, judge.now)
        first, second = Owner.this_process(), Owner.this_process()
        register(judge.store, first)
        register(judge.store, second)
        with judge.store.unit_of_work(now=judge.now) as one:  # the first judge's claim, not committed yet
            held = claim_job(one, first.id, judge.now, 3).job
            with judge.store.unit_of_work(now=judge.now) as other:  # the second skips it at once
                taken = claim_job(other, second.id, judge.now, 3).job
        assert held is not None and taken is not None and {held.power, taken.power} == {"ENGLAND", "ITALY"}

        with judge.store.unit_of_work() as session:  # both given back: two workers race for them
            for job in session.scalars(select(BotJob)):
                job.claimed_by = None
        workers = [BotWorker(judge.store, SETTINGS, clock=lambda: judge.now) for _ in range(2)]
        done: list[int] = []
        for worker in workers:
            worker.start()
        threads = [threading.Thread(target=lambda w=worker: done.append(w.work_all())) for worker in workers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for worker in workers:
            worker.stop()
        with judge.session() as session:
            finished = session.execute(select(BotJob.power, BotJob.attempts, BotJob.done_at.is_not(None))).all()
            records = session.scalars(select(PhaseRecord.phase)).all()
        assert sorted(done) == [0, 2] or sorted(done) == [1, 1]  # two jobs, each done by one worker
        assert sorted(finished) == [("ENGLAND", 2, True), ("ITALY", 2, True)]
        assert records == ["S1901M"] and judge.game()["phase"] == "F1901M"  # processed once
    finally:
        judge.close()
