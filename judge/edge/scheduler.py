"""One scheduler pass: every due game looked at, each in its own transaction.

    run_pass(store, settings, now) -> PassReport      # [scheduler] handler, and `judge tick`

Due games are found by the indexed query ``status = active AND next_due_at <= now``; every
change that can make a game ready sets ``next_due_at`` (the unit of work: judge/store/schedule.py)
and every pass stores the next due time the turn logic computes (judge.turns.next_due), so
an idle game costs a pass nothing.

Two passes may run at once (two daemons on one database, or `judge tick` from cron next to
a daemon).  A game is claimed by a guarded state transition before anything is done:
``UPDATE game SET version = version + 1 WHERE id = ? AND version = <version listed>``, and
the pass goes on only if that changed one row; on PostgreSQL the row is first locked with
``SELECT ... FOR UPDATE SKIP LOCKED`` so a second pass skips it instead of waiting.  The
claim, the decision, the processing and the queued mail commit together: a crash leaves
the game as it was and due, and the next pass does the work again.
"""

from __future__ import annotations

import logging
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from judge.store.core import rows_changed
from judge.lifecycle import ACTIVE
from judge.store.models_game import Game

if TYPE_CHECKING:
    from judge.config import JudgeSettings, Settings
    from judge.mailio.outgoing import OutgoingMail
    from judge.store.engine import Store

from judge.phases.outcomes import FAILED, NOTIFIED, PREVIEWED, PROCESSED, SKIPPED, WAITED  # noqa: F401

log = logging.getLogger("judge.scheduler")



@dataclass
class PassReport:
    """What one pass did: game ids by outcome, and how long it took."""

    due: int = 0
    outcomes: dict[str, list[int]] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, outcome: str, game_id: int) -> None:
        self.outcomes.setdefault(outcome, []).append(game_id)

    def count(self, outcome: str) -> int:
        return len(self.outcomes.get(outcome, ()))

    def __str__(self) -> str:
        parts = ", ".join(f"{len(ids)} {name}" for name, ids in sorted(self.outcomes.items()))
        return f"{self.due} due game(s) in {self.seconds:.3f} s" + (f": {parts}" if parts else "")


def due_games(session: Session, now: datetime) -> list[tuple[int, int]]:
    """(id, version) of the active games due at ``now``, the longest waiting first.

    Only the due-time index is searched (a status condition would let SQLite pick the
    status index and read every active game); a game that is due but no longer active
    (ended or paused without its due time cleared) gets its due time cleared here.
    """
    rows = session.execute(
        select(Game.id, Game.version, Game.status)
        .where(Game.next_due_at <= now)
        .order_by(Game.next_due_at, Game.id)
    ).all()
    stale = [game_id for game_id, _, status in rows if status != ACTIVE]
    if stale:
        session.execute(update(Game).where(Game.id.in_(stale), Game.status != ACTIVE)
                        .values(next_due_at=None).execution_options(synchronize_session=False))
        session.commit()
    return [(int(game_id), int(version)) for game_id, version, status in rows if status == ACTIVE]


def claim(session: Session, game_id: int, listed_version: int, now: datetime) -> Game | None:
    """Take ``game`` for this pass, or None when another pass has it or has done it."""
    if session.get_bind().dialect.name == "postgresql":
        locked = session.execute(
            select(Game.id)
            .where(Game.id == game_id, Game.version == listed_version)
            .with_for_update(skip_locked=True)
        ).scalar_one_or_none()
        if locked is None:
            return None
    changed = rows_changed(
        session,
        update(Game)
        .where(Game.id == game_id, Game.version == listed_version, Game.status == ACTIVE,
               Game.next_due_at <= now)
        .values(version=Game.version + 1)
        .execution_options(synchronize_session=False)
    )
    if changed != 1:
        return None
    return session.execute(
        select(Game).where(Game.id == game_id).execution_options(populate_existing=True)
    ).scalar_one()


def pass_game(session: Session, game: Game, judge: "JudgeSettings", now: datetime) -> tuple[str, list["OutgoingMail"]]:
    """Decide and act for one claimed game; -> (outcome, mail to queue)."""
    from judge.commands.fair_assign import fill_vacancies
    from judge.phases.turn_actions import act

    return act(session, game, judge, now, fill_vacancies=fill_vacancies)


def _run_extra_passes(store: "Store", settings: "Settings", now: datetime) -> None:
    """Other due work at the end of every pass: lottery and escrow deadlines, a silent
    blinded-assignment witness (judge/edge/fair_due.py)."""
    from judge.edge.fair_due import run_fair_pass

    try:
        run_fair_pass(store, settings, now)
    except Exception:
        log.exception("the fair-assignment pass failed; the next pass tries again")


