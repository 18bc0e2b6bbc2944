"""The outbox sender: delivers queued mail through a relay, or into a Maildir folder.

A row is leased before sending (its ``next_attempt_at`` moves forward), sent outside any
transaction, then marked sent; a failed attempt is retried with exponential backoff and
given up (status ``failed``) after ``max_attempts`` or on a permanent (5xx) refusal.
Delivery is at least once: a crash between sending and marking sends the mail again
after the lease expires, which is better than losing it.  The rows leased together (up
to ``BATCH``) are marked in one transaction after they have all been attempted.
"""

from __future__ import annotations

import logging
import os
import re
import smtplib
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol, Sequence

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from judge.config import OutboundSettings
from judge.store.engine import Store
from judge.store.models_mail import FAILED, QUEUED, SENT, OutboxMessage
from judge.mail import Clock, utc_now

log = logging.getLogger("judge.smtp_out")

LEASE = timedelta(minutes=5)
MAX_BACKOFF_SECONDS = 6 * 3600.0
BATCH = 50
_AUTH_CODES = frozenset({530, 534, 535, 538})
#: After a wake-up, the sender waits this long for more mail to send in the same batch
#: (one lease and one record transaction for all of it instead of two per mail).
GATHER_SECONDS = 0.05

# Core statements built once (the sender shares the process, and its GIL, with the worker).
_OUTBOX = OutboxMessage.__table__
_DUE = (
    select(_OUTBOX.c.id, _OUTBOX.c.mail_from, _OUTBOX.c.recipients, _OUTBOX.c.raw)
    .where(_OUTBOX.c.status == QUEUED, _OUTBOX.c.next_attempt_at <= bindparam("now"))
    .order_by(_OUTBOX.c.next_attempt_at, _OUTBOX.c.id)
    .limit(BATCH)
    .with_for_update(skip_locked=True)
)
_LEASE = update(_OUTBOX).where(_OUTBOX.c.id.in_(bindparam("ids", expanding=True))).values(
    next_attempt_at=bindparam("until"))
_SENT = update(_OUTBOX).where(_OUTBOX.c.id.in_(bindparam("ids", expanding=True))).values(
    attempts=_OUTBOX.c.attempts + 1, status=SENT, sent_at=bindparam("now"), last_error=None)


