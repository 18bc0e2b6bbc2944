"""The judge's bot's moves as stored work: asked for by the turn path, made by a bot process.

    bot_moves(session, game, powers) -> BotMoves           # read only: finished lines, powers pending
    request_bot_moves(session, game, powers, now) -> int    # store the missing jobs (the caller commits)
    request_press_answer(session, game, power, press_id, now) -> int  # a seat's answer to press, as a job
    claim_job(session, owner, now, max_attempts) -> Claim   # a bot process takes the oldest waiting job
    finish_job(session, job_id, lines, now) -> int | None   # its lines stored once; the game made due
    finish_press_job(session, job_id, answered, now) -> Game | None  # done once; the game to speak in

Thinking never happens here or in any transaction: the turn path (judge/phases/order_sources.py
``awaiting_bot``) stores a job per power and position, leaves the phase unprocessed and is
woken when the last job of the position is finished.  A job is keyed by game, position
digest and power, so asking again, a redelivered pass or a second judge finds the same job,
and a rollback to a position already played finds its moves made.  The moves are the
stand-in's (bot/stand_in.py): deterministic for the position, the power and the game's
seed, so a job done twice (a process presumed dead that was only slow) gives the same lines.

A seat's answer to press (judge.press.machine_press.bot_hears) is a job of the same table, so it is
claimed, leased, retried and given up the same way; its ``digest`` is ``press <row id>`` (the
PressLog row to answer; never a position digest, so a phase never waits for it) and its
``lines`` the DAIDE texts it sent.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Collection, Mapping, Sequence

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.orm import Session

from adjudicator.api import position_digest
from bot.stand_in import game_seed
from judge.lifecycle import in_play
from judge.phases.bot_seats import is_bot_seat
from judge.phases.order_sets import merge_orders
from judge.phases.turnstate import after_orders, stored_order_set
from judge.store.core import rows_changed
from judge.store.models_bots import BotJob
from judge.store.models_game import Game, OrderSet
from judge.store.queries import player_of, position_of
from judge.store.schedule import touch_schedule

log = logging.getLogger("judge.bots")


class _StoredJobs:
    """How many bot jobs this process has stored so far (committed or not; a rolled-back one
    included: a needless wake-up costs a read, a missed one a poll interval).  Counted under
    a lock: the worker thread and the scheduler's thread both store jobs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    def add(self, jobs: int) -> None:
        with self._lock:
            self._count += jobs

    @property
    def count(self) -> int:
        return self._count


#: This process's count, read by StoredJobsWatch (most mails store no job).
_STORED_HERE = _StoredJobs()


class StoredJobsWatch:
    """Whether this process stored a bot job since the last look (``judge serve`` and a
    worker process wake the bot process after a mail only then)."""

    def __init__(self, stored: _StoredJobs = _STORED_HERE) -> None:
        self._stored = stored
        self._seen = stored.count

    def moved(self) -> bool:
        count = self._stored.count
        moved, self._seen = count != self._seen, count
        return moved


def _note_stored(jobs: int) -> None:
    _STORED_HERE.add(jobs)


#: How long a finished job is kept (a ROLLBACK within it finds the moves made; after it
#: they are made again, the same).
KEEP_FINISHED = timedelta(days=7)

__all__ = ["BotMoves", "BotMovesPending", "Claim", "Job", "bot_moves", "claim_job", "finish_job", "finish_press_job",
           "purge_finished", "request_bot_moves", "request_press_answer", "unfinished"]

#: A press job's digest: this and the PressLog row's id.
PRESS_JOB = "press "


class BotMovesPending(RuntimeError):
    """A phase was to be processed before the bot's moves for it were made (the turn path
    asks ``awaiting_bot`` first and waits; this guards the ones that forget)."""

    def __init__(self, game: str, powers: frozenset[str]) -> None:
        super().__init__(f"game {game}: the judge's bot has not made the moves of {', '.join(sorted(powers))} yet")
        self.powers = powers


@dataclass(frozen=True)
class BotMoves:
    """The bot's lines for the powers whose jobs are finished, and the powers still pending.
    A job given up (its process died on it too often) has no lines: civil-disorder defaults."""

    lines: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    pending: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Job:
    """What a bot process needs to think: nothing else of the game is read."""

    id: int
    game_id: int
    power: str
    digest: str
    map_name: str
    position: Mapping[str, Any]
    seed: int

    @property
    def press_id(self) -> int | None:
        """The PressLog row a press job answers (None: a moves job)."""
        return int(self.digest[len(PRESS_JOB):]) if self.digest.startswith(PRESS_JOB) else None


