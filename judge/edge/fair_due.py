"""Deadlines of the fair assignment, for the scheduler pass: time-driven work, so it is the
scheduler's (beside judge/edge/scheduler.py), not the mail commands'; it drives the fair
flows' own steps (judge/commands/fair_lottery, fair_escrow, fair_assign, fair_blind).

    fair_due_work(session, judge, now, game_id=None) -> list[OutgoingMail]   # in the caller's transaction
    run_fair_pass(store, settings, now)        # judge.edge.scheduler.EXTRA_PASSES runs it every pass

A sealed game's list reveals whose deadline passed start the assignment; a lottery whose
deadline passed publishes the commitments that are in, counts silent revealers as 0, or
moves the escrow's peeling on; a blinded assignment whose witness has been silent for a
day is reported to the master (judge/commands/fair_blind.py).

``run_fair_pass`` takes each game with due work in its own transaction, claimed by a
guarded version bump of the game row (as the scheduler claims games), so two passes at
once never act twice on the same lottery.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from judge.config import JudgeSettings, Settings
from judge.mailio.outgoing import OutgoingMail, queue_all
from judge.commands.fair_escrow import peeling_due, start_peeling_if_due
from judge.commands.fair_lottery import OPEN_STAGES, decide, maybe_publish
from judge.store.core import rows_changed
from judge.store.models_fair import LOTTERY_COMMITTING, LOTTERY_PEELING, LOTTERY_REVEALING
from judge.commands.context import Ctx
from judge.commands.fair_players import PassContext
from judge.store.engine import Store
from judge.store.models_fair import REVEALING_LISTS, FairAssignment, FairLottery
from judge.store.models_game import Game



def due_game_ids(session: Session, now: datetime) -> list[int]:
    """Games with a lottery or list-reveal deadline passed, or an unfinished blinded run."""
    from judge.store.models_fair import ROLE_GM, BlindRun

    lotteries = select(FairLottery.game_id).where(FairLottery.stage.in_(OPEN_STAGES), FairLottery.deadline <= now)
    lists = select(FairAssignment.game_id).where(FairAssignment.status == REVEALING_LISTS,
                                                 FairAssignment.reveal_deadline <= now)
    from judge.commands.fair_blind import SILENCE

    quiet = now - SILENCE
    blind = select(BlindRun.game_id).where(
        BlindRun.role == ROLE_GM, BlindRun.finished_at.is_(None), BlindRun.game_id.is_not(None),
        BlindRun.waiting_since <= quiet, or_(BlindRun.told_master_at.is_(None), BlindRun.told_master_at <= quiet))
    found: set[int] = set()
    for query in (lotteries, lists, blind):
        found.update(int(game_id) for game_id in session.execute(query).scalars() if game_id is not None)
    return sorted(found)


def fair_due_work(session: Session, judge: JudgeSettings, now: datetime, game_id: int | None = None) -> list[OutgoingMail]:
    ctx = PassContext(session, now, judge)
    from judge.commands.fair_assign import due_list_reveals
    from judge.commands.fair_blind import blind_due_work

    due_list_reveals(ctx, game_id)
    query = select(FairLottery).where(FairLottery.stage.in_(OPEN_STAGES), FairLottery.deadline <= now)
    if game_id is not None:
        query = query.where(FairLottery.game_id == game_id)
    for row in session.execute(query.order_by(FairLottery.deadline)).scalars().all():
        game = session.get(Game, row.game_id)
        if game is not None:
            lottery_due(ctx, game, row)
    blind_due_work(ctx, game_id)
    session.flush()
    return ctx.outgoing


def run_fair_pass(store: Store, settings: Settings, now: datetime) -> None:
    with store.sessions() as session:
        due = [(game_id, session.get(Game, game_id)) for game_id in due_game_ids(session, now)]
        listed = [(game_id, game.version) for game_id, game in due if game is not None]
    for game_id, version in listed:
        with store.unit_of_work(now=now) as session:
            claimed = rows_changed(
                session,
                update(Game).where(Game.id == game_id, Game.version == version)
                .values(version=Game.version + 1).execution_options(synchronize_session=False)
            )
            if not claimed:
                continue  # another pass (or a mail) changed the game: its work is seen next time
            mails = fair_due_work(session, settings.judge, now, game_id)
            queue_all(session, mails, settings.judge, now)


def lottery_due(ctx: Ctx, game: Game, row: FairLottery) -> None:
    """The lottery's deadline has passed: publish what is in, or count the silent as 0."""
    if row.stage == LOTTERY_COMMITTING:
        maybe_publish(ctx, game, row, deadline_passed=True)
        return
    if row.stage == LOTTERY_REVEALING:
        if start_peeling_if_due(ctx, game, row):
            return
        decide(ctx, game, row)
        return
    if row.stage == LOTTERY_PEELING:
        peeling_due(ctx, game, row)
