"""Storing received mail exactly once: the edges call ``store_inbound`` before they ack."""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

from sqlalchemy import Connection, bindparam, insert, or_, select
from sqlalchemy.exc import IntegrityError

from judge.store.core import table_of
from judge.store.engine import Store
from judge.store.models_mail import RECEIVED, InboundMessage

# Headers added in transit: a redelivered copy differs only in these.
_TRACE_HEADERS = frozenset({
    "received", "return-path", "delivered-to", "x-original-to", "x-delivered-to",
    "authentication-results", "arc-seal", "arc-message-signature",
    "arc-authentication-results", "received-spf", "x-spam-status", "x-spam-score",
    "x-spam-flag", "x-spam-level", "x-spam-checker-version",
})
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_MESSAGE_ID = re.compile(rb"(?im)^message-id[ \t]*:((?:[^\r\n]*)(?:\r?\n[ \t][^\r\n]*)*)")


@dataclass(frozen=True)
class Vetted:
    """Who wrote a mail, as its edge found (judge.mailauth.intake): ``results``, the
    judge's own Authentication-Results value (None when it did not verify);
    ``authenticated``, the From address proven; ``distrust``, why its sign-ons are refused."""

    results: str | None = None
    authenticated: str | None = None
    distrust: str | None = None


@dataclass(frozen=True)
class Stored:
    """The inbound row a mail is stored as; ``new`` is False for a redelivery."""

    inbound_id: int
    new: bool


def header_message_id(raw: bytes) -> str | None:
    """The Message-ID header without angle brackets or blanks, or None when missing.

    A plain scan of the header block: intake must be cheap, and a malformed header
    elsewhere must not hide the Message-ID.
    """
    match = _HEADER_END.search(raw)
    head = raw[: match.start()] if match else raw
    found = _MESSAGE_ID.search(head)
    if found is None:
        return None
    text = b"".join(found.group(1).split()).decode("utf-8", "replace")
    text = text.strip("<>")
    return text[:998] or None


def content_digest(raw: bytes) -> str:
    """sha256 of the mail without its trace headers (so a redelivery has the same digest)."""
    match = _HEADER_END.search(raw)
    head, body = (raw[: match.start()], raw[match.start():]) if match else (raw, b"")
    kept: list[bytes] = []
    skipping = False
    for line in head.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t"):
            if not skipping:
                kept.append(line)
            continue
        name = line.split(b":", 1)[0].strip().lower().decode("latin-1")
        skipping = name in _TRACE_HEADERS
        if not skipping:
            kept.append(line.rstrip(b"\r\n") + b"\n")
    digest = hashlib.sha256()
    digest.update(b"".join(kept))
    digest.update(body.replace(b"\r\n", b"\n"))
    return digest.hexdigest()


# Plain Core statements on the table, built once: intake runs for every mail and shares
# the process (and its GIL) with the worker; the ORM's statement handling costs more than
# the two statements themselves.
_INBOUND = table_of(InboundMessage)
_BY_DIGEST = select(_INBOUND.c.id).where(_INBOUND.c.digest == bindparam("digest")).limit(1)
_BY_MESSAGE_ID_OR_DIGEST = select(_INBOUND.c.id).where(
    or_(_INBOUND.c.message_id == bindparam("message_id"), _INBOUND.c.digest == bindparam("digest"))
).limit(1)
_INSERT = insert(_INBOUND)


def _find_existing(connection: Connection, message_id: str | None, digest: str) -> int | None:
    if message_id is None:
        return connection.execute(_BY_DIGEST, {"digest": digest}).scalar_one_or_none()
    return connection.execute(
        _BY_MESSAGE_ID_OR_DIGEST, {"message_id": message_id, "digest": digest}
    ).scalar_one_or_none()


@dataclass
class _Arrival:
    """One mail handed to ``store_inbound`` (or to a ``GroupedIntake``), and its outcome."""

    raw: bytes
    mail_from: str | None
    rcpt_to: list[str]
    source: str
    now: datetime
    peer: str | None = None
    vetted: Vetted | None = None
    message_id: str | None = None
    digest: str = ""
    stored: Stored | None = None
    error: BaseException | None = None
    leads: bool = False  # this mail's thread stores the next group
    wake: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.message_id = header_message_id(self.raw)
        self.digest = content_digest(self.raw)

    def row(self) -> dict[str, object]:
        return {"message_id": self.message_id, "digest": self.digest, "mail_from": self.mail_from,
                "rcpt_to": self.rcpt_to, "source": self.source, "raw": self.raw, "received_at": self.now,
                "status": RECEIVED, "peer": self.peer,
                "auth_results": self.vetted.results if self.vetted else None,
                "authenticated": self.vetted.authenticated if self.vetted else None,
                "distrust": self.vetted.distrust if self.vetted else None}


