"""Deadlines of the fair assignment, for the scheduler pass: time-driven work, so it is the
scheduler's (beside judge/edge/scheduler.py), not the mail commands'.  The steps a deadline
takes are here; what a deadline shares with a mail (publishing a lottery's commitments,
deciding it, asking for the next escrow layer, the revealed lists' assignment, a message
to the witness) is the fair flows' own, in judge/commands/fair_lottery, fair_escrow,
fair_assign and fair_blind.

    fair_due_work(session, judge, now, game_id=None) -> list[OutgoingMail]   # in the caller's transaction
    run_fair_pass(store, settings, now)        # judge.edge.scheduler.EXTRA_PASSES runs it every pass

A sealed game's list reveals whose deadline passed start the assignment; a lottery whose
deadline passed publishes the commitments that are in, counts silent revealers as 0, or
moves the escrow's peeling on (asks the next layer's holders, or counts the number as 0
when nobody who could open the layer answered); a blinded assignment whose witness has been
silent for a day is reported to the master and the witness sent its last message again.

``run_fair_pass`` takes each game with due work in its own transaction, claimed by a
guarded version bump of the game row (as the scheduler claims games), so two passes at
once never act twice on the same lottery.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from judge.commands.context import Ctx
from judge.commands.fair_assign import lists_revealed
from judge.commands.fair_blind import send_blind, tell_master
from judge.commands.fair_escrow import ask_for_layer, escrow_ring, replay_peeling
from judge.commands.fair_lottery import OPEN_STAGES, decide, maybe_publish, numbers_of
from judge.commands.fair_players import PassContext
from judge.config import JudgeSettings, Settings
from judge.crypto.escrow import mark_vanished, whom_to_ask
from judge.fair.blind_messages import WITNESS, BlindMessage, FormatPublished, ListReceipt, ShuffleRequest
from judge.fair.blind_protocol import GmSide, GmStage, list_digest
from judge.fair.serialize import from_data
from judge.mailio.outgoing import OutgoingMail, queue_all
from judge.store.core import rows_changed
from judge.store.engine import Store
from judge.store.models_fair import (LOTTERY_COMMITTING, LOTTERY_PEELING, LOTTERY_REVEALING, REVEALING_LISTS, ROLE_GM,
                                     BlindRun, FairAssignment, FairEscrow, FairLottery)
from judge.store.models_game import Game
from judge.store.queries import as_utc

#: How long a witness may be silent before the master is told (again each further such time).
SILENCE = timedelta(days=1)


def due_game_ids(session: Session, now: datetime) -> list[int]:
    """Games with a lottery or list-reveal deadline passed, or an unfinished blinded run."""
    lotteries = select(FairLottery.game_id).where(FairLottery.stage.in_(OPEN_STAGES), FairLottery.deadline <= now)
    lists = select(FairAssignment.game_id).where(FairAssignment.status == REVEALING_LISTS,
                                                 FairAssignment.reveal_deadline <= now)
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


def due_list_reveals(ctx: Ctx, game_id: int | None = None) -> None:
    """The scheduler pass: list reveals whose deadline has passed."""
    query = select(FairAssignment).where(FairAssignment.status == REVEALING_LISTS,
                                         FairAssignment.reveal_deadline <= ctx.now)
    if game_id is not None:
        query = query.where(FairAssignment.game_id == game_id)
    due = ctx.session.execute(query).scalars().all()
    for assignment in due:
        game = ctx.session.get(Game, assignment.game_id)
        if game is not None:
            lists_revealed(ctx, game, assignment)


def start_peeling_if_due(ctx: Ctx, game: Game, row: FairLottery) -> bool:
    """At the reveal deadline: if the escrowing player has not revealed, start peeling."""
    escrow = ctx.session.get(FairEscrow, row.id)
    if escrow is None:
        return False
    number = numbers_of(ctx, row).get(escrow.label)
    if number is None or number.number is not None or number.signature is None:
        return False
    row.stage = LOTTERY_PEELING
    ask_for_layer(ctx, game, row, escrow, number.signature, number.fingerprint or "")
    return True


def peeling_due(ctx: Ctx, game: Game, row: FairLottery) -> None:
    """Nobody who could open the current layer answered in time."""
    escrow = ctx.session.get(FairEscrow, row.id)
    assert escrow is not None
    escrower = numbers_of(ctx, row)[escrow.label]
    with escrow_ring(ctx, game) as ring:
        peeling = replay_peeling(ring, escrow, escrower.signature or b"", escrower.fingerprint or "")
        for fingerprint in escrow.asked:
            peeling = mark_vanished(peeling, fingerprint)
    escrow.vanished = sorted(set(escrow.vanished) | set(escrow.asked))
    if peeling.failure is not None or not whom_to_ask(peeling):
        escrow.result = f"the peeling broke down ({peeling.failure}); {escrow.label}'s number counts as 0"
        row.stage = LOTTERY_REVEALING
        decide(ctx, game, row)
        return
    ask_for_layer(ctx, game, row, escrow, escrower.signature or b"", escrower.fingerprint or "")


def blind_due_work(ctx: Ctx, game_id: int | None = None) -> None:
    """Tell the master about a witness silent for a day (again each further day)."""
    query = select(BlindRun).where(BlindRun.role == ROLE_GM, BlindRun.finished_at.is_(None))
    if game_id is not None:
        query = query.where(BlindRun.game_id == game_id)
    for run in ctx.session.execute(query).scalars().all():
        quiet_since = run.told_master_at or run.waiting_since
        if ctx.now - as_utc(quiet_since) < SILENCE:
            continue
        game = ctx.session.get(Game, run.game_id)
        state: GmSide = from_data(run.state)
        if game is None or WITNESS not in state.awaiting:
            continue
        run.told_master_at = ctx.now
        tell_master(ctx, game, f"the witness {run.witness_address} has not answered since "
                                f"{as_utc(run.waiting_since):%Y-%m-%d %H:%M} UTC ({state.stage.value}). "
                                "The game waits; nothing is lost: the judge has sent the witness its last "
                                "message again, and the assignment goes on when the witness answers.")
        send_blind(ctx, game, run, _last_to_witness(state))


def _last_to_witness(state: GmSide) -> tuple[BlindMessage, ...]:
    """The GM's last message to the witness, rebuilt from the state (sending it twice is
    harmless: the witness takes a repeated message as a repeat)."""
    if state.stage is GmStage.AWAITING_LIST:
        return (ShuffleRequest(state.players, state.format.length),)
    if state.stage is GmStage.AWAITING_BLINDS_COLLECTED:
        return (ListReceipt(list_digest(state.shuffled), len(state.shuffled)),)
    if state.stage is GmStage.AWAITING_BLINDS:
        return (FormatPublished((WITNESS,), state.format),)
    return ()  # waiting for players' receipts, which go to the witness directly
