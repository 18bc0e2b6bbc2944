"""Deadlines of the fair assignment, for the scheduler pass.

    fair_due_work(session, judge, now) -> list[OutgoingMail]   # inside the caller's transaction
    run_fair_pass(store, settings, now)                           # a SchedulerTick of its own

A lottery whose deadline passed publishes the commitments that are in, counts silent
revealers as 0, or moves the escrow's peeling on; a blinded assignment whose witness has
been silent for a day is reported to the master (judge/services/fair_blind.py).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.config import JudgeSettings, Settings
from judge.outgoing import OutgoingMail, queue_all
from judge.services.fair_lottery import due_lotteries, lottery_due
from judge.services.fair_players import PassContext
from judge.store.engine import Store
from judge.store.models_game import Game


def fair_due_work(session: Session, judge: JudgeSettings, now: datetime) -> list[OutgoingMail]:
    ctx = PassContext(session, now, judge)
    from judge.services.fair_assign import due_list_reveals

    due_list_reveals(ctx)
    for row in due_lotteries(ctx, now):
        game = session.get(Game, row.game_id)
        if game is not None:
            lottery_due(ctx, game, row)
    from judge.services.fair_blind import blind_due_work

    blind_due_work(ctx)
    session.flush()
    return ctx.outgoing


def run_fair_pass(store: Store, settings: Settings, now: datetime) -> None:
    with store.unit_of_work() as session:
        mails = fair_due_work(session, settings.judge, now)
        queue_all(session, mails, settings.judge, now)
