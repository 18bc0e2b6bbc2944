"""Hostile mail, the goals of issue 12 as figures (the corpus: tests/reliability/hostile_mail.py).

* At least 500 distinct hostile mails (every mail-borne case of items 1-7 and fuzzed MIME)
  go over SMTP into a real ``judge serve``; each one is answered, or refused with a reason
  (an SMTP refusal with its text; mail a robot sent, or with no address to answer,
  processed and its reason recorded); none is shunted without a reason an operator can
  read, and ``judge shunt list`` works afterwards.  Mails lost: 0 (every 250 has its row,
  and every row was processed).
* The mails SMTP refuses (lines over 1,000 bytes) can still come in over IMAP, which has
  no such limit: the real worker answers each of those too, byte for byte as made.
* Peak RSS under 300 MB while the worst mails are processed, measured as VmHWM of a
  child process that stores and processes them with the real worker.
* Replies duplicated after a SIGKILL at any point of sending: at most 1 per kill, over 60
  kill points, nothing lost: tests/reliability/test_exactly_once_replies.py.
* A mail that kills the worker at each start is shunted after ``[worker] max_attempts``
  (not retried forever): tests/judge/test_unfinished_mail.py.
"""

from __future__ import annotations

import contextlib
import json
import re
import smtplib
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import pytest

from tests.fixtures.judge_process import REPO_ROOT, run_judge
from tests.reliability.hostile_mail import Hostile, hostile_corpus, setup_mails

pytestmark = pytest.mark.slow

MIN_DISTINCT = 500
RSS_LIMIT_MB = 300
SMTP_LINE_LIMIT = 1000  # RFC 5321 4.5.3.1.6, as aiosmtpd enforces it (CRLF included: 1001)
DAEMON = {"JUDGE_WORKER_POLL_SECONDS": "0.2", "JUDGE_OUTBOUND_POLL_SECONDS": "0.5", "JUDGE_DAIDE_HOST": ""}


@dataclass(frozen=True)
class Delivery:
    mail: Hostile
    inbound_id: int | None  # the row the 250 named; None when refused
    refusal: str  # the SMTP refusal's code and text ("" when accepted)


def deliver_all(port: int, mails: list[Hostile]) -> list[Delivery]:
    """Each mail over one SMTP connection (a new one after the server hangs up)."""
    deliveries = []
    client: smtplib.SMTP | None = None
    try:
        for mail in mails:
            if client is None:
                client = smtplib.SMTP("127.0.0.1", port, timeout=60)
                client.ehlo()
            try:
                client.mail(mail.mail_from)
                client.rcpt("judge@localhost")
                code, text = client.data(mail.raw)
            except smtplib.SMTPResponseException as refused:
                code, text = refused.smtp_code, refused.smtp_error
                with contextlib.suppress(smtplib.SMTPException, OSError):
                    client.rset()
            except smtplib.SMTPServerDisconnected as gone:
                code, text, client = 421, str(gone).encode(), None
            words = text.decode("utf-8", "replace")
            stored = re.search(r"stored as #(\d+)", words)
            deliveries.append(Delivery(mail, int(stored.group(1)) if code == 250 and stored else None,
                                       "" if code == 250 else f"{code} {words}"))
    finally:
        if client is not None:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                client.quit()
    return deliveries


def read(database: Path, query: str) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(database, timeout=30)) as connection:
        return connection.execute(query).fetchall()


