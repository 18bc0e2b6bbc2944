"""The outbox sender: delivers queued mail through a relay, or into a Maildir folder.

Rows are leased before sending (``next_attempt_at`` moves forward and ``leased_by``
names this sender's ``LeaseOwner``), sent outside any transaction, and each is recorded
(sent, or its failure) in a transaction of its own as soon as its attempt ends.  So a
crash duplicates at most the one mail in hand: the relay accepted it, the record did not
commit, and it goes again with the same bytes and the same Message-ID (receivers may
drop the copy).  A failed attempt is retried with exponential backoff and given up
(status ``failed``) after ``max_attempts`` or on a permanent (5xx) refusal.

The rows of a sender that died are released when it starts again, and by any other
judge process sharing the database (``maintain``, judge.store.leases); the 5-minute
lease is only the last resort when nobody can tell.
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

from sqlalchemy import Connection, bindparam, select, update

from judge.config import OutboundSettings
from judge.mailauth.dkim_sign import MailSigner, SigningError
from judge.mailauth.unsubscribe import UnsubscribeLinks
from judge.mailauth.verp import ReturnPaths
from judge.store.models_mailauth import UnreachableAddress
from judge.mailio.inbound import Clock, utc_now
from judge.store import leases
from judge.store.core import table_of
from judge.store.engine import Store
from judge.store.models_mail import FAILED, QUEUED, SENT, OutboxMessage

log = logging.getLogger("judge.smtp_out")

LEASE = timedelta(minutes=5)
MAX_BACKOFF_SECONDS = 6 * 3600.0
BATCH = 50
_AUTH_CODES = frozenset({530, 534, 535, 538})
#: After a wake-up, the sender waits this long for more mail to send in the same batch
#: (one lease transaction for all of it).
GATHER_SECONDS = 0.05

# Core statements built once (the sender shares the process, and its GIL, with the worker).
_OUTBOX = table_of(OutboxMessage)
_DUE = (
    select(_OUTBOX.c.id, _OUTBOX.c.mail_from, _OUTBOX.c.recipients, _OUTBOX.c.raw, _OUTBOX.c.game_id)
    .where(_OUTBOX.c.status == QUEUED, _OUTBOX.c.next_attempt_at <= bindparam("now"))
    .order_by(_OUTBOX.c.next_attempt_at, _OUTBOX.c.id)
    .limit(BATCH)
    .with_for_update(skip_locked=True)
)
_LEASE = update(_OUTBOX).where(_OUTBOX.c.id.in_(bindparam("ids", expanding=True))).values(
    next_attempt_at=bindparam("until"), leased_by=bindparam("owner"))
_SENT = update(_OUTBOX).where(_OUTBOX.c.id == bindparam("row_id")).values(
    attempts=_OUTBOX.c.attempts + 1, status=SENT, sent_at=bindparam("now"), last_error=None, leased_by=None,
    relay_queue_id=bindparam("queue_id"))
_UNREACHABLE = table_of(UnreachableAddress)
_UNREACHABLE_AMONG = select(_UNREACHABLE.c.address).where(
    _UNREACHABLE.c.address.in_(bindparam("addresses", expanding=True)))
_ATTEMPTS = select(_OUTBOX.c.attempts).where(_OUTBOX.c.id == bindparam("row_id"))
_FAILED_ATTEMPT = update(_OUTBOX).where(_OUTBOX.c.id == bindparam("row_id")).values(
    attempts=bindparam("attempts"), last_error=bindparam("error"), status=bindparam("status"),
    next_attempt_at=bindparam("next_at"), leased_by=None)


class DeliveryError(Exception):
    """A failed delivery; ``permanent`` when retrying cannot help (a 5xx answer)."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


@dataclass(frozen=True)
class Delivered:
    """How a mail left, in words for the log, and the receiver's name for it: the relay's
    queue id (its reply to DATA, e.g. Postfix's ``queued as 4F1A2B``) or the file written."""

    how: str
    queue_id: str | None = None


