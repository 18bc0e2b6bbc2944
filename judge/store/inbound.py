"""Storing received mail exactly once: the edges call ``store_inbound`` before they ack."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from email.parser import BytesHeaderParser
from email.policy import default as default_policy
from typing import Sequence

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from judge.store.engine import Store
from judge.store.models_mail import InboundMessage

# Headers added in transit: a redelivered copy differs only in these.
_TRACE_HEADERS = frozenset({
    "received", "return-path", "delivered-to", "x-original-to", "x-delivered-to",
    "authentication-results", "arc-seal", "arc-message-signature",
    "arc-authentication-results", "received-spf", "x-spam-status", "x-spam-score",
    "x-spam-flag", "x-spam-level", "x-spam-checker-version",
})
_HEADER_END = re.compile(rb"\r?\n\r?\n")


@dataclass(frozen=True)
class Stored:
    """The inbound row a mail is stored as; ``new`` is False for a redelivery."""

    inbound_id: int
    new: bool


def header_message_id(raw: bytes) -> str | None:
    """The Message-ID header without angle brackets or blanks, or None when missing."""
    headers = BytesHeaderParser(policy=default_policy).parsebytes(raw)
    try:
        value = headers.get("Message-ID")
    except Exception:  # a malformed header is as good as none
        return None
    if value is None:
        return None
    text = str(value).strip().strip("<>").strip()
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


def _find_existing(store: Store, message_id: str | None, digest: str) -> int | None:
    with store.sessions() as session:
        query = select(InboundMessage.id)
        if message_id is not None:
            query = query.where(InboundMessage.message_id == message_id)
        else:
            query = query.where(InboundMessage.digest == digest)
        found = session.execute(query).scalar_one_or_none()
        if found is None and message_id is not None:
            found = session.execute(
                select(InboundMessage.id).where(InboundMessage.digest == digest)
            ).scalar_one_or_none()
        return found


def store_inbound(store: Store, raw: bytes, *, mail_from: str | None, rcpt_to: Sequence[str],
                  source: str, now: datetime) -> Stored:
    """Commit ``raw`` as a new inbound row, or find the row of an earlier delivery.

    Committed when this returns: only then may the edge acknowledge the mail.
    """
    message_id = header_message_id(raw)
    digest = content_digest(raw)
    existing = _find_existing(store, message_id, digest)
    if existing is not None:
        return Stored(existing, new=False)
    try:
        with store.unit_of_work() as session:
            row = InboundMessage(
                message_id=message_id, digest=digest, mail_from=mail_from,
                rcpt_to=list(rcpt_to), source=source, raw=raw, received_at=now,
            )
            session.add(row)
            session.flush()
            inbound_id = row.id
    except IntegrityError:
        # Another connection stored the same mail between our look-up and insert.
        existing = _find_existing(store, message_id, digest)
        if existing is None:
            raise
        return Stored(existing, new=False)
    return Stored(inbound_id, new=True)
