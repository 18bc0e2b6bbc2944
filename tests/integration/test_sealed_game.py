"""A seven-power sealed game (RULE SEALED) over real SMTP through `judge serve`, with seven
real GnuPG keys, audited afterwards with `judge audit` on the captured broadcasts.

Every player registers a key (SET KEY), signs an orders file with gpg and COMMITs the
detached signature as an attachment; the judge publishes all commitments in one signed
broadcast; every player REVEALs.  Spring 1901: England's revealed file differs by one
character from what it signed, so its units hold, and the phase is processed when the
reveal window closes (the test moves the daemon's clock).  Fall 1901: every reveal
verifies and the phase is processed on the last one.  The master's copies of the list
mail plus a GET KEY reply, saved as an mbox, pass `judge audit`; with one byte of one
result changed the audit fails.
"""

from __future__ import annotations

import mailbox
import smtplib
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from judge.daemon.clockfile import set_clock
from judge.crypto.gpg import agent_pids
from tests.fixtures.gpg import remove_home, short_home
from tests.fixtures.judge_process import judge_environment
from tests.judge.sealed.orders import FALL, SPRING, orders_file

pytestmark = pytest.mark.slow

START = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
JUDGE = "judge@example.org"
MASTER = "gm@example.net"


class Table:
    def __init__(self, workdir: Path, judge, sink, players) -> None:
        self.workdir, self.judge, self.sink = workdir, judge, sink
        self.clock = workdir / "clock"
        self.keys = {}  # power -> PlayerKey
        self.password = {}
        self.players = players

    def send(self, sender: str, body: str, attachments=(), subject: str | None = None) -> EmailMessage:
        message = EmailMessage()
        message["From"] = sender
        message["To"] = JUDGE
        message["Subject"] = subject or "commands"
        message["Message-ID"] = make_msgid(domain="example.net")
        message.set_content(body)
        for filename, content_type, data in attachments:
            maintype, subtype = content_type.split("/")
            message.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
        with smtplib.SMTP("127.0.0.1", self.judge.smtp_port, timeout=10) as client:
            client.send_message(message, from_addr=sender, to_addrs=[JUDGE])
        return message

    def parsed(self) -> list[tuple[tuple[str, ...], EmailMessage, bytes]]:
        return [(sunk.rcpt_tos, message, sunk.raw) for sunk, message in self.sink.parsed()]

    def wait(self, predicate, count: int = 1, timeout: float = 30.0):
        deadline = time.monotonic() + timeout
        while True:
            hits = [item for item in self.parsed() if predicate(item)]
            if len(hits) >= count:
                return hits
            if time.monotonic() > deadline:
                subjects = sorted({str(m["Subject"]) for _, m, _ in self.parsed()})
                raise AssertionError(f"expected {count} mail(s); subjects so far: {subjects}\n{self.judge.log[-3000:]}")
            time.sleep(0.03)

    def command(self, sender: str, body: str, attachments=()) -> str:
        sent = self.send(sender, body, attachments)
        [(_, reply, _)] = self.wait(lambda item: item[1]["In-Reply-To"] == sent["Message-ID"])
        return reply.get_body(("plain",)).get_content()

    def signon(self, power: str) -> str:
        return f"SIGNON {power.lower()}@sg {self.password[power]}\n"

    def commit(self, power: str, data: bytes) -> str:
        key = self.keys[power]
        with key.keyring() as ring:
            signature = ring.sign_detached(data, key.fingerprint)
        return self.command(key.email, self.signon(power) + "COMMIT\n",
                            [("orders.txt.asc", "application/pgp-signature", signature)])

    def reveal(self, power: str, data: bytes) -> str:
        return self.command(self.keys[power].email, self.signon(power) + "REVEAL\n",
                            [("orders.txt", "text/plain", data)])

    def subject_mails(self, part: str) -> list[tuple[tuple[str, ...], EmailMessage, bytes]]:
        return [item for item in self.parsed() if part in str(item[1]["Subject"])]


@pytest.fixture
def table(tmp_path, judge_runner, smtp_sink, seven_players):
    set_clock(tmp_path / "clock", START)
    home = short_home("ji")
    env = {
        "JUDGE_JUDGE_ADDRESS": JUDGE, "JUDGE_JUDGE_DOMAIN": "example.org", "JUDGE_JUDGE_GNUPG_HOME": str(home),
        "JUDGE_OUTBOUND_RELAY_HOST": smtp_sink.host, "JUDGE_OUTBOUND_RELAY_PORT": str(smtp_sink.port),
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.05", "JUDGE_WORKER_POLL_SECONDS": "0.05",
        "JUDGE_SCHEDULER_TICK_SECONDS": "0.2",
    }
    judge = judge_runner.start(tmp_path, env, args=["--clock-file", str(tmp_path / "clock")])
    try:
        yield Table(tmp_path, judge, smtp_sink, seven_players)
        assert judge.terminate() == 0, judge.log
        assert agent_pids(home) == [], "judge serve left its gpg-agent running"
    finally:
        remove_home(home)