class Transport(Protocol):
    def deliver(self, mail_from: str, recipients: Sequence[str], raw: bytes, row_id: int) -> Delivered | None:
        """Deliver or raise DeliveryError; None reads as "sent", without a queue id."""
        ...


#: The queue id in a relay's reply to DATA: Postfix "queued as 4F1A2B3C4D", Exim "id=1rX...",
#: Sendmail "Message accepted for delivery" after "<id>", aiosmtpd and others: the reply text.
_QUEUE_ID = re.compile(r"(?i)(?:queued as|\bid=)\s*([A-Za-z0-9._@<>-]+)")
_MAX_QUEUE_ID = 200


def queue_id_of(reply: bytes | str) -> str:
    """The queue id a relay named in its 250 reply to DATA, else the reply's text (shortened)."""
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
    found = _QUEUE_ID.search(text)
    return (found.group(1) if found else " ".join(text.split()))[:_MAX_QUEUE_ID]


def is_loopback(host: str) -> bool:
    """Does ``host`` name this machine (the only place a password may travel in clear)?"""
    import ipaddress

    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class RelayTransport:
    """Hand the mail to an SMTP relay: a submission server (RFC 6409) with STARTTLS
    (port 587) or implicit TLS (port 465, RFC 8314), AUTH when a username is set; the
    certificate and host name are verified.  A password is never sent over a connection
    without TLS, except to this machine (loopback)."""

    host: str
    port: int
    username: str = ""
    password: str = ""
    starttls: bool = False
    ca_file: str = ""  # PEM certificates to trust for TLS (empty: the system's)
    timeout: float = 60.0
    implicit_tls: bool = False

    def _connect(self) -> smtplib.SMTP:
        context = ssl.create_default_context(cafile=self.ca_file or None)
        client = (smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout, local_hostname=socket.gethostname(),
                                   context=context) if self.implicit_tls
                  else smtplib.SMTP(self.host, self.port, timeout=self.timeout, local_hostname=socket.gethostname()))
        try:
            client.ehlo()
            if self.starttls and not self.implicit_tls:
                client.starttls(context=context)
                client.ehlo()
        except BaseException:
            client.close()
            raise
        return client

    def deliver(self, mail_from: str, recipients: Sequence[str], raw: bytes, row_id: int) -> Delivered | None:
        if self.username and not (self.starttls or self.implicit_tls) and not is_loopback(self.host):
            raise DeliveryError(f"not sending the relay password in clear to {self.host}: set [outbound] starttls "
                                "(port 587) or implicit_tls (port 465)")
        try:
            with self._connect() as client:
                if self.username:
                    client.login(self.username, self.password)
                # SMTP wants CRLF; stored messages use LF, and a receiver reading lines by
                # CRLF would see one line too long for RFC 5321 (smtplib leaves bytes alone).
                wire = re.sub(rb"\r?\n", b"\r\n", raw)
                refused, reply = _transaction(client, mail_from, recipients, wire)
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
        queue_id = queue_id_of(reply)
        return Delivered(f"sent to {', '.join(recipients)} through the relay {self.host}:{self.port} "
                         f"(its queue id {queue_id})", queue_id)


def _transaction(client: smtplib.SMTP, mail_from: str, recipients: Sequence[str],
                 wire: bytes) -> tuple[dict[str, tuple[int, bytes]], bytes]:
    """MAIL, RCPT each, DATA: (the refused recipients, the relay's reply to DATA), which
    ``sendmail`` does not return.  Raises as ``sendmail`` does."""
    code, answer = client.mail(mail_from)
    if code != 250:
        client.rset()
        raise smtplib.SMTPSenderRefused(code, answer, mail_from)
    refused: dict[str, tuple[int, bytes]] = {}
    for recipient in recipients:
        code, answer = client.rcpt(recipient)
        if code not in (250, 251):
            refused[recipient] = (code, answer)
    if len(refused) == len(recipients):
        client.rset()
        raise smtplib.SMTPRecipientsRefused(refused)
    code, answer = client.data(wire)
    if code != 250:
        client.rset()
        raise smtplib.SMTPDataError(code, answer)
    return refused, answer


