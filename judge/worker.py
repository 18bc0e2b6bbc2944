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

A mail that makes a phase ready to process now (its last orders, no settle window and
nobody waiting: judge.phases.turnstate.outlooks) names the game in the session's
PROCESS_AFTER_COMMIT; once the mail's transaction has committed, ``after_commit`` (the
scheduler's pass for those games, judge.edge.scheduler.process_games) processes it.
"""

from __future__ import annotations

import email
from dataclasses import replace
from email.parser import BytesHeaderParser
import logging
import random
import threading
import time
import traceback
from email.message import EmailMessage
from datetime import datetime
from typing import Any, Callable

from sqlalchemy import Row, bindparam, select, update
from sqlalchemy.orm import Session

from judge.config import JudgeSettings
from judge.mail import Clock, InboundMail, ProcessHook, utc_now
from judge.loopguard import no_reply_reason
from judge.mailpolicy import POLICY
from judge.outgoing import OutgoingMail, queue_all
from judge.store.conflicts import is_conflict
from judge.store.engine import Store
from judge.store.schedule import NOW, PROCESS_AFTER_COMMIT, start_over
from judge.store.models_mail import PROCESSED, RECEIVED, SHUNTED, InboundMessage, Shunt

log = logging.getLogger("judge.worker")


#: Attempts of one message's transaction when each fails on a concurrency conflict.
CONFLICT_ATTEMPTS = 5
CONFLICT_BACKOFF_SECONDS = 0.02
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
_INBOUND = InboundMessage.__table__
_CLAIMED_COLUMNS = (_INBOUND.c.id, _INBOUND.c.raw, _INBOUND.c.mail_from, _INBOUND.c.rcpt_to,
                    _INBOUND.c.message_id, _INBOUND.c.source, _INBOUND.c.received_at)
_CLAIM = (select(*_CLAIMED_COLUMNS).where(_INBOUND.c.status == RECEIVED)
          .order_by(_INBOUND.c.id).limit(1).with_for_update(skip_locked=True))
_CLAIM_ONE = (select(*_CLAIMED_COLUMNS).where(_INBOUND.c.status == RECEIVED, _INBOUND.c.id == bindparam("id"))
              .limit(1).with_for_update(skip_locked=True))
# Guarded: only a mail still waiting (not processed, not shunted, by anyone) is shunted.
_SHUNT_IF_RECEIVED = update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id"), _INBOUND.c.status == RECEIVED) \
    .values(status=SHUNTED)
_MARK_PROCESSED = update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id")).values(
    status=PROCESSED, processed_at=bindparam("now"), loop_reason=bindparam("reason"))


def to_inbound_mail(row: InboundMessage | Row[Any], judge: JudgeSettings) -> InboundMail:
    unreadable = None
    try:
        message = email.message_from_bytes(row.raw, policy=POLICY)
    except RecursionError:  # MIME parts nested deeper than the parser can follow
        message = BytesHeaderParser(policy=POLICY).parsebytes(row.raw)
        message.set_payload("")
        unreadable = "its MIME parts are nested too deep to read, so nothing in it was read"
    assert isinstance(message, EmailMessage)
    own = (judge.address,)
    inbound = InboundMail(
        inbound_id=row.id, raw=row.raw, message=message, mail_from=row.mail_from,
        rcpt_to=tuple(row.rcpt_to or ()), message_id=row.message_id, source=row.source,
        received_at=row.received_at, no_reply_reason=no_reply_reason(message, row.mail_from, own),
        judge=judge, unreadable=unreadable,
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
    """Processes stored messages; ``process`` is the hook (services, or a test's)."""

    def __init__(self, store: Store, judge: JudgeSettings, process: ProcessHook, *,
                 clock: Clock = utc_now, pause_before_commit: float = 0.0,
                 on_processed: Callable[[], None] = lambda: None,
                 conflict_attempts: int = CONFLICT_ATTEMPTS,
                 conflict_backoff: Callable[[int], float] = jittered_backoff,
                 after_commit: Callable[[frozenset[int], datetime], None] | None = None,
                 batch_seconds: float = BATCH_SECONDS) -> None:
        if conflict_attempts < 1:
            raise ValueError(f"conflict_attempts must be at least 1, not {conflict_attempts}")
        self.store = store
        self.judge = judge
        self.process = process
        self.clock = clock
        self.pause_before_commit = pause_before_commit
        self.on_processed = on_processed
        self.conflict_attempts = conflict_attempts
        self.conflict_backoff = conflict_backoff
        self.after_commit = after_commit
        self.batch_seconds = batch_seconds

    def process_next(self) -> bool:
        """Process the oldest unprocessed message; False when there was none.

        The message's transaction is attempted again from scratch after a concurrency
        conflict (up to ``conflict_attempts`` in all); any other failure, or a conflict on
        the last attempt, shunts it.
        """
        claimed: int | None = None
        attempt = 0
        while True:
            attempt += 1
            try:
                with self.store.unit_of_work() as session:
                    row = self._claim(session, claimed)
                    if row is None:
                        # None waiting; or, on a retry, another worker has taken the message.
                        return claimed is not None
                    claimed = row.id
                    now = self._process_row(session, row)
                    ready = frozenset(session.info.pop(PROCESS_AFTER_COMMIT, ()))
                break
            except Exception as error:
                if is_conflict(error) and attempt < self.conflict_attempts:
                    pause = self.conflict_backoff(attempt)
                    log.warning("message #%s: concurrency conflict on attempt %d (%s: %s); again in %.3f s",
                                claimed if claimed is not None else "?", attempt, type(error).__name__,
                                str(error).splitlines()[0] if str(error) else "", pause)
                    time.sleep(pause)
                    continue
                if claimed is None:
                    raise
                self._shunt(claimed, traceback.format_exc())
                return True
        if ready and self.after_commit is not None:
            self._process_ready(ready, now)
        self.on_processed()
        return True

    def _process_ready(self, games: frozenset[int], now: datetime) -> None:
        """The phases this mail made ready, processed right after its transaction; a failure
        leaves them due, and the next scheduler pass processes them."""
        try:
            self.after_commit(games, now)  # type: ignore[misc]
        except Exception:
            log.exception("processing games %s right after their mail failed; the next scheduler pass does it",
                          sorted(games))

    @staticmethod
    def _claim(session: Session, inbound_id: int | None) -> Row[Any] | None:
        """The oldest unprocessed message (``inbound_id``: that one, on a retry), locked."""
        if inbound_id is None:
            return session.connection().execute(_CLAIM).first()
        return session.connection().execute(_CLAIM_ONE, {"id": inbound_id}).first()

    def _process_row(self, session: Session, row: Row[Any]) -> datetime:
        """Process one claimed mail in ``session``; returns the clock it was processed at."""
        now = self.clock()
        session.info[NOW] = now  # the games this mail touched are rescheduled at commit
        inbound = to_inbound_mail(row, self.judge)
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
        log.info("message #%d processed, %d mail queued", row.id, len(outgoing))
        return now

    def _shunt(self, inbound_id: int, trace: str) -> None:
        """Shunt the mail unless it is no longer this worker's: once the failed transaction
        rolled back, another worker may have claimed and processed (or shunted) it."""
        with self.store.unit_of_work() as session:
            taken = session.connection().execute(_SHUNT_IF_RECEIVED, {"row_id": inbound_id}).rowcount
            if taken:
                session.add(Shunt(inbound_id=inbound_id, traceback=trace, created_at=self.clock()))
        if taken:
            log.error("message #%d shunted:\n%s", inbound_id, trace)
        else:
            log.warning("message #%d failed here but another worker has handled it meanwhile; not shunted:\n%s",
                        inbound_id, trace)

    def process_batch(self, limit: int = BATCH_MAILS) -> int:
        """Process up to ``limit`` waiting mails in one transaction, each in a savepoint of
        its own; the number handled (0: none waiting).  No mail is added to the batch once
        another thread waits for the write turn or the batch has run ``batch_seconds``.

        Only where writers take turns (SQLite): the begin, claim, commit and write turn of
        each mail cost about as much as a short mail's commands, and nobody else could
        write meanwhile anyway.  Each mail still takes effect entirely or not at all: one
        that fails is rolled back to its savepoint and shunted in the same transaction.
        A mail that makes a phase ready ends the batch (the phase is processed right after
        the commit, as after a mail on its own, so the next mail finds the new phase).
        A concurrency conflict rolls the whole batch back, and the first mail is then
        processed on its own with ``process_next``'s retries.  On other databases, and with
        the pause-before-commit test hook, this is ``process_next``.
        """
        if limit <= 1 or self.store.dialect != "sqlite" or self.pause_before_commit > 0:
            return int(self.process_next())
        shunted: list[tuple[int, str]] = []
        handled = 0
        ready: frozenset[int] = frozenset()
        now = self.clock()
        try:
            with self.store.unit_of_work() as session:
                started = time.monotonic()
                while not ready and self._takes_more(handled, limit, started) \
                        and (row := self._claim(session, None)) is not None:
                    handled += 1
                    start_over(session)
                    before = set(session.info)
                    try:
                        with session.begin_nested():
                            now = self._process_row(session, row)
                    except Exception as error:
                        if is_conflict(error):
                            raise
                        # What the failed mail noted for later (games to reschedule or to
                        # process, orders changed) was rolled back with it.
                        start_over(session)
                        for key in set(session.info) - before:
                            del session.info[key]
                        trace = traceback.format_exc()
                        session.connection().execute(_SHUNT_IF_RECEIVED, {"row_id": row.id})
                        session.add(Shunt(inbound_id=row.id, traceback=trace, created_at=self.clock()))
                        shunted.append((row.id, trace))
                    else:
                        # A phase this mail made ready is processed right after the commit, as
                        # after a mail on its own: the next mail must find the new phase.
                        ready = frozenset(session.info.pop(PROCESS_AFTER_COMMIT, ()))
        except Exception as error:
            if not is_conflict(error):
                raise
            log.warning("a batch of %d mail(s) met a concurrency conflict (%s); processing them one by one",
                        handled, type(error).__name__)
            return int(self.process_next())
        for inbound_id, trace in shunted:
            log.error("message #%d shunted:\n%s", inbound_id, trace)
        if ready and self.after_commit is not None:
            self._process_ready(ready, now)
        if handled:
            self.on_processed()
        return handled

    def _takes_more(self, handled: int, limit: int, started: float) -> bool:
        """Whether a batch takes another mail: its first always; more while under ``limit``
        and ``batch_seconds`` old, and no other thread waits to write."""
        return handled == 0 or (handled < limit and time.monotonic() - started < self.batch_seconds
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
                busy = self.process_batch() > 0
            except Exception:
                log.exception("worker: cannot read the inbox; retrying")
                busy = False
                stop.wait(poll_seconds)
            if not busy:
                wake.wait(poll_seconds)
                wake.clear()