def run_pass(store: "Store", settings: "Settings", now: datetime) -> PassReport:
    """Look at every due game once (the daemon's tick, `judge tick`)."""
    started = time.perf_counter()
    report = PassReport()
    with store.sessions() as session:
        due = due_games(session, now)
    report.due = len(due)
    with _signing_batch(settings, bool(due)):
        _pass_games(store, settings, now, due, report)
    _run_extra_passes(store, settings, now)
    _purge_old_mail(store, settings, now)
    report.seconds = time.perf_counter() - started
    if report.due:
        log.info("scheduler pass at %s: %s", now.isoformat(timespec="seconds"), report)
    return report


def process_games(store: "Store", settings: "Settings", now: datetime, game_ids: frozenset[int]) -> PassReport:
    """The pass for these games only, those of them that are due (the worker's after-commit
    step: phases a mail made ready are processed at once, not at the next tick).  Each is
    claimed as in ``run_pass``, so a pass running at the same time does it only once."""
    started = time.perf_counter()
    report = PassReport()
    with store.sessions() as session:
        due = [(int(game_id), int(version)) for game_id, version in session.execute(
            select(Game.id, Game.version).where(Game.id.in_(sorted(game_ids)), Game.status == ACTIVE,
                                                Game.next_due_at <= now).order_by(Game.id)).all()]
    report.due = len(due)
    if due:
        with _signing_batch(settings, True):
            _pass_games(store, settings, now, due, report)
    report.seconds = time.perf_counter() - started
    return report


def _purge_old_mail(store: "Store", settings: "Settings", now: datetime) -> None:
    """Raw bytes of mail processed longer ago than [store] keep_raw_days are emptied, the
    bodies of mail sent longer ago than [store] keep_sent_days, refused sign-ons older
    than a day forgotten, and the bot's jobs finished a week ago."""
    from judge.phases.bot_moves import KEEP_FINISHED, purge_finished
    from judge.store.retention import purge_raw, purge_sent, purge_signon_failures

    try:
        purged = purge_raw(store, now, settings.store.keep_raw_days)
        emptied = purge_sent(store, now, settings.store.keep_sent_days)
        purge_signon_failures(store, now)
        with store.unit_of_work() as session:
            purge_finished(session, now - KEEP_FINISHED)
    except Exception:
        log.exception("purging old raw mail failed; the next pass tries again")
        return
    if purged:
        log.info("raw bytes of %d mail(s) processed more than %d days ago emptied", purged,
                 settings.store.keep_raw_days)
    if emptied:
        log.info("bodies of %d mail(s) sent more than %d days ago emptied (headers kept)", emptied,
                 settings.store.keep_sent_days)


def _signing_batch(settings: "Settings", needed: bool) -> AbstractContextManager[None]:
    """One gpg keyring (and agent) for all the broadcasts a pass signs."""
    from contextlib import nullcontext

    if not needed:
        return nullcontext()
    from judge.publish.signing import keyring_held

    return keyring_held(settings.judge)


def _draw_ahead(store: "Store", game_id: int, now: datetime) -> None:
    """The picture of a phase about to be processed, drawn before the game's write
    transaction (judge/phases/draw_ahead.py); a failure here only means the transaction
    draws it."""
    from judge.phases.draw_ahead import draw_ahead

    try:
        with store.sessions() as session:
            draw_ahead(session, game_id, now)
    except Exception:
        log.exception("game #%d: drawing the picture ahead failed; the phase's transaction draws it", game_id)


def _pass_games(store: "Store", settings: "Settings", now: datetime, due: list[tuple[int, int]],
                report: PassReport) -> None:
    from judge.mailio.outgoing import queue_all

    for game_id, version in due:
        _draw_ahead(store, game_id, now)
        try:
            with store.unit_of_work(now=now) as session:
                game = claim(session, game_id, version, now)
                if game is None:
                    report.add(SKIPPED, game_id)
                    continue
                outcome, mails = pass_game(session, game, settings.judge, now)
                queue_all(session, mails, settings.judge, now)
                name = game.name
            report.add(outcome, game_id)
            if outcome != WAITED:
                log.info("game %s: %s, %d mail queued", name, outcome, len(mails))
        except Exception:
            log.exception("game #%d: scheduler pass failed; the game stays due and is tried again", game_id)
            report.add(FAILED, game_id)