@dataclass(frozen=True)
class Claim:
    """The outcome of one claim: a job to think about, or none waiting (``job`` None);
    ``settled``: a job given up or found stale on the way (its game may move on)."""

    job: Job | None
    settled: int | None = None


def _digest(game: Game) -> str:
    return position_digest(position_of(game))


def bot_moves(session: Session, game: Game, powers: Collection[str]) -> BotMoves:
    if not powers:
        return BotMoves()
    rows = session.execute(
        select(BotJob.power, BotJob.lines)
        .where(BotJob.game_id == game.id, BotJob.digest == _digest(game), BotJob.power.in_(sorted(powers)),
               BotJob.done_at.is_not(None))
    ).all()
    lines = {str(power): tuple(str(line) for line in done or ()) for power, done in rows}
    return BotMoves(lines, frozenset(powers) - set(lines))


def request_bot_moves(session: Session, game: Game, powers: Collection[str], now: datetime) -> int:
    """Store a job for each of ``powers`` that has none for the game's position (an insert
    that skips the ones another transaction stored first); the number of new jobs."""
    if not powers:
        return 0
    digest = _digest(game)
    known = set(session.scalars(select(BotJob.power).where(
        BotJob.game_id == game.id, BotJob.digest == digest, BotJob.power.in_(sorted(powers)))))
    missing = sorted(set(powers) - known)
    if not missing:
        return 0
    rows = [{"game_id": game.id, "phase": game.phase, "power": power, "digest": digest, "map_name": game.map_name,
             "position": dict(game.position or {}), "seed": game_seed(game.name), "created_at": now,
             "attempts": 0} for power in missing]
    session.execute(_insert_new(session), rows)
    _note_stored(len(rows))
    log.info("game %s %s: the bot is asked for the moves of %s", game.name, game.phase, ", ".join(missing))
    return len(missing)


def request_press_answer(session: Session, game: Game, power: str, press_id: int, now: datetime) -> int:
    """Store the job of ``power``'s answer to the press of row ``press_id`` (once: a
    redelivered mail asks again and finds it); the number of new jobs."""
    digest = f"{PRESS_JOB}{press_id}"
    if session.scalar(select(BotJob.id).where(BotJob.game_id == game.id, BotJob.digest == digest,
                                              BotJob.power == power)) is not None:
        return 0
    row = {"game_id": game.id, "phase": game.phase, "power": power, "digest": digest, "map_name": game.map_name,
           "position": dict(game.position or {}), "seed": game_seed(game.name), "created_at": now, "attempts": 0}
    session.execute(_insert_new(session), [row])
    _note_stored(1)
    return 1


def _insert_new(session: Session) -> Any:
    """INSERT ... ON CONFLICT DO NOTHING in the store's dialect (two judges may ask at once)."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(BotJob).on_conflict_do_nothing()
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(BotJob).on_conflict_do_nothing()
    return insert(BotJob)


def unfinished(session: Session, game_id: int, digest: str) -> int:
    """How many jobs of this game's position are not finished."""
    return int(session.scalar(select(func.count()).select_from(BotJob).where(
        BotJob.game_id == game_id, BotJob.digest == digest, BotJob.done_at.is_(None))) or 0)


# A job nobody has claimed yet: what claim_job takes (its first statement, without the lock).
_WAITING_JOB = select(BotJob.id).where(BotJob.done_at.is_(None), BotJob.claimed_by.is_(None)).limit(1)


def job_waiting(connection: Connection) -> bool:
    """Whether claim_job would find a job to take, read without a write turn (``Store.reading``):
    a bot process is woken after every processed mail, and most mails queue no job."""
    return connection.scalar(_WAITING_JOB) is not None


