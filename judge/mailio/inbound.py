"""Values the edges and the commands share: a stored mail as the commands see it, the
clock, the processing hook's shape, and (from judge.refusal) the refusal a command handler raises."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import EmailMessage
from email.utils import getaddresses
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Protocol, Sequence, runtime_checkable

from judge.config import JudgeSettings
from judge.mailio.addresses import parsed_address
from judge.refusal import CommandRefused  # noqa: F401  (command modules import it from here)
from judge.mailio.outgoing import OutgoingMail

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class InboundMail:
    """A stored mail as the processing hook sees it.

    ``mail_from`` is the envelope sender ("" for a bounce, None when unknown, as over
    IMAP).  ``no_reply_reason`` is the loop guard's verdict: when set, the worker sends
    nothing that answers this mail, whatever the hook returns, and the hook should not
    act on robot mail.  ``judge`` is the identity of the judge that received it.
    """

    inbound_id: int
    raw: bytes = field(repr=False)
    message: EmailMessage = field(repr=False, compare=False)
    mail_from: str | None
    rcpt_to: tuple[str, ...]
    message_id: str | None
    source: str
    received_at: datetime
    no_reply_reason: str | None
    judge: JudgeSettings
    #: Why the mail's body could not be read at all (e.g. MIME nested too deep); None normally.
    unreadable: str | None = None
    #: The Subject with any password masked (the worker masks it with the command grammar);
    #: a reply's "Re:" subject quotes this, never the Subject itself.
    masked_subject: str = ""
    #: The connecting client's IP address (SMTP); None when unknown (IMAP).
    peer: str | None = None
    #: The sender's address as verified (DKIM/DMARC, SMTP AUTH); None until a verifier sets
    #: it.  judge.mailio.senders.sender_of prefers it to everything a stranger can write.
    authenticated: str | None = None
    #: Why this mail's sign-ons are refused (it fails its From domain's DMARC policy,
    #: judge.mailauth.trust); None when they are not.
    distrust: str | None = None
    #: What the hook's ``prepare`` read from this mail before the write turn (the commands
    #: parse the mail's text: ``PreparingHook``); None when it was not prepared.  Opaque to
    #: the worker: only the hook that made it reads it.
    prepared: object = field(default=None, repr=False, compare=False)

    @property
    def may_reply(self) -> bool:
        return self.no_reply_reason is None

    # Cached: handlers ask for these many times per mail, and each header read parses anew.
    @cached_property
    def from_address(self) -> str:
        """The From address, lower-cased ("" if none or not a deliverable address)."""
        return usable_address(parsed_address(_header(self.message, "From"))[1])

    @cached_property
    def reply_address(self) -> str:
        """Where an answer goes: Reply-To, else From, else the envelope sender, the first of
        them that is a deliverable address ("" when none is: ``nobody``, or one with control
        characters).  An unusable Reply-To does not keep the From from being answered."""
        reply_to = [usable_address(a) for _, a in getaddresses([_header(self.message, "Reply-To")]) if a]
        return next((a for a in reply_to if a), "") or self.from_address or usable_address(self.mail_from or "")

    @cached_property
    def subject(self) -> str:
        return str(self.message.get("Subject", "") or "")

    def reply(self, body: str, *, subject: str | None = None, kind: str = "reply",
              game_id: int | None = None) -> OutgoingMail:
        """An answer to the sender, threaded under this mail."""
        if subject is None:
            original = one_line(self.masked_subject.strip())  # no password, no line break comes back
            subject = original if original.lower().startswith("re:") else f"Re: {original}".rstrip()
        references = tuple(str(self.message.get("References", "") or "").split())
        return OutgoingMail(
            recipients=(self.reply_address,), subject=subject, body=body, kind=kind,
            in_reply_to=self.message_id, references=references, game_id=game_id,
        )


_ADDRESS = re.compile(r"[^\s@<>()\[\]\\,;:\"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*")


def _header(message: EmailMessage, name: str) -> str:
    """A header's text, "" when it is missing or too malformed to read (an address whose
    encoded words hide a line break raises when the email package parses it)."""
    try:
        return str(message.get(name, "") or "")
    except (ValueError, TypeError, IndexError, AttributeError):
        return ""


def usable_address(text: str) -> str:
    """``text`` lower-cased if it is an address mail can be sent to (a local part and a
    domain, no control or blank characters); "" otherwise (``nobody``)."""
    address = text.strip().lower()
    return address if _ADDRESS.fullmatch(address) and address.isprintable() and len(address) <= 254 else ""


def one_line(text: str) -> str:
    """``text`` safe for a header: every control character and line or paragraph separator
    (CR, LF, U+2028, ...) becomes a space, runs of blanks one space."""
    return " ".join("".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text).split())


class ProcessHook(Protocol):
    """Apply one mail inside the caller's transaction and return the mail to send."""

    def __call__(self, session: "Session", inbound: InboundMail, now: datetime) -> Sequence[OutgoingMail]: ...


@runtime_checkable
class PreparingHook(ProcessHook, Protocol):
    """A hook that can do part of its work before the write turn: ``prepare`` reads what
    needs no store (the mail's text parsed into commands) and returns the mail carrying it
    in ``prepared``.  On SQLite, where writers take turns, the worker prepares the waiting
    mails outside its turn, so intake stores mail meanwhile; the hook must give the same
    answer for a mail prepared or not."""

    def prepare(self, inbound: InboundMail) -> InboundMail: ...
