"""Storing received mail exactly once: the edges call ``store_inbound`` before they ack."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

from sqlalchemy import Connection, bindparam, insert, or_, select
from sqlalchemy.exc import IntegrityError

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
_INBOUND = InboundMessage.__table__
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


def store_inbound(store: Store, raw: bytes, *, mail_from: str | None, rcpt_to: Sequence[str],
                  source: str, now: datetime) -> Stored:
    """Commit ``raw`` as a new inbound row, or find the row of an earlier delivery.

    Committed when this returns: only then may the edge acknowledge the mail.
    """
    message_id = header_message_id(raw)
    digest = content_digest(raw)
    try:
        with store.core_unit_of_work(durable=True) as connection:
            existing = _find_existing(connection, message_id, digest)
            if existing is not None:
                return Stored(existing, new=False)
            inbound_id = connection.execute(_INSERT, {
                "message_id": message_id, "digest": digest, "mail_from": mail_from,
                "rcpt_to": list(rcpt_to), "source": source, "raw": raw, "received_at": now,
                "status": RECEIVED,
            }).inserted_primary_key[0]
    except IntegrityError:
        # Another connection (PostgreSQL, another daemon) stored the same mail meanwhile.
        with store.engine.connect() as connection:
            existing = _find_existing(connection, message_id, digest)
        if existing is None:
            raise
        return Stored(existing, new=False)
    return Stored(int(inbound_id), new=True)
