"""``judge serve``'s mail parts in process for the attack tests of issue 24 (items 4, 5, 7,
8): the real aiosmtpd listener, the worker running judge.commands, the outbox sender
writing .eml files; the clock stands still (``now``) until the test moves it, and the test
runs the scheduler passes itself.

    judge = SmtpJudge(tmp_path)
    reply = judge.send("anna@example.net", "LIST\\n")            # one mail, its reply
    ids = judge.post_many([(envelope, raw), ...])                 # many, replies not awaited
"""

from __future__ import annotations

import email
import smtplib
import time
from dataclasses import dataclass, replace
from datetime import datetime
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Callable, Sequence

from sqlalchemy import func, select

from judge.config import (DaideSettings, JudgeSettings, MailSettings, OutboundSettings, SchedulerSettings, Settings,
                          SmtpSettings)
from judge.edge.scheduler import run_pass
from judge.daemon.serve import Daemon, open_store
from judge.store.models_mail import PROCESSED, InboundMessage, OutboxMessage, Shunt
from tests.fixtures.ports import free_port
from tests.judge.commands.harness import START
from tests.judge.storage import make_mail

JUDGE_ADDRESS = "judge@example.org"


@dataclass(frozen=True)
class Reply:
    message: EmailMessage
    size: int  # bytes as written by the outbox sender
    seconds: float  # from the SMTP DATA's answer to the reply on disk

    @property
    def body(self) -> str:
        part = self.message.get_body(("plain",))
        assert part is not None
        return str(part.get_content())

    @property
    def to(self) -> str:
        return str(self.message["To"])

    def files(self) -> dict[str, bytes]:
        return {str(p.get_filename()): p.get_payload(decode=True) for p in self.message.walk() if p.get_filename()}


def wait_until(check: Callable[[], object], what: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.02)


class SmtpJudge:
    def __init__(self, directory: Path, judge: JudgeSettings | None = None) -> None:
        self.now: datetime = START
        judge = judge or JudgeSettings(address=JUDGE_ADDRESS, domain="example.org", name="Test Judge")
        self.settings = Settings(
            judge=replace(judge, data_dir=str(directory)),
            smtp=SmtpSettings(port=free_port()),
            outbound=OutboundSettings(poll_seconds=0.05),
            scheduler=SchedulerSettings(tick_seconds=3600),  # the test runs the passes
            daide=DaideSettings(host=""),
            # No DKIM/SPF/DMARC lookups: no DNS answers here (each mail would wait on the
            # resolver); tests/judge/mailauth verifies with a DNS server on loopback.
            mail=MailSettings(verify=False),
        )
        self.store = open_store(self.settings, initialise_empty=True)
        self.daemon = Daemon(self.settings, self.store, tick=run_pass, clock=lambda: self.now)
        self.daemon.start()
        self._seen: set[str] = set()
        self._replies: dict[str, tuple[EmailMessage, int]] = {}
        self.posted = 0

    # -- mail over SMTP
    def post(self, envelope: str, raw: bytes) -> None:
        """``raw`` through the listener with ``envelope`` as MAIL FROM; stored when this returns."""
        with smtplib.SMTP("127.0.0.1", self.settings.smtp.port, timeout=30) as client:
            refused = client.sendmail(envelope, [JUDGE_ADDRESS], raw)
        assert not refused
        self.posted += 1

    def post_many(self, mails: Sequence[tuple[str, bytes]]) -> list[str]:
        """Each (envelope, raw) over one SMTP connection; their Message-IDs."""
        with smtplib.SMTP("127.0.0.1", self.settings.smtp.port, timeout=30) as client:
            for envelope, raw in mails:
                assert not client.sendmail(envelope, [JUDGE_ADDRESS], raw)
        self.posted += len(mails)
        return [message_id(raw) for _, raw in mails]

    def send(self, sender: str, body: str, *, envelope: str | None = None,
             headers: dict[str, str] | None = None) -> Reply:
        """A mail From ``sender`` (envelope ``envelope``, else the same); its reply."""
        raw = make_mail(subject="commands", body=body, sender=sender, to=JUDGE_ADDRESS, extra=headers)
        started = time.monotonic()
        self.post(envelope or sender, raw)
        return self.reply_to(message_id(raw), started)

    def reply_to(self, wanted: str, started: float | None = None, seconds: float = 60.0) -> Reply:
        started = time.monotonic() if started is None else started
        wait_until(lambda: self._read_replies() or wanted in self._replies, f"the reply to {wanted}", seconds)
        message, size = self._replies[wanted]
        return Reply(message, size, time.monotonic() - started)

    def _read_replies(self) -> bool:
        """Read the reply files not read yet into ``_replies`` (by In-Reply-To); False."""
        folder = self.settings.outbox_path / "new"
        for path in sorted(folder.glob("*.eml")) if folder.is_dir() else []:
            if path.name in self._seen:
                continue
            self._seen.add(path.name)
            data = path.read_bytes()
            message = email.message_from_bytes(data, policy=default_policy)
            if message["In-Reply-To"]:
                self._replies[str(message["In-Reply-To"])] = (message, len(data))  # type: ignore[assignment]
        return False

    def sent_files(self) -> list[tuple[EmailMessage, int]]:
        """Every mail the outbox sender wrote, read again."""
        folder = self.settings.outbox_path / "new"
        return [(email.message_from_bytes(p.read_bytes(), policy=default_policy), p.stat().st_size)  # type: ignore[misc]
                for p in sorted(folder.glob("*.eml"))]

    # -- the store
    def all_processed(self) -> bool:
        """Every posted mail stored and processed, none shunted, nothing left to send."""
        with self.store.unit_of_work() as session:
            stored = session.scalar(select(func.count()).select_from(InboundMessage))
            done = session.scalar(select(func.count()).select_from(InboundMessage)
                                  .where(InboundMessage.status == PROCESSED))
            shunted = session.scalar(select(func.count()).select_from(Shunt))
            queued = session.scalar(select(func.count()).select_from(OutboxMessage)
                                    .where(OutboxMessage.status != "sent"))
        assert shunted == 0
        return stored == done == self.posted and queued == 0

    def scheduler_pass(self) -> None:
        run_pass(self.store, self.settings, self.now)
        self.daemon.outbox_wake.set()

    def close(self) -> None:
        self.daemon.stop()
        self.store.dispose()


def message_id(raw: bytes) -> str:
    return str(email.message_from_bytes(raw, policy=default_policy)["Message-ID"])
