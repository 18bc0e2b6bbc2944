"""A judge on a real SQLite file driven mail by mail: the worker with judge.commands.

    judge = JudgeHarness(tmp_path)
    out = judge.send("anna@example.net", "JOIN g1 secret")   # the mail this one caused
    out.reply.body, out.to("bob@example.net")

Mail goes through the real path: stored inbound row, Worker, process_mail, outbox rows
built by judge.mailio.outgoing; the harness reads the outbox rows back as parsed messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import EmailMessage
from pathlib import Path

from judge.config import JudgeSettings
from judge.store.engine import Store
from judge.store.schema import upgrade
from tests.judge.clocked_judge import ClockedJudge, MailOutcome
from tests.judge.storage import make_mail, migrated_store, outbox_after

JUDGE = JudgeSettings(address="judge@example.org", domain="example.org", name="Test Judge")
START = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)  # a Monday
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")


@dataclass(frozen=True)
class Sent:
    address: str
    subject: str
    body: str
    kind: str
    message: EmailMessage


@dataclass(frozen=True)
class Outcome(MailOutcome[Sent]):
    def to(self, address: str, kind: str | None = None) -> list[Sent]:
        return [m for m in self.mails if m.address == address and (kind is None or m.kind == kind)]


class JudgeHarness(ClockedJudge):
    def __init__(self, directory: Path, now: datetime = START, url: str | None = None) -> None:
        if url is None:
            store = migrated_store(directory)
        else:
            store = Store(url)
            upgrade(store.engine)
        super().__init__(store, JUDGE, now)

    def outbox_since(self, last: int) -> Outcome:
        """The mail queued after outbox row ``last``, one ``Sent`` per recipient."""
        mails = []
        for queued in outbox_after(self.store, last):
            body = queued.message.get_body(("plain",)).get_content()
            mails.extend(Sent(address, str(queued.message["Subject"]), body, queued.kind, queued.message)
                         for address in queued.recipients)
        return Outcome(tuple(mails))

    def send(self, sender: str, body: str, subject: str = "commands") -> Outcome:
        last = self.deliver(make_mail(subject=subject, body=body, sender=sender, to=JUDGE.address), sender)
        return self.outbox_since(last)


def player(index: int) -> str:
    return f"player{index}@example.net"
