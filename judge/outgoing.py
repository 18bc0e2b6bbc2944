"""Outgoing mail as a frozen value, and its conversion to an outbox row.

Services return ``OutgoingMail`` values; the worker (or the scheduler) turns them into
outbox rows in the same transaction as the state change that caused them.  Every mail
gets From, To, Subject, Date, Message-ID and Auto-Submitted here, and In-Reply-To /
References when it answers a mail, so no caller can forget them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Sequence

from sqlalchemy.orm import Session

from judge.config import JudgeSettings
from judge.store.models_mail import QUEUED, OutboxMessage

AUTO_REPLIED = "auto-replied"
AUTO_GENERATED = "auto-generated"


@dataclass(frozen=True)
class OutgoingMail:
    """One mail to send.

    ``body`` is plain text; ``mime`` replaces it with a ready MIME body part (for
    example a PGP/MIME multipart/signed) whose headers are kept.  ``in_reply_to`` is the
    Message-ID (without brackets) of the mail this answers; a mail with it set is a
    reply and carries ``Auto-Submitted: auto-replied`` unless told otherwise.
    ``headers`` are extra headers such as List-Id or List-Unsubscribe.
    """

    recipients: tuple[str, ...]
    subject: str
    body: str = ""
    kind: str = "reply"
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    game_id: int | None = None
    headers: tuple[tuple[str, str], ...] = ()
    auto_submitted: str | None = None
    mime: EmailMessage | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.recipients, str):
            raise TypeError("recipients must be a tuple of addresses, not one string")
        if not self.recipients:
            raise ValueError("an outgoing mail needs at least one recipient")

    @property
    def is_reply(self) -> bool:
        return self.in_reply_to is not None


def _bracket(message_id: str) -> str:
    message_id = message_id.strip()
    return message_id if message_id.startswith("<") else f"<{message_id}>"


def build_message(mail: OutgoingMail, judge: JudgeSettings, now: datetime) -> EmailMessage:
    """The complete RFC 5322 message for ``mail``, sent from the judge."""
    if mail.mime is not None:
        message = EmailMessage()
        for name, value in mail.mime.items():
            message[name] = value
        message.set_payload(mail.mime.get_payload())
        if "MIME-Version" not in message:
            message["MIME-Version"] = "1.0"
    else:
        message = EmailMessage()
        body = mail.body if mail.body.endswith("\n") else mail.body + "\n"
        cte = "7bit" if body.isascii() and max(map(len, body.splitlines()), default=0) <= 900 \
            else "quoted-printable"
        message.set_content(body, charset="utf-8", cte=cte)
    local, _, domain = judge.address.partition("@")
    message["From"] = Address(display_name=judge.name, username=local, domain=domain or judge.domain)
    message["To"] = ", ".join(mail.recipients)
    message["Subject"] = mail.subject
    message["Date"] = format_datetime(now)
    message["Message-ID"] = make_msgid(domain=judge.domain)
    auto = mail.auto_submitted or (AUTO_REPLIED if mail.is_reply else AUTO_GENERATED)
    message["Auto-Submitted"] = auto
    if mail.in_reply_to is not None:
        message["In-Reply-To"] = _bracket(mail.in_reply_to)
        chain = [_bracket(r) for r in mail.references] + [_bracket(mail.in_reply_to)]
        message["References"] = " ".join(dict.fromkeys(chain))
    for name, value in mail.headers:
        message[name] = value
    return message


def queue_outgoing(session: Session, mail: OutgoingMail, judge: JudgeSettings, now: datetime,
                   *, inbound_id: int | None = None) -> OutboxMessage:
    """Add an outbox row for ``mail``; it is sent once the surrounding transaction commits."""
    message = build_message(mail, judge, now)
    row = OutboxMessage(
        mail_from=judge.address,
        recipients=list(mail.recipients),
        raw=message.as_bytes(),
        kind=mail.kind,
        game_id=mail.game_id,
        inbound_id=inbound_id,
        status=QUEUED,
        attempts=0,
        next_attempt_at=now,
        created_at=now,
    )
    session.add(row)
    return row


def queue_all(session: Session, mails: Sequence[OutgoingMail], judge: JudgeSettings,
              now: datetime, *, inbound_id: int | None = None) -> list[OutboxMessage]:
    return [queue_outgoing(session, m, judge, now, inbound_id=inbound_id) for m in mails]