@dataclass(frozen=True)
class MaildirTransport:
    """Write each mail as ``<dir>/new/<unique>.eml`` (written in tmp/, then renamed)."""

    directory: Path

    def deliver(self, mail_from: str, recipients: Sequence[str], raw: bytes, row_id: int) -> Delivered | None:
        name = f"{time.time_ns()}.M{row_id}P{os.getpid()}.{socket.gethostname()}.eml"
        try:
            self._write(name, raw)
        except FileNotFoundError:  # the first mail, or the folders were removed: make them
            for sub in ("tmp", "new", "cur"):
                (self.directory / sub).mkdir(parents=True, exist_ok=True)
            self._write(name, raw)
        return Delivered(f"for {', '.join(recipients)} written to file {self.directory / 'new' / name} "
                         "(not sent: no [outbound] relay_host)", name)

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
                              settings.password, settings.starttls, settings.ca_file,
                              timeout=settings.timeout_seconds, implicit_tls=settings.implicit_tls)
    return MaildirTransport(outbox_dir)


def backoff_seconds(attempts: int, base: float) -> float:
    """Delay before attempt ``attempts + 1``: base, 2 base, 4 base, ... capped at 6 hours."""
    return min(base * (2 ** max(attempts - 1, 0)), MAX_BACKOFF_SECONDS)


