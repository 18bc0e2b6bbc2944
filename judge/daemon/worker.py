"""The inbox worker: one stored message, one transaction.

For each stored-but-unprocessed message (oldest first): parse it, ask the loop guard
whether it may be answered, call the processing hook, queue the hook's mail in the
outbox, mark the message processed, commit.  An exception rolls all of that back and
records a shunt row with the traceback instead; the worker goes on with the next
message.  Because the row is only marked processed in the committing transaction, a
crash at any point leaves it "received" and it is processed after the restart.

A concurrency conflict (judge.store.conflicts: a game changed by a scheduler pass since
this transaction read it, a serialization failure or deadlock, SQLite's lock wait running
out) is not the mail's fault: the rolled-back transaction is run again from scratch, in a
new session, a few times after a short jittered pause, and only then shunted.  Nothing
of a failed attempt survives it, so the mail still takes effect exactly once.

A mail that kills the worker (out of memory, SIGKILL, a crash of the interpreter) leaves
no exception to shunt it by, and would be started again after every restart.  So before
processing starts, the mail's ``attempts`` count is raised in a transaction of its own
and committed: a mail found with ``max_attempts`` starts already counted is not started
again but shunted, with a reason for the operator.  Every shunt tells the sender (when
the mail may be answered) that nothing in it was done.

On SQLite the daemon takes the waiting mails in batches (``process_batch``: one
transaction for several mails; one that fails rolls the batch back and is shunted alone,
and the others are taken again).  A batch's starts are counted together, in one committed
statement before it runs, so a death counts each mail of the batch once; a mail counted
before is never batched again but taken alone, so after a death only the mail that kills
the worker goes on being counted and reaches ``max_attempts``.  There writers take turns
and the worker holds the turn longest, so before taking it the worker reads the waiting
mails and has the hook prepare them (``PreparingHook``: their commands parsed); inside the
turn it only applies them.

A mail that makes a phase ready to process now (its last orders, no settle window and
nobody waiting: judge.phases.turnstate.outlooks) names the game in the session's
PROCESS_AFTER_COMMIT; once the mail's transaction has committed, ``after_commit`` (the
scheduler's pass for those games, judge.edge.scheduler.process_games) processes it.
"""

from __future__ import annotations

from dataclasses import replace
import logging
import random
import threading
import time
import traceback
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import Connection, Row, and_, bindparam, func, or_, select, update
from sqlalchemy.orm import Session

from judge.config import JudgeSettings
from judge.mailio.inbound import Clock, InboundMail, PreparingHook, ProcessHook, utc_now
from judge.mailio.loopguard import no_reply_reason
from judge.mailio.read import headers_of, read_message
from judge.mailio.outgoing import OutgoingMail, queue_all
from judge.store.conflicts import is_conflict
from judge.store.core import table_of
from judge.store.engine import Store
from judge.store.schedule import NOW, PROCESS_AFTER_COMMIT
from judge.store.models_mail import PROCESSED, RECEIVED, SHUNTED, InboundMessage, Shunt
from judge.commands.registry import masked
from judge.daemon.shunt_notice import cause_for_sender, sender_notice, unfinished_reason, without_secrets

log = logging.getLogger("judge.daemon.worker")


#: Attempts of one message's transaction when each fails on a concurrency conflict.
CONFLICT_ATTEMPTS = 5
CONFLICT_BACKOFF_SECONDS = 0.02
#: Starts of one mail's processing that never finished, after which it is shunted.
MAX_ATTEMPTS = 3
#: On SQLite, ``run`` processes up to this many waiting mails in one transaction ...
BATCH_MAILS = 8
#: ... and takes no further mail once the batch has run this long, or another thread
#: waits for the write turn (intake must not wait behind a whole batch to answer 250).
BATCH_SECONDS = 0.02


def jittered_backoff(attempt: int) -> float:
    """Seconds to wait after failed attempt ``attempt`` (1, 2, ...): doubling from 20 ms, with
    +-50% jitter so two transactions that collided do not start again in step."""
    return CONFLICT_BACKOFF_SECONDS * 2 ** (attempt - 1) * random.uniform(0.5, 1.5)


# The worker's own statements, in Core and built once: the ORM's per-statement work was a
# good part of the worker's CPU time per mail, and the worker shares one GIL with intake.
_INBOUND = table_of(InboundMessage)
_CLAIMED_COLUMNS = (_INBOUND.c.id, _INBOUND.c.raw, _INBOUND.c.mail_from, _INBOUND.c.rcpt_to,
                    _INBOUND.c.message_id, _INBOUND.c.source, _INBOUND.c.received_at, _INBOUND.c.peer,
                    _INBOUND.c.authenticated, _INBOUND.c.distrust)