def _insert(connection: Connection, arrival: _Arrival) -> int:
    """Store ``arrival``; the id of its new row."""
    key = connection.execute(_INSERT, arrival.row()).inserted_primary_key
    if key is None:  # never for a one-row INSERT
        raise RuntimeError("the database gave no id for a stored mail")
    return int(key[0])


def store_inbound(store: Store, raw: bytes, *, mail_from: str | None, rcpt_to: Sequence[str],
                  source: str, now: datetime, peer: str | None = None, vetted: Vetted | None = None) -> Stored:
    """Commit ``raw`` as a new inbound row, or find the row of an earlier delivery;
    ``peer``: the connecting client's IP address (SMTP), None when unknown; ``vetted``:
    the verdict on who wrote it (judge.mailauth.intake).

    Committed when this returns: only then may the edge acknowledge the mail.
    """
    return _store_one(store, _Arrival(raw, mail_from, list(rcpt_to), source, now, peer, vetted))


def _store_one(store: Store, arrival: _Arrival) -> Stored:
    message_id, digest = arrival.message_id, arrival.digest
    try:
        with store.core_unit_of_work(durable=True) as connection:
            existing = _find_existing(connection, message_id, digest)
            if existing is not None:
                return Stored(existing, new=False)
            inbound_id = _insert(connection, arrival)
    except IntegrityError:
        # Another connection (PostgreSQL, another daemon) stored the same mail meanwhile.
        with store.engine.connect() as connection:
            existing = _find_existing(connection, message_id, digest)
        if existing is None:
            raise
        return Stored(existing, new=False)
    return Stored(int(inbound_id), new=True)


class GroupedIntake:
    """``store_inbound`` for mails arriving at the same time on several threads (the SMTP
    listener's connections): the mails waiting when a transaction can begin are stored
    together, in one durable transaction with one sync, instead of one each.

    On SQLite every intake transaction waits for the single write turn (behind the worker,
    about 5 ms a mail) and then syncs the WAL; at saturation several mails wait at once, and
    each paid for its own turn, commit and fsync.  The first waiting thread stores the
    group while the others wait; each gets its own ``Stored`` (a mail already stored, or
    twice in the group, is ``new=False`` with the first row's id), and each returns only
    once the group is durable, so the edge acknowledges nothing that could be lost.  When
    the group's transaction fails, each mail of it is stored again on its own, so one
    mail's trouble is that mail's answer alone.  Other databases store each mail on its
    own (their writers do not queue for one turn).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self._grouped = store.dialect == "sqlite"
        self._lock = threading.Lock()
        self._waiting: list[_Arrival] = []
        self._storing = False  # a thread is storing a group (later mails wait for the next)

    def store_inbound(self, raw: bytes, *, mail_from: str | None, rcpt_to: Sequence[str], source: str,
                      now: datetime, peer: str | None = None, vetted: Vetted | None = None) -> Stored:
        """As the module's ``store_inbound``: committed and synced when this returns."""
        arrival = _Arrival(raw, mail_from, list(rcpt_to), source, now, peer, vetted)
        if not self._grouped:
            return _store_one(self.store, arrival)
        with self._lock:
            self._waiting.append(arrival)
            if not self._storing:
                self._storing = arrival.leads = True
        if not arrival.leads:
            arrival.wake.wait()  # stored by another thread, or handed the next group
        if arrival.leads:
            self._store_next_group()
        if arrival.error is not None:
            raise arrival.error
        assert arrival.stored is not None
        return arrival.stored

    def _store_next_group(self) -> None:
        """Store what waits (this thread's mail first), then hand the turn to a mail that
        came meanwhile: this thread answers its own sender instead of storing on."""
        with self._lock:
            group, self._waiting = self._waiting, []
        try:
            self._store_group(group)
        except Exception:
            for arrival in group:
                try:
                    arrival.stored = _store_one(self.store, arrival)
                except Exception as problem:
                    arrival.error = problem
        with self._lock:
            following = self._waiting[0] if self._waiting else None
            if following is None:
                self._storing = False
            else:
                following.leads = True
        for arrival in group:
            arrival.wake.set()
        if following is not None:
            following.wake.set()

    def _store_group(self, group: list[_Arrival]) -> None:
        found: dict[tuple[str, str], int] = {}  # ("id", message-id) or ("digest", digest) -> row id
        outcomes: list[Stored] = []
        with self.store.core_unit_of_work(durable=True) as connection:
            for arrival in group:
                keys = [("digest", arrival.digest)]
                if arrival.message_id is not None:
                    keys.append(("id", arrival.message_id))
                earlier = next((found[key] for key in keys if key in found), None)
                if earlier is None:
                    earlier = _find_existing(connection, arrival.message_id, arrival.digest)
                if earlier is not None:
                    outcomes.append(Stored(earlier, new=False))
                    continue
                inbound_id = _insert(connection, arrival)
                found.update(dict.fromkeys(keys, inbound_id))
                outcomes.append(Stored(inbound_id, new=True))
        for arrival, stored in zip(group, outcomes):  # only once committed and synced
            arrival.stored = stored
