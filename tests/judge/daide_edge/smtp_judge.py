"""``judge serve``'s parts in process (judge.daemon.serve.Daemon): its real aiosmtpd listener, the
worker, the outbox written as .eml files, and the DAIDE edge, on free ports; the clock
stands still (``now``) and the test runs the scheduler passes itself."""

from __future__ import annotations

import email
import smtplib
from datetime import datetime
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

from sqlalchemy import select

from judge.commands.daide_ports import configure_ports
from judge.config import DaideSettings, JudgeSettings, OutboundSettings, SchedulerSettings, Settings, SmtpSettings
from judge.edge.scheduler import run_pass
from judge.daemon.serve import Daemon, open_store
from judge.store.models_game import Game
from tests.fixtures.ports import free_port, free_ports_in_a_row
from tests.judge.daide_edge.machines import Bot, launch_bot, wait_until
from tests.judge.commands.harness import START
from tests.judge.storage import make_mail

JUDGE_ADDRESS = "judge@example.org"


class SmtpMachineJudge:
    def __init__(self, directory: Path, ports: int = 1) -> None:
        """``ports``: how many DAIDE ports the range holds (free ones, in a row)."""
        self.now: datetime = START
        self.port = free_port() if ports == 1 else free_ports_in_a_row(ports)
        self.settings = Settings(
            judge=JudgeSettings(address=JUDGE_ADDRESS, domain="example.org", name="Test Judge",
                                data_dir=str(directory)),
            smtp=SmtpSettings(port=free_port()),
            outbound=OutboundSettings(poll_seconds=0.1),
            scheduler=SchedulerSettings(tick_seconds=3600, touched_seconds=3600),  # the test runs the passes
            daide=DaideSettings(host="127.0.0.1", port_range=f"{self.port}-{self.port + ports - 1}",
                                poll_seconds=0.05),
        )
        self.store = open_store(self.settings, initialise_empty=True)
        self.daemon = Daemon(self.settings, self.store, tick=run_pass, clock=lambda: self.now)
        self.daemon.start()
        self.bots: list[Bot] = []

    # -- mail over SMTP
    def send(self, sender: str, body: str) -> str:
        """``body`` from ``sender`` through the daemon's SMTP port; the judge's reply text."""
        raw = make_mail(subject="commands", body=body, sender=sender, to=JUDGE_ADDRESS)
        message_id = email.message_from_bytes(raw, policy=default_policy)["Message-ID"]
        with smtplib.SMTP("127.0.0.1", self.settings.smtp.port, timeout=10) as client:
            client.sendmail(sender, [JUDGE_ADDRESS], raw)
        found: list[EmailMessage] = []
        wait_until(lambda: found.extend(m for m in self.outbox() if m["In-Reply-To"] == message_id) or found,
                   f"the reply to {sender}", 30)
        return found[0].get_body(("plain",)).get_content()

    def outbox(self) -> list[EmailMessage]:
        folder = self.settings.outbox_path / "new"
        return [email.message_from_bytes(path.read_bytes(), policy=default_policy)
                for path in sorted(folder.glob("*.eml"))] if folder.is_dir() else []

    # -- the rest
    def start_bot(self, kind: str = "dumbbot") -> Bot:
        self.bots.append(launch_bot(self.port, kind))
        return self.bots[-1]

    def game(self) -> Game:
        with self.store.sessions() as session:
            game = session.scalars(select(Game)).one()
            session.expunge(game)
            return game

    def scheduler_pass(self) -> None:
        run_pass(self.store, self.settings, self.now)

    def close(self) -> None:
        for bot in self.bots:  # the bots first: they must not see the listener go mid-message
            bot.stop()
        self.daemon.stop()
        self.store.dispose()
        configure_ports(DaideSettings())