def claim_job(session: Session, owner: str, now: datetime, max_attempts: int) -> Claim:
    """Take the oldest waiting job for ``owner`` (the caller commits at once, then thinks).

    PostgreSQL: the candidate is locked with SKIP LOCKED, so judges on one database never
    wait for each other; everywhere the claim is a guarded update that only a waiting job
    passes.  A job of a game that moved on (another phase, ended) is deleted, not thought
    about; a job claimed ``max_attempts`` times already (each of its processes died) is
    given up: finished without lines, so the phase goes on with civil-disorder defaults.
    """
    query = (select(BotJob.id).where(BotJob.done_at.is_(None), BotJob.claimed_by.is_(None))
             .order_by(BotJob.id).limit(1))
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    job_id = session.scalar(query)
    if job_id is None:
        return Claim(None)
    changed = rows_changed(session, update(BotJob)
                           .where(BotJob.id == job_id, BotJob.done_at.is_(None), BotJob.claimed_by.is_(None))
                           .values(claimed_by=owner, claimed_at=now, attempts=BotJob.attempts + 1)
                           .execution_options(synchronize_session=False))
    if changed != 1:
        return Claim(None)  # another process took it between the two statements (SQLite)
    row = session.execute(select(BotJob).where(BotJob.id == job_id)
                          .execution_options(populate_existing=True)).scalar_one()
    game = session.get(Game, row.game_id)
    if game is None or not in_play(game.status) or game.phase != row.phase:
        session.execute(delete(BotJob).where(BotJob.id == job_id))
        return Claim(None, settled=row.game_id)
    if row.attempts > max_attempts:
        log.error("game %s %s: the bot's moves for %s were started %d times without finishing; given up "
                  "(civil-disorder defaults)", game.name, row.phase, row.power, row.attempts - 1)
        finish_job(session, job_id, None, now)
        return Claim(None, settled=row.game_id)
    return Claim(Job(row.id, row.game_id, row.power, row.digest, row.map_name, dict(row.position), row.seed))


def finish_job(session: Session, job_id: int, lines: Sequence[str] | None, now: datetime) -> int | None:
    """Store a job's lines once (None: given up); the game's id when this call finished it.

    A seat the master gave the bot gets the lines as its stored orders, the way a mail's
    orders are stored (``store_power_orders``); and the game becomes due, so the next pass
    (the bot process runs one at once when this was the position's last job) processes the
    phase.  A job already finished by another process changes nothing.
    """
    changed = rows_changed(session, update(BotJob)
                           .where(BotJob.id == job_id, BotJob.done_at.is_(None))
                           .values(done_at=now, lines=None if lines is None else list(lines), claimed_by=None)
                           .execution_options(synchronize_session=False))
    if changed != 1:
        return None
    game_id, power, digest = session.execute(
        select(BotJob.game_id, BotJob.power, BotJob.digest).where(BotJob.id == job_id)).one()
    game = session.get(Game, game_id)
    if game is None or not in_play(game.status) or game.position is None or _digest(game) != digest:
        return None
    member = player_of(session, game, power)
    if lines and member is not None and is_bot_seat(member):
        store_power_orders(session, game, power, lines, now)
    touch_schedule(game, now)
    return int(game_id)


def finish_press_job(session: Session, job_id: int, answered: Sequence[str], now: datetime) -> Game | None:
    """Mark a press job done once, keeping what it said; the game when this call finished it
    and the game is still in the job's phase (then the caller records the answers)."""
    changed = rows_changed(session, update(BotJob)
                           .where(BotJob.id == job_id, BotJob.done_at.is_(None))
                           .values(done_at=now, lines=list(answered), claimed_by=None)
                           .execution_options(synchronize_session=False))
    if changed != 1:
        return None
    game_id, phase = session.execute(select(BotJob.game_id, BotJob.phase).where(BotJob.id == job_id)).one()
    game = session.get(Game, game_id)
    return game if game is not None and in_play(game.status) and game.phase == phase else None


def store_power_orders(session: Session, game: Game, power: str, canonical: Sequence[str], now: datetime) -> None:
    """Accepted canonical lines merged into the power's stored orders as a mail's are (a
    machine's SUB, the judge's bot).  When they complete the phase no settle window is kept
    (DELAY 0): a program does not change its mind."""
    row = stored_order_set(session, game, power)
    if row is None:
        row = OrderSet(game_id=game.id, phase=game.phase, power=power, orders=[], submitted_at=now)
        session.add(row)
    row.orders = merge_orders(list(row.orders or []), list(canonical))
    row.submitted_at = now
    after_orders(session, game, now)
    game.delay = 0


def purge_finished(session: Session, before: datetime) -> int:
    """Forget jobs finished before ``before`` (their moves are in the phase records)."""
    return rows_changed(session, delete(BotJob).where(BotJob.done_at.is_not(None), BotJob.done_at < before)
                        .execution_options(synchronize_session=False))