def wait_until_all_handled(database: Path, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while read(database, "SELECT count(*) FROM inbound_message WHERE status = 'received'")[0][0]:
        assert time.monotonic() < deadline, "mail still waiting for the worker"
        time.sleep(0.2)


def has_long_line(raw: bytes) -> bool:
    """Whether SMTP refuses ``raw`` for a line too long (a line ends only with CR LF there)."""
    return any(len(line) + 2 > SMTP_LINE_LIMIT + 1 for line in raw.split(b"\r\n"))


def check_replies(database: Path) -> None:
    """Every queued mail: one deliverable recipient, headers of printable ASCII with no
    recipient smuggled in (Bcc, Cc), and no password of the corpus in it (items 3, 6)."""
    from judge.mailio.inbound import usable_address

    for recipients, raw in read(database, "SELECT recipients, raw FROM outbox"):
        [recipient] = json.loads(recipients)
        assert usable_address(recipient) == recipient
        head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
        assert head.isascii() and not re.search(rb"(?im)^(bcc|cc|resent-[a-z]+):", head), head
        assert b"s3cret" not in raw


def test_hostile_mail_over_smtp_is_answered_or_refused_with_a_reason(tmp_path, judge_runner):
    corpus = hostile_corpus()
    assert len(corpus) >= MIN_DISTINCT and len({m.raw for m in corpus}) == len(corpus)
    judge = judge_runner.start(tmp_path, DAEMON)
    setup = deliver_all(judge.smtp_port, setup_mails())
    assert all(d.inbound_id for d in setup)
    deliveries = deliver_all(judge.smtp_port, corpus)
    database = tmp_path / "judge.db"
    wait_until_all_handled(database)
    assert judge.terminate() == 0

    refused = [d for d in deliveries if d.inbound_id is None]
    accepted = [d for d in deliveries if d.inbound_id is not None]
    # Refused only with a 5xx and its reason, and only for what SMTP itself forbids.
    for delivery in refused:
        assert re.match(r"5\d\d .*\S", delivery.refusal), (delivery.mail.name, delivery.refusal)
        assert has_long_line(delivery.mail.raw), (delivery.mail.name, delivery.refusal)
    # Mails lost: 0.  Every 250 named a row of its own, and every row was processed or shunted.
    rows = {row_id: (status, loop_reason) for row_id, status, loop_reason in
            read(database, "SELECT id, status, loop_reason FROM inbound_message")}
    assert len({d.inbound_id for d in accepted}) == len(accepted)
    assert all(d.inbound_id in rows for d in accepted)
    answered = {row_id for (row_id,) in read(database, "SELECT DISTINCT inbound_id FROM outbox WHERE inbound_id IS NOT NULL")}
    shunts = {row_id: reason for row_id, reason in read(database, "SELECT inbound_id, traceback FROM shunt")}
    unanswered = []
    for delivery in accepted:
        status, loop_reason = rows[delivery.inbound_id]
        assert status in ("processed", "shunted"), (delivery.mail.name, status)
        if status == "shunted":  # told in words an operator reads, never silently
            assert shunts[delivery.inbound_id].strip().splitlines()[-1].strip(), delivery.mail.name
        if delivery.inbound_id not in answered and not loop_reason:
            unanswered.append(delivery.mail.name)
    assert unanswered == [], "neither answered nor a reason recorded"
    assert [d.mail.name for d in accepted if rows[d.inbound_id][0] == "shunted"] == []  # none found broken
    check_replies(database)

    listing = run_judge(["shunt", "list"], tmp_path)
    assert listing.returncode == 0 and "Traceback" not in listing.stderr
    print(f"\nhostile mails: {len(deliveries)} distinct; accepted {len(accepted)}, answered "
          f"{sum(d.inbound_id in answered for d in accepted)}, not answered with a reason "
          f"{sum(d.inbound_id not in answered for d in accepted)}, refused by SMTP {len(refused)}, "
          f"shunted {len(shunts)}, lost 0")


def test_what_smtp_refuses_is_answered_when_it_comes_by_imap(tmp_path):
    """IMAP has no line limit: each hostile mail SMTP refuses (a line over 1,000 bytes) can
    come in that way.  Stored as the IMAP poller stores it and processed by the real worker,
    each is answered or has its reason recorded, and none is shunted."""
    from judge.commands import process_mail
    from judge.config import JudgeSettings
    from judge.store.inbound import store_inbound
    from judge.daemon.worker import Worker
    from tests.judge.storage import migrated_store

    corpus = [mail for mail in hostile_corpus() if has_long_line(mail.raw)]
    assert len(corpus) >= 50
    store = migrated_store(tmp_path)
    now = datetime(2026, 11, 25, 12, 0, tzinfo=timezone.utc)
    try:
        for mail in setup_mails() + corpus:
            store_inbound(store, mail.raw, mail_from=None, rcpt_to=[], source="imap", now=now)
        worker = Worker(store, JudgeSettings(data_dir=str(tmp_path)), process_mail, clock=lambda: now)
        assert worker.process_pending() == len(setup_mails()) + len(corpus)
        database = tmp_path / "judge.db"
        assert read(database, "SELECT inbound_id, traceback FROM shunt") == []
        unanswered = read(database, "SELECT id FROM inbound_message WHERE status != 'processed' OR "
                                    "(loop_reason IS NULL AND id NOT IN (SELECT inbound_id FROM outbox))")
        assert unanswered == []
    finally:
        store.dispose()


#: A child process: store the worst mails one by one, process each with the real worker,
#: and print the peak RSS (VmHWM) after each, in KiB.
_RSS_CHILD = r"""
import sys
from datetime import datetime, timezone
from judge.commands import process_mail
from judge.config import JudgeSettings
from judge.store.inbound import store_inbound
from judge.daemon.worker import Worker
from tests.judge.storage import migrated_store
from tests.reliability.test_hostile_mail import worst_mails
from pathlib import Path

def peak_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

store = migrated_store(Path(sys.argv[1]))
now = datetime(2026, 11, 25, 12, 0, tzinfo=timezone.utc)
worker = Worker(store, JudgeSettings(data_dir=sys.argv[1]), process_mail, clock=lambda: now)
print("start", peak_kib(), flush=True)
for name, raw in worst_mails():
    store_inbound(store, raw, mail_from="big@example.net", rcpt_to=[], source="smtp", now=now)
    del raw
    assert worker.process_next()
    print(name, peak_kib(), flush=True)
"""


WORST = ("HELP x 2 million", "orders x 870,000", "10 MB base64 text", "260,000 parts", "11,000 headers",
         "MIME 20,000 deep")


def worst_mails() -> Iterator[tuple[str, bytes]]:
    """The heaviest mails SMTP lets in (up to its 10 MB limit), by what they make the judge
    do; built one at a time, so the child holds one of them at most."""
    from tests.reliability.hostile_mail import deep, plain, raw_mail

    size = 10 * 1024 * 1024 - 64 * 1024
    yield WORST[0], plain("big@example.net", "help", "HELP\n" * (size // 5), "w-help")
    yield WORST[1], plain("big@example.net", "orders", "SIGNON france@hg1 pw\n" + "A PAR - BUR\n" * (size // 12),
                          "w-orders")
    text = "\r\n".join("TElTVApMSVNUCkxJU1QKTElTVApMSVNUCkxJU1QKTElTVApMSVNUCkxJU1QKTElTVAo="
                        for _ in range(size // 70)).encode()
    yield WORST[2], raw_mail(["From: big@example.net", "To: judge@localhost", "Subject: b64", "MIME-Version: 1.0",
                              "Content-Type: text/plain", "Content-Transfer-Encoding: base64"], text, "w-b64")
    parts = b"".join(b"--p\r\nContent-Type: text/plain\r\n\r\nLIST\r\n" for _ in range(size // 40)) + b"--p--\r\n"
    yield WORST[3], raw_mail(["From: big@example.net", "To: judge@localhost", "Subject: parts", "MIME-Version: 1.0",
                              'Content-Type: multipart/mixed; boundary="p"'], parts, "w-parts")
    headers = [f"X-Junk-{i}: " + "j" * 900 for i in range(size // 920)]
    yield WORST[4], raw_mail(["From: big@example.net", "To: judge@localhost", "Subject: headers", *headers],
                             b"LIST\r\n", "w-headers")
    yield WORST[5], deep(20_000, "w-deep")


def test_peak_memory_while_the_worst_mails_are_processed(tmp_path):
    done = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(tmp_path)], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    peaks = [(line.rsplit(" ", 1)[0], int(line.rsplit(" ", 1)[1]) / 1024) for line in done.stdout.splitlines()]
    print("\npeak RSS (VmHWM) after each mail, MB: " + ", ".join(f"{name} {mb:.0f}" for name, mb in peaks))
    assert [name for name, _ in peaks] == ["start", *WORST]
    assert max(mb for _, mb in peaks) < RSS_LIMIT_MB