def audit(path: Path, workdir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge.cli", "audit", str(path)], cwd=workdir,
                          env=judge_environment({}), capture_output=True, text=True, timeout=120)


def test_a_sealed_game_over_smtp_audited(table, tmp_path):
    assert "judge key" in table.judge.wait_for_log("judge key")
    reply = table.command(MASTER, "CREATE sg masterpw\nRULE SEALED\nTIMING MOVE 2D REVEAL 1D\nFORM\n")
    assert "ERROR" not in reply, reply
    for index, player in enumerate(table.players):
        reply = table.command(player.email, "SET KEY\n" + player.public_key)
        assert player.fingerprint[:4] in reply and "ERROR" not in reply, reply
    for index, player in enumerate(table.players):
        table.send(player.email, f"JOIN sg pw{index}\n")
    starts = table.wait(lambda item: "game started, you play" in str(item[1]["Subject"]), 7)
    by_email = {p.email: (i, p) for i, p in enumerate(table.players)}
    for rcpts, message, _ in starts:
        power = str(message["Subject"]).rsplit(" ", 1)[1]
        index, player = by_email[rcpts[0]]
        table.keys[power], table.password[power] = player, f"pw{index}"
    assert sorted(table.keys) == sorted(SPRING)

    # S1901M: seven commitments, published once, all at the same time.
    for number, power in enumerate(sorted(SPRING)):
        reply = table.commit(power, orders_file(power, "S1901M", SPRING[power]))
        assert "recorded" in reply and "ERROR" not in reply, reply
        if number < 6:
            assert not table.subject_mails("commitments")
    published = table.wait(lambda item: "S1901M: commitments" in str(item[1]["Subject"]))
    assert "sg-S1901M-FRANCE.asc" in published[0][2].decode("ascii", "replace")
    # Reveals: England's file has one character changed; the others verify.
    for power in sorted(SPRING):
        data = orders_file(power, "S1901M", SPRING[power])
        if power == "ENGLAND":
            data = data.replace(b"NTH", b"NTB")
        reply = table.reveal(power, data)
        assert ("do NOT match" in reply) == (power == "ENGLAND"), reply
    assert not table.subject_mails("S1901M results")  # England may still send the right file
    set_clock(table.clock, START + timedelta(days=4))  # past the reveal deadline
    [(_, spring, _)] = table.wait(lambda item: "S1901M results" in str(item[1]["Subject"]) and MASTER in item[0])
    spring_text = spring.get_body(("plain",)).get_content()
    assert "ENGLAND    bad reveal" in spring_text

    # F1901M: everything verifies; the last reveal processes the phase at once.
    for power in sorted(FALL):
        assert "recorded" in table.commit(power, orders_file(power, "F1901M", FALL[power]))
    table.wait(lambda item: "F1901M: commitments" in str(item[1]["Subject"]))
    powers = sorted(FALL)
    for power in powers[:-1]:
        assert "verified" in table.reveal(power, orders_file(power, "F1901M", FALL[power]))
    table.send(table.keys[powers[-1]].email, table.signon(powers[-1]) + "REVEAL\n",
               [("orders.txt", "text/plain", orders_file(powers[-1], "F1901M", FALL[powers[-1]]))])
    table.wait(lambda item: "F1901M results" in str(item[1]["Subject"]) and MASTER in item[0])

    # The archive a player keeps: the master's copies of the list mail and a GET KEY reply.
    assert "BEGIN PGP PUBLIC KEY BLOCK" in table.command(MASTER, "GET KEY\n")
    path = tmp_path / "sg.mbox"
    box = mailbox.mbox(str(path))
    for rcpts, _, raw in table.parsed():
        if MASTER in rcpts:
            box.add(raw)
    box.flush()
    box.close()
    passed = audit(path, tmp_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "audit PASSED" in passed.stdout and "2 phase(s) re-adjudicated" in passed.stdout
    assert "sealed: 1 bad reveal, 6 verified" in passed.stdout

    # One byte of one result changed in the saved archive: the audit fails.
    data = path.read_bytes()
    index = data.index(b"S1901M results")
    index = data.index(b"moves", index)
    tampered = tmp_path / "tampered.mbox"
    tampered.write_bytes(data[:index] + b"n" + data[index + 1:])
    failed = audit(tampered, tmp_path)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "DISCREPANCY" in failed.stdout and "audit FAILED" in failed.stdout
