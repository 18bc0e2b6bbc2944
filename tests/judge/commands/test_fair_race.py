"""A lottery REVEAL by mail racing the scheduler's deadline pass that closes the same lottery.

The mail has read the lottery (still revealing) when a scheduler pass, in its own session
and transaction, finds the reveal deadline passed, counts the silent player as 0, decides
the lottery and commits.  The mail must not decide it a second time: it holds the game
through Game.version (judge.commands.fair_players.claim_game), meets the pass's version
bump, and the worker runs it again on the new state, where the lottery is closed.

PostgreSQL (read committed) is where the two transactions can interleave.  On SQLite every
transaction begins with BEGIN IMMEDIATE and the process's writers take turns
(judge/store/engine.py), so the pass cannot commit inside the mail's transaction there.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from judge.config import Settings
from judge.commands import fair_lottery
from judge.store.models_fair import FairLottery
from judge.store.models_mail import InboundMessage, OutboxMessage
from judge.edge.scheduler import run_pass
from tests.judge.commands.harness import JUDGE, JudgeHarness
from tests.judge.commands.test_fair_lottery import commit_all, reveal, start_first_lottery

pytestmark = pytest.mark.postgres


def test_a_reveal_racing_the_deadline_pass_never_decides_the_lottery_twice(tmp_path, postgres_url, monkeypatch):
    judge = JudgeHarness(tmp_path, url=postgres_url)
    judge.worker.conflict_backoff = lambda attempt: 0.0
    try:
        start_first_lottery(judge)  # seven players want France: one lottery, N = 7
        commit_all(judge, [1, 2, 3, 4, 5, 6, 6])
        for index, number in enumerate([1, 2, 3, 4, 5, 6]):
            assert "ERROR" not in reveal(judge, index, number).reply.body
        judge.advance(days=1, hours=1)  # P7's reveal comes after the reveal deadline

        original = fair_lottery.open_lottery_of
        passes = []

        def read_then_let_the_pass_in(ctx, game):
            row = original(ctx, game)  # the mail has read the lottery: still revealing
            if not passes:
                passes.append(run_pass(judge.store, Settings(judge=JUDGE), judge.now))  # another session
            return row

        monkeypatch.setattr(fair_lottery, "open_lottery_of", read_then_let_the_pass_in)
        out = reveal(judge, 6, 6)
        assert passes, "the deadline pass did not run inside the mail's transaction"

        with judge.session() as session:
            results = session.execute(select(OutboxMessage).where(OutboxMessage.kind == "fair_lottery_result")
                                      .order_by(OutboxMessage.id)).scalars().all()
            subjects = {bytes(row.raw).split(b"Subject: ", 1)[1].split(b"\n", 1)[0] for row in results}
            assert subjects == {b"g1: lottery 1 result"}  # one decision, one broadcast (to everyone)
            first = session.execute(select(FairLottery).where(FairLottery.seq == 1)).scalar_one()
            assert first.outcome["defaulted"] == ["P7"] and first.outcome["number"] == 0  # 21 mod 7
            assert session.execute(select(InboundMessage.status).order_by(InboundMessage.id.desc())
                                   .limit(1)).scalar_one() == "processed"  # not shunted
        assert "revealed for lottery 1" not in out.reply.body
    finally:
        judge.close()
