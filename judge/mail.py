"""Values the edges and the services share: a stored mail as the services see it, the
clock, the processing hook's shape, and (from judge.refusal) the refusal a service raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from judge.config import JudgeSettings
from judge.refusal import CommandRefused  # noqa: F401  (services import it from here)
from judge.outgoing import OutgoingMail

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

    @property
    def may_reply(self) -> bool:
        return self.no_reply_reason is None

    # Cached: handlers ask for these many times per mail, and each header read parses anew.
    @cached_property
    def from_address(self) -> str:
        """The From address, lower-cased ("" if none)."""
        return parseaddr(str(self.message.get("From", "")))[1].strip().lower()

    @cached_property
    def reply_address(self) -> str:
        """Where an answer goes: Reply-To, else From, else the envelope sender."""
        reply_to = [a for _, a in getaddresses([str(v) for v in self.message.get_all("Reply-To", [])]) if a]
        if reply_to:
            return reply_to[0].strip().lower()
        return self.from_address or (self.mail_from or "").strip().lower()

    @cached_property
    def subject(self) -> str:
        return str(self.message.get("Subject", "") or "")

    def reply(self, body: str, *, subject: str | None = None, kind: str = "reply",
              game_id: int | None = None) -> OutgoingMail:
        """An answer to the sender, threaded under this mail."""
        if subject is None:
            original = self.subject.strip()
            subject = original if original.lower().startswith("re:") else f"Re: {original}".rstrip()
        references = tuple(str(self.message.get("References", "") or "").split())
        return OutgoingMail(
            recipients=(self.reply_address,), subject=subject, body=body, kind=kind,
            in_reply_to=self.message_id, references=references, game_id=game_id,
        )


class ProcessHook(Protocol):
    """Apply one mail inside the caller's transaction and return the mail to send."""

    def __call__(self, session: "Session", inbound: InboundMail, now: datetime) -> Sequence[OutgoingMail]: ...
