"""Mail tables: what came in (inbound), what crashed (shunt), what goes out (outbox)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from judge.store.base import Base

# Inbound statuses.
RECEIVED = "received"
PROCESSED = "processed"
SHUNTED = "shunted"

# Outbox statuses.
QUEUED = "queued"
SENT = "sent"
FAILED = "failed"


class InboundMessage(Base):
    """One received mail, stored byte for byte before the SMTP 250 / the IMAP \\Seen.

    ``message_id`` (when the mail has one) and ``digest`` (sha256 of the mail without its
    trace headers) are unique, so a redelivered mail is recognised and not processed twice.
    """

    __tablename__ = "inbound_message"
    # The worker's claim: the oldest waiting mail, read in id order from this index.  On
    # status alone PostgreSQL sorted every waiting mail at each claim (0.75 ms a claim with
    # a backlog of 700: docs/benchmarks.md, "Scale-out, session 7").
    __table_args__ = (Index("ix_inbound_message_status_id", "status", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[str | None] = mapped_column(String(998), unique=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    # Envelope sender: "" for a bounce (null return path), None when unknown (IMAP).
    mail_from: Mapped[str | None] = mapped_column(String(998))
    rcpt_to: Mapped[list[Any]] = mapped_column(default=list)
    source: Mapped[str] = mapped_column(String(16))
    # The connecting client's IP address (SMTP); None when unknown (IMAP, older rows).
    peer: Mapped[str | None] = mapped_column(String(64))
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    received_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(16), default=RECEIVED)
    processed_at: Mapped[datetime | None]
    loop_reason: Mapped[str | None] = mapped_column(String(200))
    # Times a worker began processing it, counted in a transaction of its own before each
    # start: a mail that kills the worker (out of memory, SIGKILL) is counted all the same,
    # and shunted after [worker] max_attempts starts instead of stopping the judge forever.
    attempts: Mapped[int] = mapped_column(default=0, server_default="0")
    # PostgreSQL: the database's time of the last counted start (see judge.daemon.worker).
    started_at: Mapped[datetime | None]

    # Who wrote it: the judge's own Authentication-Results value (RFC 8601; the header it
    # would add on top of ``raw``, kept beside it so ``raw`` stays as received), and the
    # verdict of the trusted one (judge.mailauth.trust): the From address DMARC proved, and
    # why its sign-ons are refused (None: they are not).
    auth_results: Mapped[str | None] = mapped_column(Text)
    authenticated: Mapped[str | None] = mapped_column(String(320))
    distrust: Mapped[str | None] = mapped_column(Text)

    shunts: Mapped[list["Shunt"]] = relationship(back_populates="inbound", order_by="Shunt.id")


class Shunt(Base):
    """A message whose processing raised: the traceback, kept until someone retries it."""

    __tablename__ = "shunt"

    id: Mapped[int] = mapped_column(primary_key=True)
    inbound_id: Mapped[int] = mapped_column(ForeignKey("inbound_message.id"), index=True)
    traceback: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    retried: Mapped[bool] = mapped_column(default=False)
    retried_at: Mapped[datetime | None]

    inbound: Mapped[InboundMessage] = relationship(back_populates="shunts")


class OutboxMessage(Base):
    """A rendered mail waiting for the sender; written in the same transaction as its cause."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status_next_attempt_at", "status", "next_attempt_at"),
                      # [store] keep_sent_days: the sent mail not emptied yet, oldest first
                      # (the emptied ones, every row ever sent but the last month's, stay out).
                      Index("ix_outbox_emptied_at_status_sent_at", "emptied_at", "status", "sent_at"))

    id: Mapped[int] = mapped_column(primary_key=True)
    mail_from: Mapped[str] = mapped_column(String(998))
    recipients: Mapped[list[Any]]
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    kind: Mapped[str] = mapped_column(String(40))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("game.id"), index=True)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_message.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default=QUEUED)
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime]
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    sent_at: Mapped[datetime | None]
    # When [store] keep_sent_days emptied its body (the headers stay); None while whole.
    emptied_at: Mapped[datetime | None]
    # The LeaseOwner sending it now (None when not leased): a dead owner's rows are
    # released at once instead of waiting out the lease (judge.store.leases).
    leased_by: Mapped[str | None] = mapped_column(String(32))
    # What the receiver called it: the relay's queue id (its reply to DATA), or the file
    # written in the outbox folder; a postmaster finds the mail in the relay's log by it.
    relay_queue_id: Mapped[str | None] = mapped_column(String(200))
