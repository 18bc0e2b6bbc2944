"""Outgoing mail as a frozen value, and its conversion to an outbox row.

Command handlers and the turn path return ``OutgoingMail`` values; the worker (or the scheduler) turns them into
outbox rows in the same transaction as the state change that caused them.  Every mail
gets From, To, Subject, Date, Message-ID and Auto-Submitted here, and In-Reply-To /
References when it answers a mail, so no caller can forget them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Sequence

from sqlalchemy import insert
from sqlalchemy.orm import Session

from judge.config import JudgeSettings
from judge.mailio.policy import HEADER_REGISTRY, POLICY
from judge.store.core import table_of
from judge.store.models_mail import QUEUED, OutboxMessage

# Machine players (judge/edge/daide) have addresses in this reserved domain (RFC 2606):
# they get their news over DAIDE, so mail to them is never queued.
MACHINE_DOMAIN = "machines.invalid"

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


#: Headers written as given, never folded into encoded words: RFC 2369/2919 list headers
#: are angle-bracketed URLs a mail client must read as they are.
_AS_GIVEN = re.compile(r"(?i)list-[a-z-]+\Z")
#: The policy of built messages: headers set raw (the list headers above) are not refolded.
_BUILD_POLICY = POLICY.clone(refold_source="none")


def build_message(mail: OutgoingMail, judge: JudgeSettings, now: datetime) -> EmailMessage:
    """The complete RFC 5322 message for ``mail``, sent from the judge."""
    if mail.mime is not None:
        message = EmailMessage(policy=_BUILD_POLICY)
        for name, value in mail.mime.items():
            message[name] = value
        message.set_payload(mail.mime.get_payload())
        if "MIME-Version" not in message:
            message["MIME-Version"] = "1.0"
    else:
        message = EmailMessage(policy=_BUILD_POLICY)
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
        if _AS_GIVEN.match(name) and value.isascii() and value.isprintable() and len(value) < 990:
            message.set_raw(name, value)
        else:
            message[name] = value
    return message


# The plain case written directly: every header a single line of printable ASCII words
# (no encoded words, nothing to fold or quote), plain addresses, an ASCII body.  The bytes
# are exactly those ``build_message(...).as_bytes()`` gives (tests compare the two); the
# email package spends about 0.4 ms parsing and folding the headers of every reply.
_PLAIN_VALUE = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*\Z")
_PLAIN_ADDRESS = re.compile(r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\Z")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9]+(?: [A-Za-z0-9]+)*\Z")
_HEADER_NAME = re.compile(r"[A-Za-z0-9-]+\Z")
_MAX_LINE = 78
_MAX_BODY_LINE = 900
_WRITTEN_HERE = frozenset({
    "content-type", "content-transfer-encoding", "mime-version", "from", "to", "subject", "date",
    "message-id", "auto-submitted", "in-reply-to", "references",
})


def _plain_bytes(mail: OutgoingMail, judge: JudgeSettings, now: datetime) -> bytes | None:
    """``mail`` as bytes when it is the plain case; None otherwise (build it in full)."""
    if mail.mime is not None:
        return None
    body = mail.body if mail.body.endswith("\n") else mail.body + "\n"
    if not body.isascii():
        return None
    lines = body.encode("ascii").splitlines()
    if max(map(len, lines), default=0) > _MAX_BODY_LINE:
        return None
    local, _, domain = judge.address.partition("@")
    sender = f"{local}@{domain or judge.domain}"
    if not _PLAIN_ADDRESS.match(sender) or not all(_PLAIN_ADDRESS.match(r) for r in mail.recipients):
        return None
    if judge.name and not _PLAIN_NAME.match(judge.name):
        return None
    headers = [
        ("Content-Type", 'text/plain; charset="utf-8"'), ("Content-Transfer-Encoding", "7bit"),
        ("MIME-Version", "1.0"), ("From", f"{judge.name} <{sender}>" if judge.name else sender),
        ("To", ", ".join(mail.recipients)), ("Subject", mail.subject), ("Date", format_datetime(now)),
        ("Message-ID", make_msgid(domain=judge.domain)),
        ("Auto-Submitted", mail.auto_submitted or (AUTO_REPLIED if mail.is_reply else AUTO_GENERATED)),
    ]
    if mail.in_reply_to is not None:
        headers.append(("In-Reply-To", _bracket(mail.in_reply_to)))
        chain = [_bracket(r) for r in mail.references] + [_bracket(mail.in_reply_to)]
        headers.append(("References", " ".join(dict.fromkeys(chain))))
    registry = HEADER_REGISTRY.registry
    for name, value in mail.headers:
        if not _HEADER_NAME.match(name) or name.lower() in _WRITTEN_HERE or name.lower() in registry:
            return None
        headers.append((name, value))
    text = []
    for name, value in headers:
        line = f"{name}: {value}"
        if len(line) > _MAX_LINE or "=?" in value or not _PLAIN_VALUE.match(value):
            return None
        text.append(line)
    return ("\n".join(text) + "\n\n").encode("ascii") + b"\n".join(lines) + b"\n"


def message_bytes(mail: OutgoingMail, judge: JudgeSettings, now: datetime) -> bytes:
    """The bytes of ``build_message(mail, judge, now)`` (written directly in the plain case)."""
    plain = _plain_bytes(mail, judge, now)
    return plain if plain is not None else build_message(mail, judge, now).as_bytes()


def _for_people(mail: OutgoingMail) -> OutgoingMail | None:
    """``mail`` without machine recipients (None when nobody is left)."""
    if not any(r.endswith("@" + MACHINE_DOMAIN) for r in mail.recipients):
        return mail
    people = tuple(r for r in mail.recipients if not r.endswith("@" + MACHINE_DOMAIN))
    if not people:
        return None
    from dataclasses import replace

    return replace(mail, recipients=people)


def queue_outgoing(session: Session, mail: OutgoingMail, judge: JudgeSettings, now: datetime,
                   *, inbound_id: int | None = None) -> OutboxMessage | None:
    """Add an outbox row for ``mail``; it is sent once the surrounding transaction commits.
    Mail only for machine players is not queued (None)."""
    kept = _for_people(mail)
    if kept is None:
        return None
    mail = kept
    return _add_row(session, mail, message_bytes(mail, judge, now), judge, now, inbound_id)


def _row_values(mail: OutgoingMail, raw: bytes, judge: JudgeSettings, now: datetime,
                inbound_id: int | None) -> dict[str, object]:
    return {
        "mail_from": judge.address, "recipients": list(mail.recipients), "raw": raw, "kind": mail.kind,
        "game_id": mail.game_id, "inbound_id": inbound_id, "status": QUEUED, "attempts": 0,
        "next_attempt_at": now, "created_at": now,
    }


def _add_row(session: Session, mail: OutgoingMail, raw: bytes, judge: JudgeSettings, now: datetime,
             inbound_id: int | None) -> OutboxMessage:
    row = OutboxMessage(**_row_values(mail, raw, judge, now, inbound_id))
    session.add(row)
    return row


# Core, built once: queue_all runs for every processed mail.
_INSERT_OUTBOX = insert(table_of(OutboxMessage))


def _copy_key(mail: OutgoingMail) -> tuple[object, ...] | None:
    """Mails with equal keys differ only in their one recipient (a broadcast's copies)."""
    if len(mail.recipients) != 1 or not mail.recipients[0].isascii():
        return None
    return (mail.subject, mail.body, mail.kind, mail.in_reply_to, mail.references, mail.game_id,
            mail.headers, mail.auto_submitted, id(mail.mime) if mail.mime is not None else None)


def _readdressed(prototype: bytes, old: str, new: str, judge: JudgeSettings) -> bytes | None:
    """``prototype`` for recipient ``new`` with a fresh Message-ID; None if its To and
    Message-ID headers are not the single unfolded lines expected (then build it in full)."""
    head, sep, _ = prototype.partition(b"\n\n")
    if not sep:
        return None
    lines = head.split(b"\n")
    to_line = f"To: {old}".encode("ascii")
    tos = [i for i, line in enumerate(lines) if line.startswith(b"To: ")]
    ids = [i for i, line in enumerate(lines) if line.startswith(b"Message-ID: ")]
    if len(tos) != 1 or len(ids) != 1 or lines[tos[0]] != to_line:
        return None
    if any(i + 1 < len(lines) and lines[i + 1][:1] in (b" ", b"\t") for i in (tos[0], ids[0])):
        return None  # folded: not the simple case
    lines[tos[0]] = f"To: {new}".encode("ascii")
    lines[ids[0]] = f"Message-ID: {make_msgid(domain=judge.domain)}".encode("ascii")
    return b"\n".join(lines) + prototype[len(head):]


def queue_all(session: Session, mails: Sequence[OutgoingMail], judge: JudgeSettings,
              now: datetime, *, inbound_id: int | None = None) -> int:
    """Queue every mail (one INSERT of all the rows); the number queued.  The copies of a
    broadcast are built once: the other copies are the first one's bytes with their own To
    and Message-ID (building a MIME message is the dominant cost of a scheduler pass that
    processes many games)."""
    rows = []
    built: dict[tuple[object, ...], tuple[str, bytes]] = {}
    for given in mails:
        mail = _for_people(given)
        if mail is None:
            continue
        key = _copy_key(mail)
        raw = None
        if key is not None and key in built:
            first_address, prototype = built[key]
            raw = _readdressed(prototype, first_address, mail.recipients[0], judge)
        if raw is None:
            raw = message_bytes(mail, judge, now)
            if key is not None and key not in built:
                built[key] = (mail.recipients[0], raw)
        rows.append(_row_values(mail, raw, judge, now, inbound_id))
    if rows:
        session.flush()  # the rows they refer to (a game made in this transaction) first
        session.connection().execute(_INSERT_OUTBOX, rows)
    return len(rows)
