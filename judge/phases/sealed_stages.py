"""The stages of a RULE SEALED phase driven forward: by the scheduler pass (``sealed_act``)
and by the master's PROCESS / PROCESS! (``master_process``).  What the stages are, and
the reads and broadcasts they use, are judge/phases/sealed_flow.py's.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail
from judge.phases.outcomes import NOTIFIED, PROCESSED as PASS_PROCESSED, WAITED
from judge.phases.order_sources import awaiting_bot
from judge.phases.processing import process_phase
from judge.phases.sealed_flow import (
    all_committed,
    close_commitments,
    current_phase,
    is_sealed,
    ready_to_process,
    unverified,
)
from judge.refusal import CommandRefused
from judge.lifecycle import ACTIVE
from judge.store.models_game import Game
from judge.store.models_sealed import COMMITTING
from judge.store.queries import as_utc


def maybe_process(session: Session, game: Game, judge: JudgeSettings, now: datetime) -> list[OutgoingMail]:
    """Process the phase if the reveal window allows it (the last REVEAL, or the deadline)."""
    if game.status != ACTIVE or game.phase is None:
        return []
    stage = current_phase(session, game, now)
    if not ready_to_process(session, game, stage, now):
        return []
    defaulted = unverified(session, game, stage)
    if awaiting_bot(session, game, defaulted, now):
        return []  # the bot process makes the game due again when its moves are in
    return process_phase(session, game, judge, now, defaulted=defaulted)


def sealed_act(session: Session, game: Game, judge: JudgeSettings, now: datetime) -> tuple[str, list[OutgoingMail]] | None:
    """The scheduler pass for a sealed game (None for other games: the normal turn logic).

    No reminders or late notices: they would tell who has not committed.
    """
    if not is_sealed(game):
        return None
    stage = current_phase(session, game, now)
    mails: list[OutgoingMail] = []
    if stage.stage == COMMITTING:
        deadline = as_utc(game.deadline) if game.deadline is not None else None
        if all_committed(session, game, stage) or (deadline is not None and now >= deadline):
            mails += close_commitments(session, game, judge, now, stage)
        else:
            game.next_due_at = deadline
            return WAITED, []
    processed = maybe_process(session, game, judge, now)
    if processed:
        return PASS_PROCESSED, mails + processed
    if stage.reveal_deadline is not None:
        game.next_due_at = as_utc(stage.reveal_deadline)
    return (NOTIFIED if mails else WAITED), mails


def master_process(session: Session, game: Game, judge: JudgeSettings, now: datetime, *,
                   force: bool) -> tuple[str, list[OutgoingMail]]:
    """The master's PROCESS / PROCESS! in a sealed game: end the current stage early.

    While committing, PROCESS! publishes the commitments made so far (the others' units
    will hold) and opens the reveal window; while revealing, it processes the phase now
    (powers without a verified reveal hold).  PROCESS does the same only when the stage
    is complete anyway.  Refusals never name powers: that would tell who has committed.
    """
    stage = current_phase(session, game, now)
    word = "PROCESS!" if force else "PROCESS"
    if stage.stage == COMMITTING:
        if not force and not all_committed(session, game, stage):
            raise CommandRefused(
                f"PROCESS: the commitments for {stage.phase} are not all in (who is missing is not shown: it "
                "would tell who has committed); PROCESS! publishes the commitments made so far and opens the "
                "reveal window"
            )
        mails = close_commitments(session, game, judge, now, stage)
        processed = maybe_process(session, game, judge, now)
        if processed:
            return f"{word}: commitments published; nothing to reveal, so {stage.phase} was processed", mails + processed
        return f"{word}: commitments for {stage.phase} published; the reveal window is open", mails
    if not force and not ready_to_process(session, game, stage, now):
        raise CommandRefused(
            f"PROCESS: the reveals for {stage.phase} are not all in; PROCESS! processes now, and every power "
            "without a verified reveal holds"
        )
    phase = stage.phase
    defaulted = unverified(session, game, stage)
    awaiting = awaiting_bot(session, game, defaulted, now)
    if awaiting:
        return (f"{word}: {phase} not processed yet: the judge's bot is making the moves of "
                f"{', '.join(sorted(awaiting))} (it started now); send {word} again in a minute", [])
    mails = process_phase(session, game, judge, now, defaulted=defaulted)
    return f"{word}: {phase} processed (powers without a verified reveal hold)", mails
