"""The daemon in-process with the real commands, mail in over real SMTP, mail out as
files: a game started by seven JOINs (and whoever else the test adds first)."""

from __future__ import annotations

import smtplib
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Iterator, Mapping

from judge.config import load_settings
from judge.daemon.serve import Daemon, open_store
from tests.fixtures.ports import free_port

JUDGE = "judge@example.org"


def running_daemon(tmp_path: Path, extra: Mapping[str, str] = {}) -> Iterator[Daemon]:
    settings = load_settings(None, environ={
        "JUDGE_JUDGE_DATA_DIR": str(tmp_path), "JUDGE_JUDGE_ADDRESS": JUDGE, "JUDGE_JUDGE_DOMAIN": "example.org",
        "JUDGE_SMTP_PORT": str(free_port()), "JUDGE_WORKER_POLL_SECONDS": "0.1",
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.1", "JUDGE_SCHEDULER_TICK_SECONDS": "3600",
        "JUDGE_SCHEDULER_TOUCHED_SECONDS": "3600", "JUDGE_DAIDE_HOST": "",
        **extra})
    store = open_store(settings, initialise_empty=True)
    daemon = Daemon(settings, store)
    daemon.start()
    try:
        yield daemon
    finally:
        daemon.stop()
        store.dispose()


def send(daemon: Daemon, sender: str, body: str, subject: str = "diplomacy") -> None:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, JUDGE, subject
    message["Message-ID"] = make_msgid(domain="example.net")
    message.set_content(body)
    with smtplib.SMTP("127.0.0.1", daemon.settings.smtp.port, timeout=10) as client:
        client.send_message(message, from_addr=sender, to_addrs=[JUDGE])


def files(daemon: Daemon, at_least: int, timeout: float = 30.0) -> list[bytes]:
    """Every mail written so far, in order, once there are ``at_least``."""
    folder = daemon.settings.outbox_path / "new"
    deadline = time.monotonic() + timeout
    while True:
        found = sorted(folder.glob("*.eml")) if folder.is_dir() else []
        if len(found) >= at_least:
            return [p.read_bytes() for p in found]
        assert time.monotonic() < deadline, f"{len(found)} of {at_least} mails written"
        time.sleep(0.05)


def header(raw: bytes, name: str) -> str | None:
    head = raw.replace(b"\r\n", b"\n").split(b"\n\n")[0].decode()
    unfolded = head.replace("\n ", " ").replace("\n\t", " ")
    return next((line.split(":", 1)[1].strip() for line in unfolded.splitlines()
                 if line.lower().startswith(name.lower() + ":")), None)


def start_game(daemon: Daemon, game: str, before: int = 0, rules: str = "") -> tuple[list[bytes], dict[str, str]]:
    """CREATE ``game`` and seven JOINs (``before``: mails the test sent first); the mails
    written by then, and each player's power by address (``p<i>@example.net``, password
    ``secret<i>``)."""
    send(daemon, "gm@example.net", f"CREATE {game} masterpw\n{rules}FORM\n")
    files(daemon, before + 1)
    for i in range(7):
        send(daemon, f"p{i}@example.net", f"JOIN {game} secret{i}\n")
    started = files(daemon, before + 1 + 7 + 8)
    power_of = {}
    for raw in started:
        subject = header(raw, "Subject") or ""
        if "game started, you play" in subject:
            power_of[header(raw, "To") or ""] = subject.split("game started, you play ")[1].strip()
    assert len(power_of) == 7
    return started, power_of
