"""``judge serve`` gives back the memory of a password check (judge/daemon/allocator.py).

Each scrypt (a new password hashed, a password checked for the first time) takes a 16 MiB
block.  Without a fixed mmap threshold, glibc serves every one after the first from the
worker thread's heap and keeps it: the daemon grew by 16-17 MiB with the second, and by
about 64 MiB over the intake benchmark's traffic (docs/benchmarks.md, "Memory of judge
serve").  Here a real daemon hashes several passwords (CREATE) after a first mail has
warmed it up, and its resident set must stay where it was.
"""

from __future__ import annotations

import re
import smtplib
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from tests.fixtures.judge_process import JudgeProcess

DAEMON = {"JUDGE_WORKER_POLL_SECONDS": "0.2", "JUDGE_DAIDE_HOST": ""}
#: What the resident set may grow by over the later CREATEs: a 16 MiB block kept is a failure.
GROWTH_LIMIT_MIB = 8
LATER_CREATES = 3


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    [line] = [row for row in status.splitlines() if row.startswith("VmRSS:")]
    return int(line.split()[1]) / 1024


def _create_and_wait(judge: JudgeProcess, number: int, database: Path) -> None:
    """Mail ``CREATE`` (a new password: one scrypt) and wait until its reply is queued."""
    sender = f"master{number}@example.net"
    raw = (f"From: {sender}\r\nTo: judge@localhost\r\nSubject: create\r\nMessage-ID: <create{number}@example.net>\r\n"
           f"\r\nCREATE memory{number} masterpw{number}\r\n")
    with smtplib.SMTP("127.0.0.1", judge.smtp_port, timeout=30) as smtp:
        smtp.ehlo()
        smtp.mail(sender)
        smtp.rcpt("judge@localhost")
        code, text = smtp.data(raw.encode("ascii"))
    assert code == 250, text
    stored = re.search(rb"stored as #(\d+)", text)
    assert stored is not None, text
    deadline = time.monotonic() + 60
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) as db:
        while not db.execute("SELECT count(*) FROM outbox WHERE inbound_id = ?", (int(stored.group(1)),)).fetchone()[0]:
            assert time.monotonic() < deadline, judge.log
            time.sleep(0.05)


def test_passwords_hashed_after_the_first_leave_the_resident_set_as_it_was(tmp_path, judge_runner):
    judge = judge_runner.start(tmp_path, DAEMON)
    database = tmp_path / "judge.db"
    _create_and_wait(judge, 0, database)  # imports and the first scrypt: what any first mail costs
    warm = _rss_mib(judge.process.pid)
    for number in range(1, LATER_CREATES + 1):
        _create_and_wait(judge, number, database)
    after = _rss_mib(judge.process.pid)
    assert judge.terminate() == 0
    print(f"\njudge serve VmRSS after one CREATE {warm:.1f} MiB, after {LATER_CREATES} more {after:.1f} MiB")
    assert after - warm < GROWTH_LIMIT_MIB