class OutboxSender:
    """Sends due outbox rows.  ``start()`` makes it a lease owner (and releases the rows
    of senders that are gone); without it, leases carry no owner and only expire.

    As a mail leaves, a game member's copy gets its own unsubscribe links (``links``,
    judge.mailauth.unsubscribe), then, with a ``signer``, its DKIM signatures (each attempt
    anew, the rows leased together signed together just before they are sent, so the
    signature's time is the sending's): whatever queued it, the worker, ``judge tick`` or a
    worker process, and whichever transport takes it."""

    def __init__(self, store: Store, transport: Transport, *, retry_base_seconds: float = 60.0,
                 max_attempts: int = 12, clock: Clock = utc_now, signer: MailSigner | None = None,
                 links: UnsubscribeLinks | None = None, return_paths: ReturnPaths | None = None) -> None:
        self.store = store
        self.transport = transport
        self.signer = signer
        self.links = links
        self.return_paths = return_paths  # VERP: each one-recipient mail its own envelope sender
        self._unreachable: set[str] = set()
        self.retry_base_seconds = retry_base_seconds
        self.max_attempts = max_attempts
        self.clock = clock
        self.owner: leases.Owner | None = None

    def start(self) -> None:
        """Register as a lease owner; release what dead senders held (a restart after a
        crash picks its own rows up at once)."""
        self.owner = leases.Owner.this_process()
        leases.register(self.store, self.owner)
        leases.release_gone(self.store, self.clock())

    def maintain(self) -> int:
        """Heartbeat, and release the rows of senders that are gone; the rows released."""
        if self.owner is not None:
            leases.heartbeat(self.store, self.owner)
        return leases.release_gone(self.store, self.clock())

    def stop(self) -> None:
        """Give back this sender's leases (a clean stop: they are due again at once)."""
        if self.owner is not None:
            leases.unregister(self.store, self.owner)
            self.owner = None

    def _lease_due(self) -> list[tuple[int, str, list[str], bytes, int | None]]:
        now = self.clock()
        owner = self.owner.id if self.owner is not None else None
        with self.store.unit_of_work() as session:
            connection = session.connection()
            rows = connection.execute(_DUE, {"now": now}).all()
            if rows:
                connection.execute(_LEASE, {"ids": [row.id for row in rows], "until": now + LEASE, "owner": owner})
                addresses = sorted({r.lower() for row in rows for r in row.recipients})
                self._unreachable = set(connection.execute(_UNREACHABLE_AMONG, {"addresses": addresses}).scalars())
            return [(row.id, row.mail_from, list(row.recipients), row.raw, row.game_id) for row in rows]

    def send_due(self) -> int:
        """Attempt every due row once; the number delivered.  Each outcome is recorded
        as soon as its attempt ends (a crash must not resend what the relay took)."""
        delivered = 0
        rows = self._lease_due()
        finals = self._finals(rows)
        for (row_id, mail_from, recipients, _raw, _game_id), final in zip(rows, finals):
            error: DeliveryError | None = None
            how: Delivered | None = None
            if self.return_paths is not None and len(recipients) == 1:
                mail_from = self.return_paths.for_recipient(row_id, recipients[0])
            try:
                if final is None:
                    raise DeliveryError(f"not sent: {', '.join(recipients)} bounced too often (judge.mailauth.bounces); "
                                        "mail resumes when mail comes from there again", permanent=True)
                if isinstance(final, DeliveryError):
                    raise final
                how = self.transport.deliver(mail_from, recipients, final, row_id)
            except DeliveryError as exc:
                error = exc
            except Exception as exc:  # a transport bug must not stop the other rows
                error = DeliveryError(f"{type(exc).__name__}: {exc}")
            self._record(row_id, recipients, error, how)
            delivered += error is None
        return delivered

    def _finals(self, rows: Sequence[tuple[int, str, list[str], bytes, int | None]]
                ) -> list[bytes | DeliveryError | None]:
        """The bytes that leave, row by row: personal links, then the signatures over them
        (all the batch's in one call: a pooled signer hands them over once), or the error
        that keeps a row unsent; None for a row whose every recipient is unreachable."""
        finals: list[bytes | DeliveryError | None] = []
        for _row_id, _mail_from, recipients, raw, game_id in rows:
            if all(r.lower() in self._unreachable for r in recipients):
                finals.append(None)
                continue
            try:
                finals.append(self.links.apply(raw, game_id, recipients) if self.links is not None else raw)
            except Exception as exc:  # one row's trouble must not stop the others
                finals.append(DeliveryError(f"{type(exc).__name__}: {exc}"))
        if self.signer is None:
            return finals
        unsigned = {index: final for index, final in enumerate(finals) if isinstance(final, bytes)}
        try:
            signed = self.signer.sign_each(list(unsigned.values()))
        except Exception as exc:  # never sent unsigned: kept, retried, reported
            signed = [SigningError(f"cannot sign: {type(exc).__name__}: {exc}")] * len(unsigned)
        for index, result in zip(unsigned, signed):
            finals[index] = DeliveryError(str(result)) if isinstance(result, SigningError) else result
        return finals

    def _record(self, row_id: int, recipients: Sequence[str], error: DeliveryError | None,
                how: Delivered | None = None) -> None:
        now = self.clock()
        with self.store.core_unit_of_work() as connection:
            if error is None:
                connection.execute(_SENT, {"row_id": row_id, "now": now,
                                           "queue_id": how.queue_id if how is not None else None})
                log.info("outbox #%d %s", row_id, how.how if how is not None else f"sent to {', '.join(recipients)}")
            else:
                self._record_failure(connection, row_id, error, now)

    def _record_failure(self, connection: Connection, row_id: int, error: DeliveryError, now: datetime) -> None:
        attempts = connection.execute(_ATTEMPTS, {"row_id": row_id}).scalar_one_or_none()
        if attempts is None:
            return
        attempts += 1
        if error.permanent or attempts >= self.max_attempts:
            connection.execute(_FAILED_ATTEMPT, {"row_id": row_id, "attempts": attempts, "error": str(error),
                                                 "status": FAILED, "next_at": now})
            log.error("outbox #%d failed for good after %d attempts: %s", row_id, attempts, error)
            return
        delay = backoff_seconds(attempts, self.retry_base_seconds)
        connection.execute(_FAILED_ATTEMPT, {"row_id": row_id, "attempts": attempts, "error": str(error),
                                             "status": QUEUED, "next_at": now + timedelta(seconds=delay)})
        log.warning("outbox #%d attempt %d failed (%s); retry in %.0f s", row_id, attempts, error, delay)

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
