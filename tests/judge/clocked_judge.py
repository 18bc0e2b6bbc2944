"""The part every mail-driven judge harness shares: a store, the real worker running
judge.commands at a clock the test moves, and the outbox position before each mail."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Generic, Protocol, TypeVar

from judge.config import JudgeSettings, Settings
from judge.daemon.hooks import after_commit_hook
from judge.commands import process_mail
from judge.store.engine import Store
from judge.store.inbound import store_inbound
from judge.daemon.worker import Worker
from judge.mailio.inbound import ProcessHook
from tests.judge.storage import newest_outbox_id


class _Queued(Protocol):
    @property
    def kind(self) -> str: ...


SentT = TypeVar("SentT", bound=_Queued)


@dataclass(frozen=True)
class MailOutcome(Generic[SentT]):
    """The mail one step queued; each harness has its own ``Sent`` shape (with a ``kind``)."""

    mails: tuple[SentT, ...]

    @property
    def reply(self) -> SentT:
        replies = [m for m in self.mails if m.kind == "reply"]
        assert len(replies) == 1, f"expected one reply, got {[m.kind for m in self.mails]}"
        return replies[0]

    def of_kind(self, kind: str) -> list[SentT]:
        return [m for m in self.mails if m.kind == kind]


class ClockedJudge:
    def __init__(self, store: Store, settings: JudgeSettings, now: datetime,
                 hook: ProcessHook = process_mail) -> None:
        self.store = store
        self.settings = settings
        self.now = now
        # As judge serve wires it: a phase a mail made ready is processed right after the mail.
        self.worker = Worker(self.store, settings, hook, clock=lambda: self.now,
                             after_commit=after_commit_hook(Settings(judge=settings), self.store))

    def close(self) -> None:
        self.store.dispose()

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    def session(self):
        return self.store.unit_of_work()

    def last_outbox_id(self) -> int:
        return newest_outbox_id(self.store)

    def deliver(self, raw: bytes, sender: str) -> int:
        """``raw`` received over SMTP from ``sender`` and processed by the worker; returns
        the last outbox id from before it (what it queued comes after)."""
        last = self.last_outbox_id()
        store_inbound(self.store, raw, mail_from=sender, rcpt_to=[self.settings.address], source="smtp", now=self.now)
        assert self.worker.process_pending() == 1
        return last