class DeliveryError(Exception):
    """A failed delivery; ``permanent`` when retrying cannot help (a 5xx answer)."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


class Transport(Protocol):
    def deliver(self, mail_from: str, recipients: Sequence[str], raw: bytes, row_id: int) -> None: ...


@dataclass(frozen=True)
class RelayTransport:
    """Hand the mail to an SMTP relay (STARTTLS and login when configured)."""

    host: str
    port: int
    username: str = ""
    password: str = ""
    starttls: bool = False
    ca_file: str = ""  # PEM certificates to trust for STARTTLS (empty: the system's)
    timeout: float = 60.0

    def deliver(self, mail_from: str, recipients: Sequence[str], raw: bytes, row_id: int) -> None:
        try:
            with smtplib.SMTP(self.host, self.port, timeout=self.timeout,
                              local_hostname=socket.gethostname()) as client:
                client.ehlo()
                if self.starttls:
                    client.starttls(context=ssl.create_default_context(cafile=self.ca_file or None))
                    client.ehlo()
                if self.username:
                    client.login(self.username, self.password)
                # SMTP wants CRLF; stored messages use LF, and a receiver reading lines by
                # CRLF would see one line too long for RFC 5321 (smtplib leaves bytes alone).
                wire = re.sub(rb"\r?\n", b"\r\n", raw)
                refused = client.sendmail(mail_from, list(recipients), wire)
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _ in exc.recipients.values()]
            raise DeliveryError(f"all recipients refused: {exc.recipients}",
                                permanent=all(c >= 500 for c in codes)) from exc
        except smtplib.SMTPResponseException as exc:
            # Authentication trouble (530, 534, 535) is the judge's configuration, not the
            # mail's fault: keep retrying while someone fixes the credentials.
            permanent = exc.smtp_code >= 500 and exc.smtp_code not in _AUTH_CODES
            raise DeliveryError(f"relay answered {exc.smtp_code} {exc.smtp_error!r}",
                                permanent=permanent) from exc
        except (OSError, smtplib.SMTPException) as exc:
            raise DeliveryError(f"relay {self.host}:{self.port}: {exc}") from exc
        if refused:
            # Partly delivered: retrying would duplicate the accepted copies.
            log.warning("outbox #%d: some recipients refused: %s", row_id, refused)


@dataclass(frozen=True)
class MaildirTransport:
    """Write each mail as ``<dir>/new/<unique>.eml`` (written in tmp/, then renamed)."""

    directory: Path

    def deliver(self, mail_from: str, recipients: Sequence[str], raw: bytes, row_id: int) -> None:
        name = f"{time.time_ns()}.M{row_id}P{os.getpid()}.{socket.gethostname()}.eml"
        try:
            self._write(name, raw)
        except FileNotFoundError:  # the first mail, or the folders were removed: make them
            for sub in ("tmp", "new", "cur"):
                (self.directory / sub).mkdir(parents=True, exist_ok=True)
            self._write(name, raw)

    def _write(self, name: str, raw: bytes) -> None:
        tmp = self.directory / "tmp" / name
        with open(tmp, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.directory / "new" / name)


def transport_for(settings: OutboundSettings, outbox_dir: Path) -> Transport:
    if settings.relay_host:
        return RelayTransport(settings.relay_host, settings.relay_port, settings.username,
                              settings.password, settings.starttls, settings.ca_file)
    return MaildirTransport(outbox_dir)


def backoff_seconds(attempts: int, base: float) -> float:
    """Delay before attempt ``attempts + 1``: base, 2 base, 4 base, ... capped at 6 hours."""
    return min(base * (2 ** max(attempts - 1, 0)), MAX_BACKOFF_SECONDS)


class OutboxSender:
    def __init__(self, store: Store, transport: Transport, *, retry_base_seconds: float = 60.0,
                 max_attempts: int = 12, clock: Clock = utc_now) -> None:
        self.store = store
        self.transport = transport
        self.retry_base_seconds = retry_base_seconds
        self.max_attempts = max_attempts
        self.clock = clock

    def _lease_due(self) -> list[tuple[int, str, list[str], bytes]]:
        now = self.clock()
        with self.store.unit_of_work() as session:
            connection = session.connection()
            rows = connection.execute(_DUE, {"now": now}).all()
            if rows:
                connection.execute(_LEASE, {"ids": [row.id for row in rows], "until": now + LEASE})
            return [(row.id, row.mail_from, list(row.recipients), row.raw) for row in rows]

    def send_due(self) -> int:
        """Attempt every due row once; the number delivered.  The outcomes are recorded
        together, in one transaction (one write turn instead of one per mail)."""
        outcomes: list[tuple[int, list[str], DeliveryError | None]] = []
        for row_id, mail_from, recipients, raw in self._lease_due():
            error: DeliveryError | None = None
            try:
                self.transport.deliver(mail_from, recipients, raw, row_id)
            except DeliveryError as exc:
                error = exc
            except Exception as exc:  # a transport bug must not stop the other rows
                error = DeliveryError(f"{type(exc).__name__}: {exc}")
            outcomes.append((row_id, recipients, error))
        if outcomes:
            self._record(outcomes)
        return sum(error is None for _, _, error in outcomes)

    def _record(self, outcomes: Sequence[tuple[int, list[str], DeliveryError | None]]) -> None:
        now = self.clock()
        with self.store.unit_of_work() as session:
            sent = [row_id for row_id, _, error in outcomes if error is None]
            if sent:
                session.connection().execute(_SENT, {"ids": sent, "now": now})
            for row_id, recipients, error in outcomes:
                if error is None:
                    log.info("outbox #%d sent to %s", row_id, ", ".join(recipients))
                else:
                    self._record_failure(session, row_id, error, now)

    def _record_failure(self, session: Session, row_id: int, error: DeliveryError, now: datetime) -> None:
        row = session.get(OutboxMessage, row_id)
        if row is None:
            return
        row.attempts += 1
        row.last_error = str(error)
        if error.permanent or row.attempts >= self.max_attempts:
            row.status = FAILED
            log.error("outbox #%d failed for good after %d attempts: %s", row_id, row.attempts, error)
            return
        delay = backoff_seconds(row.attempts, self.retry_base_seconds)
        row.next_attempt_at = now + timedelta(seconds=delay)
        log.warning("outbox #%d attempt %d failed (%s); retry in %.0f s", row_id, row.attempts, error, delay)

    def run(self, stop: threading.Event, wake: threading.Event, poll_seconds: float = 1.0,
            gather_seconds: float = GATHER_SECONDS) -> None:
        while not stop.is_set():
            try:
                self.send_due()
            except Exception:
                log.exception("outbox sender: cannot read the outbox; retrying")
            if wake.wait(poll_seconds):
                stop.wait(gather_seconds)  # mail queued meanwhile joins this batch
            wake.clear()