#: PostgreSQL: a start counted this recently is another worker's, about to claim the mail
#: (the row is unlocked between that worker's count and its claim), and is not counted
#: again, or a death of that worker would be counted twice.  SQLite needs no such window:
#: there counting and claiming take one write turn.
STARTING_SECONDS = 5


def count_start_statement(dialect: str) -> Any:
    """One statement: the oldest waiting mail's count of starts raised, its id and new
    count returned (no row when none waits)."""
    waiting = _INBOUND.c.status == RECEIVED
    values: dict[str, Any] = {"attempts": _INBOUND.c.attempts + 1}
    if dialect == "postgresql":
        waiting = and_(waiting, or_(_INBOUND.c.started_at.is_(None),
                                    _INBOUND.c.started_at < func.now() - timedelta(seconds=STARTING_SECONDS)))
        values["started_at"] = func.now()
    oldest = (select(_INBOUND.c.id).where(waiting).order_by(_INBOUND.c.id).limit(1)
              .with_for_update(skip_locked=True).scalar_subquery())
    return update(_INBOUND).where(_INBOUND.c.id == oldest).values(**values).returning(_INBOUND.c.id, _INBOUND.c.attempts)
# SQLite's batches (Worker.process_batch): the starts of up to :limit oldest waiting mails
# counted in one statement, stopping before the first mail whose start was counted before.
_WAITING = _INBOUND.c.status == RECEIVED
_FIRST_STARTED = select(func.min(_INBOUND.c.id)).where(_WAITING, _INBOUND.c.attempts > 0).scalar_subquery()
_COUNT_BATCH = (update(_INBOUND).where(_INBOUND.c.id.in_(
    select(_INBOUND.c.id).where(_WAITING, _INBOUND.c.attempts == 0,
                                or_(_FIRST_STARTED.is_(None), _INBOUND.c.id < _FIRST_STARTED))
    .order_by(_INBOUND.c.id).limit(bindparam("limit"))))
    .values(attempts=_INBOUND.c.attempts + 1).returning(_INBOUND.c.id, _INBOUND.c.attempts))


def _count_batch(connection: Connection, limit: int) -> list[tuple[int, int]]:
    """(id, count of starts) of the mails a batch may take, oldest first, their starts
    counted in ``connection``'s transaction: up to ``limit`` of the oldest waiting, none
    started before and none after one that was (none when the oldest waiting mail was)."""
    return sorted((row.id, row.attempts) for row in connection.execute(_COUNT_BATCH, {"limit": limit}))


# The oldest waiting mails, read outside the write turn to be prepared (Worker._prepare_waiting).
_OLDEST_WAITING = select(_INBOUND.c.id).where(_WAITING).order_by(_INBOUND.c.id).limit(bindparam("limit"))
_WAITING_AMONG = select(*_CLAIMED_COLUMNS).where(_WAITING, _INBOUND.c.id.in_(bindparam("ids", expanding=True)))
_UNCOUNT = update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id")).values(attempts=_INBOUND.c.attempts - 1)
_CLAIM_ONE = (select(*_CLAIMED_COLUMNS).where(_INBOUND.c.status == RECEIVED, _INBOUND.c.id == bindparam("id"))
              .limit(1).with_for_update(skip_locked=True))
# Guarded: only a mail still waiting (not processed, not shunted, by anyone) is shunted.
_SHUNT_IF_RECEIVED = update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id"), _INBOUND.c.status == RECEIVED) \
    .values(status=SHUNTED)
_MARK_PROCESSED = update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id")).values(
    status=PROCESSED, processed_at=bindparam("now"), loop_reason=bindparam("reason"))


def to_inbound_mail(row: InboundMessage | Row, judge: JudgeSettings, *, headers_only: bool = False) -> InboundMail:
    """The stored ``row`` as the processing hook sees it (``headers_only``: its body not
    parsed, for answering a mail that cannot be processed)."""
    message, unreadable = (headers_of(row.raw), None) if headers_only else read_message(row.raw)
    own = (judge.address,)
    inbound = InboundMail(
        inbound_id=row.id, raw=row.raw, message=message, mail_from=row.mail_from,
        rcpt_to=tuple(row.rcpt_to or ()), message_id=row.message_id, source=row.source,
        received_at=row.received_at, no_reply_reason=no_reply_reason(message, row.mail_from, own),
        judge=judge, unreadable=unreadable, peer=row.peer,
        authenticated=getattr(row, "authenticated", None), distrust=getattr(row, "distrust", None),
        masked_subject=masked(str(message.get("Subject", "") or "")),
    )
    if inbound.no_reply_reason is None and not inbound.reply_address:
        return replace(inbound, no_reply_reason="no address to reply to (From, Reply-To and the envelope sender "
                                                "are none of them an address mail can be sent to)")
    return inbound


def _answers(mail: OutgoingMail, inbound: InboundMail) -> bool:
    """Whether ``mail`` would go back to the sender of ``inbound`` (a reply in effect)."""
    if mail.in_reply_to is not None and mail.in_reply_to == inbound.message_id:
        return True
    senders = {a for a in (inbound.reply_address, inbound.from_address, (inbound.mail_from or "").lower()) if a}
    return any(r.strip().lower() in senders for r in mail.recipients)


class Worker:
    """Processes stored messages; ``process`` is the hook (judge.commands.process_mail, or a test's)."""

    def __init__(self, store: Store, judge: JudgeSettings, process: ProcessHook, *,
                 clock: Clock = utc_now, pause_before_commit: float = 0.0,
                 on_processed: Callable[[], None] = lambda: None,
                 conflict_attempts: int = CONFLICT_ATTEMPTS,
                 conflict_backoff: Callable[[int], float] = jittered_backoff,
                 max_attempts: int = MAX_ATTEMPTS,
                 after_commit: Callable[[frozenset[int], datetime], None] | None = None,
                 batch_seconds: float = BATCH_SECONDS) -> None:
        if conflict_attempts < 1:
            raise ValueError(f"conflict_attempts must be at least 1, not {conflict_attempts}")
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {max_attempts}")
        self.store = store
        self.judge = judge
        self.process = process
        self.clock = clock
        self.pause_before_commit = pause_before_commit
        self.on_processed = on_processed
        self.conflict_attempts = conflict_attempts
        self.conflict_backoff = conflict_backoff
        self.max_attempts = max_attempts
        self._count_start_statement = count_start_statement(store.dialect)
        self.after_commit = after_commit
        self.batch_seconds = batch_seconds
        #: Mails whose starts a batch's commit counted for the next batch (process_batch).
        self._counted: list[tuple[int, int]] = []
        self._prepare: Callable[[InboundMail], InboundMail] | None = (
            process.prepare if isinstance(process, PreparingHook) else None)
        #: Waiting mails read and prepared before the write turn, by id (``_prepare_waiting``).
        self._prepared: dict[int, InboundMail] = {}

    def process_next(self) -> bool:
        """Process the oldest unprocessed message; False when there was none.

        The message's transaction is attempted again from scratch after a concurrency
        conflict (up to ``conflict_attempts`` in all); any other failure, or a conflict on
        the last attempt, shunts it.  A message whose processing was started
        ``max_attempts`` times already without finishing is shunted instead.
        """
        self.release_counts()  # counted for a batch: would be counted twice
        counting = 0
        while True:
            counting += 1
            try:
                # On SQLite, counting the start and the first attempt take one write turn,
                # so no other writer comes between them (as when claiming and processing
                # were one transaction).  Only the counting can raise here.
                with self.store.write_turn():
                    started = self._count_start()
                    if started is None:
                        return False
                    claimed, attempts = started
                    unfinished = attempts > self.max_attempts
                    failure, done = (None, None) if unfinished else self._attempt(claimed)
                break
            except Exception as error:  # nothing was counted
                if not is_conflict(error) or counting >= self.conflict_attempts:
                    raise
                self._pause_after_conflict("the next message", counting, error)
        if unfinished:
            self._shunt(claimed, unfinished_reason(attempts - 1), cause_for_sender(None, attempts - 1))
            return True
        attempt = 1
        while failure is not None:
            problem, trace = failure
            if not is_conflict(problem) or attempt >= self.conflict_attempts:
                self._shunt(claimed, trace, cause_for_sender(problem, attempts))
                return True
            self._pause_after_conflict(f"message #{claimed}", attempt, problem)
            attempt += 1
            failure, done = self._attempt(claimed)
        if done is not None:
            now, ready = done
            self._process_ready(ready, now)
        self.on_processed()
        return True

    def _process_ready(self, games: frozenset[int], now: datetime) -> None:
        """The phases this mail made ready, processed right after its transaction; a failure
        leaves them due, and the next scheduler pass processes them."""
        if not games or self.after_commit is None:
            return
        try:
            self.after_commit(games, now)
        except Exception:
            log.exception("processing games %s right after their mail failed; the next scheduler pass does it",
                          sorted(games))

    def _pause_after_conflict(self, what: str, attempt: int, error: Exception) -> None:
        pause = self.conflict_backoff(attempt)
        log.warning("%s: concurrency conflict on attempt %d (%s: %s); again in %.3f s", what, attempt,
                    type(error).__name__, str(error).splitlines()[0] if str(error) else "", pause)
        time.sleep(pause)

    def _attempt(self, inbound_id: int) -> tuple[tuple[Exception, str] | None, tuple[datetime, frozenset[int]] | None]:
        """One transaction processing the message: (the error and its traceback, None) when
        it failed and was rolled back; else (None, (its clock, the games it made ready)), or
        (None, None) when another worker has taken the message meanwhile."""
        try:
            with self.store.unit_of_work() as session:
                row = session.connection().execute(_CLAIM_ONE, {"id": inbound_id}).first()
                if row is None:
                    return None, None
                now, queued = self._process_row(session, row)
                ready = frozenset(session.info.pop(PROCESS_AFTER_COMMIT, ()))
        except Exception as error:
            return (error, traceback.format_exc()), None
        _log_processed([(inbound_id, queued)])
        return None, (now, ready)

    def _count_start(self) -> tuple[int, int] | None:
        """The oldest waiting message and its count of starts, this one included, committed
        before processing begins (so a start that kills the worker is counted); None when
        none waits."""
        with self.store.core_unit_of_work() as connection:
            counted = connection.execute(self._count_start_statement).first()
        return None if counted is None else (counted.id, counted.attempts)

    def _process_row(self, session: Session, row: Row) -> tuple[datetime, int]:
        """Process one claimed mail in ``session`` (as prepared before the turn, if it was);
        returns the clock it was processed at and the number of mails queued."""
        now = self.clock()
        session.info[NOW] = now  # the games this mail touched are rescheduled at commit
        inbound = self._prepared.pop(row.id, None) or to_inbound_mail(row, self.judge)
        outgoing = list(self.process(session, inbound, now))
        if inbound.no_reply_reason is not None:
            kept = [m for m in outgoing if not _answers(m, inbound)]
            if len(kept) != len(outgoing):
                log.info("message #%d: no reply sent (%s)", row.id, inbound.no_reply_reason)
            outgoing = kept
        queue_all(session, outgoing, self.judge, now, inbound_id=row.id)
        session.connection().execute(_MARK_PROCESSED, {"row_id": row.id, "now": now,
                                                         "reason": inbound.no_reply_reason})
        if self.pause_before_commit > 0:
            log.warning("message #%d processed; pausing %.1f s before commit (test hook)",
                        row.id, self.pause_before_commit)
            time.sleep(self.pause_before_commit)
        return now, len(outgoing)

    def _prepare_waiting(self, limit: int) -> None:
        """The ``limit`` oldest waiting mails made InboundMails and prepared by the hook,
        outside the write turn (on SQLite the turn is the worker's to hold as briefly as it
        can), unless they were before; a mail prepared before that no longer waits among
        them is forgotten.  A mail whose reading or preparing fails is left to the turn,
        where the failure shunts it as usual."""
        with self.store.reading() as connection:
            waiting = connection.execute(_OLDEST_WAITING, {"limit": limit}).scalars().all()
            missing = [inbound_id for inbound_id in waiting if inbound_id not in self._prepared]
            rows = connection.execute(_WAITING_AMONG, {"ids": missing}).all() if missing else []
        kept = set(waiting)
        for gone in [inbound_id for inbound_id in self._prepared if inbound_id not in kept]:
            del self._prepared[gone]
        for row in rows:
            try:
                inbound = to_inbound_mail(row, self.judge)
                self._prepared[row.id] = inbound if self._prepare is None else self._prepare(inbound)
            except Exception:
                log.debug("message #%d could not be prepared before the write turn", row.id, exc_info=True)

    def _shunt(self, inbound_id: int, reason: str, cause: str) -> None:
        """Shunt the mail unless it is no longer this worker's: once the failed transaction
        rolled back, another worker may have claimed and processed (or shunted) it.  Then
        tell its sender, in a transaction of its own: reading the mail's headers must not
        keep a mail that kills the worker from being shunted."""
        with self.store.unit_of_work() as session:
            taken = self._record_shunt(session, inbound_id, reason)
            raw = session.connection().execute(select(_INBOUND.c.raw).where(_INBOUND.c.id == inbound_id)).scalar()
        if not taken:
            log.warning("message #%d failed here but another worker has handled it meanwhile; not shunted:\n%s",
                        inbound_id, without_secrets(reason, raw or b""))
            return
        self._after_shunt(inbound_id, reason, cause, raw)

    def _record_shunt(self, session: Session, inbound_id: int, reason: str) -> bool:
        """The mail shunted in ``session`` with ``reason``, if it still waits (guarded: one
        another worker processed or shunted meanwhile is left alone); whether it was."""
        taken = session.connection().execute(_SHUNT_IF_RECEIVED, {"row_id": inbound_id}).rowcount
        if taken:
            session.add(Shunt(inbound_id=inbound_id, traceback=reason, created_at=self.clock()))
        return bool(taken)

    def _after_shunt(self, inbound_id: int, reason: str, cause: str, raw: bytes | None) -> None:
        """A committed shunt logged (the mail's passwords masked) and its sender told."""
        log.error("message #%d shunted:\n%s", inbound_id, without_secrets(reason, raw or b""))
        try:
            self._tell_sender(inbound_id, cause)
        except Exception:
            log.exception("message #%d: could not tell its sender about the shunt", inbound_id)

    def _tell_sender(self, inbound_id: int, cause: str) -> None:
        now = self.clock()
        with self.store.unit_of_work() as session:
            row = session.connection().execute(
                select(*_CLAIMED_COLUMNS).where(_INBOUND.c.id == inbound_id)).one()
            inbound = to_inbound_mail(row, self.judge, headers_only=True)
            if not inbound.may_reply:
                log.info("message #%d: sender not told of the shunt (%s)", inbound_id, inbound.no_reply_reason)
                return
            queue_all(session, [inbound.reply(sender_notice(cause))], self.judge, now, inbound_id=inbound_id)

    def process_batch(self, limit: int = BATCH_MAILS) -> int:
        """Process up to ``limit`` waiting mails in one transaction; the number handled (0:
        none waiting).  No mail is added to the batch once another thread waits for the
        write turn or the batch has run ``batch_seconds``.

        Only where writers take turns (SQLite): the begin, claim, commit and write turn of
        each mail cost about as much as a short mail's commands, and nobody else could
        write meanwhile anyway.  For the same reason the waiting mails are read and
        prepared (``PreparingHook``) before the turn is taken.  Each mail still takes
        effect entirely or not at all: when one fails, the whole transaction is rolled
        back, the failing mail is shunted as a mail alone is, and the others, none of
        which failed, are given their counts back and taken again by the next batch (a
        savepoint per mail cost every mail more than the rare failure costs the others).
        A mail that makes a phase ready ends the batch (the phase is processed right after
        the commit, as after a mail on its own, so the next mail finds the new phase).

        The starts are counted as ``process_next`` counts them, committed before the batch
        runs: one statement raises the count of each mail the batch may take, so a mail
        that kills the worker has every mail of its batch counted once.  That statement
        runs in the commit of the batch before (the mails it did not reach stay counted for
        the next one), in a transaction of its own only when there was none (the first
        batch, after idling or a failure).  A mail whose start was counted before (its
        earlier batch or start never finished) is never batched: it and the mails after it
        wait until ``process_next`` has taken it alone, so after a death only the mail that
        kills the worker is counted again, and only it reaches ``max_attempts``.

        A concurrency conflict rolls the whole batch back and takes its counts back, and
        the first mail is then processed on its own with ``process_next``'s retries.  On
        other databases, and with the pause-before-commit test hook, this is
        ``process_next``.
        """
        if limit <= 1 or self.store.dialect != "sqlite" or self.pause_before_commit > 0:
            return int(self.process_next())
        self._prepare_waiting(limit)
        counted, self._counted = self._counted, []
        handled, ready, now = 0, frozenset[int](), self.clock()
        try:
            with self.store.write_turn():  # counting and the batch: no writer between them
                if not counted:
                    with self.store.core_unit_of_work() as connection:
                        counted = _count_batch(connection, limit)
                if counted:
                    handled, ready, now, self._counted = self._run_batch(counted, limit)
        except Exception as error:
            if not is_conflict(error):
                raise  # the counts stay: each of these mails is taken alone from now on
            log.warning("a batch of mails met a concurrency conflict (%s); processing them one by one",
                        type(error).__name__)
            self._take_counts_back(counted)
            return int(self.process_next())
        if not counted:
            # None waits, or the oldest waiting mail was started before and never finished.
            return int(self.process_next())
        self._process_ready(ready, now)
        if handled:
            self.on_processed()
        return handled

    def _run_batch(self, counted: list[tuple[int, int]], limit: int
                   ) -> tuple[int, frozenset[int], datetime, list[tuple[int, int]]]:
        """The counted mails processed in one transaction, as far as the batch goes: the
        number handled, the games made ready, the clock of the last mail, and the mails
        counted for the next batch (those this one did not reach, else as many as
        ``_count_batch`` finds, counted in this commit).  When a mail fails, the whole
        transaction is rolled back, that mail is shunted (one handled), and the counts of
        the others are taken back."""
        handled = reached = 0
        ready: frozenset[int] = frozenset()
        now = self.clock()
        in_hand: tuple[int, int] | None = None  # the mail being processed, and its count
        done: list[tuple[int, int]] = []  # (id, mails queued), logged after the commit
        try:
            with self.store.unit_of_work() as session:
                started = time.monotonic()
                for inbound_id, attempts in counted:
                    if ready or not self._takes_more(reached, limit, started):
                        break
                    reached += 1
                    row = session.connection().execute(_CLAIM_ONE, {"id": inbound_id}).first()
                    if row is None:  # taken by another worker meanwhile
                        continue
                    in_hand = (row.id, attempts)
                    now, queued = self._process_row(session, row)
                    in_hand = None
                    handled += 1
                    done.append((row.id, queued))
                    # A phase this mail made ready is processed right after the commit, as
                    # after a mail on its own: the next mail must find the new phase.
                    ready = frozenset(session.info.pop(PROCESS_AFTER_COMMIT, ()))
                following = counted[reached:] or _count_batch(session.connection(), limit)
        except Exception as error:
            if in_hand is None or is_conflict(error):
                raise
            trace = traceback.format_exc()
            failed, attempts = in_hand
            self._take_counts_back([(i, n) for i, n in counted if i != failed])  # none of them failed
            self._shunt(failed, trace, cause_for_sender(error, attempts))
            return 1, frozenset(), now, []
        _log_processed(done)
        return handled, ready, now, following

    def release_counts(self) -> None:
        """Take back the counts of the mails counted for a next batch that will not come
        (the worker stops, or is used one mail at a time)."""
        counted, self._counted = self._counted, []
        self._take_counts_back(counted)

    def _take_counts_back(self, counted: list[tuple[int, int]]) -> None:
        """Undo the counts of a batch that was rolled back whole (none of them died)."""
        if not counted:
            return
        try:
            with self.store.core_unit_of_work() as connection:
                connection.execute(_UNCOUNT, [{"row_id": i} for i, _ in counted])
        except Exception:  # left counted, they are taken one by one: slower, not wrong
            log.exception("could not take back the counts of a rolled-back batch")

    def _takes_more(self, reached: int, limit: int, started: float) -> bool:
        """Whether a batch takes another mail: its first always; more while under ``limit``
        and ``batch_seconds`` old, and no other thread waits to write."""
        return reached == 0 or (reached < limit and time.monotonic() - started < self.batch_seconds
                                and not self.store.writers_waiting())

    def process_pending(self) -> int:
        """Process everything stored so far; the count of messages handled."""
        count = 0
        while self.process_next():
            count += 1
        return count

    def run(self, stop: threading.Event, wake: threading.Event, poll_seconds: float = 1.0) -> None:
        """Loop until ``stop``; ``wake`` is set by the edges when they store a message.
        Mails are taken in batches (``process_batch``: one transaction for those waiting,
        on SQLite).

        ``stop`` is only looked at between batches, so the mail (or batch) in hand is finished.
        """
        while not stop.is_set():
            try:
                busy = self.process_batch() > 0 or bool(self._counted)
            except Exception:
                log.exception("worker: cannot read the inbox; retrying")
                busy = False
                stop.wait(poll_seconds)
            if not busy:
                wake.wait(poll_seconds)
                wake.clear()
        self.release_counts()


def _log_processed(done: list[tuple[int, int]]) -> None:
    """One line per processed mail, written after its commit (not inside the write turn)."""
    for inbound_id, queued in done:
        log.info("message #%d processed, %d mail queued", inbound_id, queued)
