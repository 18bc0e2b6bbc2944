"""A mail that kills the worker each time is shunted after ``[worker] max_attempts`` starts,
with a reason for the operator and a notice to its sender, instead of stopping the judge
again after every restart (issue 12.1).  The worker really dies: the processing hook
SIGKILLs its own process, as the out-of-memory killer would."""

from __future__ import annotations

import contextlib
import email
import sqlite3
from datetime import timedelta
from email.policy import default
from pathlib import Path

import pytest

from judge.store.engine import Store
from tests.fixtures.judge_process import run_judge
from tests.judge.test_serve_process import eml_files, send, wait_for
from tests.judge.storage import make_mail

#: The worker a thread of ``judge serve`` unless a test says otherwise.
POISONED = {"JUDGE_WORKER_HANDLER": "tests.judge.handlers:die_on_poison", "JUDGE_WORKER_POLL_SECONDS": "0.2",
            "JUDGE_WORKER_PROCESSES": "0",
            "JUDGE_OUTBOUND_POLL_SECONDS": "0.2", "JUDGE_DAIDE_HOST": ""}


def _read(workdir: Path, query: str) -> list[tuple]:
    """A plain read of the daemon's database (no write lock taken, nothing of the judge's loaded)."""
    with contextlib.closing(sqlite3.connect(workdir / "judge.db", timeout=30)) as connection:
        return connection.execute(query).fetchall()


def inbound_rows(workdir: Path) -> list[tuple[str, str, int]]:
    """(subject, status, attempts) of every stored mail, oldest first."""
    return [(email.message_from_bytes(raw, policy=default)["Subject"], status, attempts)
            for raw, status, attempts in _read(workdir, "SELECT raw, status, attempts FROM inbound_message ORDER BY id")]


def shunt_reasons(workdir: Path) -> list[str]:
    return [reason for (reason,) in _read(workdir, "SELECT traceback FROM shunt ORDER BY id")]


def sent_mail(workdir: Path) -> list[email.message.EmailMessage]:
    return [email.message_from_bytes(p.read_bytes(), policy=default) for p in eml_files(workdir)]


def notice_to(workdir: Path, address: str) -> str:
    [notice] = [m for m in sent_mail(workdir) if m["To"] == address and "could not be processed" in m.get_content()]
    return notice.get_content()


@pytest.mark.slow
def test_a_worker_process_killed_by_a_mail_twice_shunts_it_and_goes_on(tmp_path, judge_runner):
    judge = judge_runner.start(tmp_path, {**POISONED, "JUDGE_WORKER_PROCESSES": "1", "JUDGE_WORKER_MAX_ATTEMPTS": "2"})
    send(judge.smtp_port, make_mail(subject="POISON please", sender="mallory@example.net"), "mallory@example.net")
    # Sent after the first death, so that it is not in the poisoned mail's batch (a mail of
    # a batch that died is counted once more: the test of batches below).
    judge.wait_for_log("exited with -9")
    send(judge.smtp_port, make_mail(subject="next in line", sender="anna@example.net"))
    # The child dies at each of two starts and is started again; the third start shunts.
    wait_for(lambda: [status for _, status, _ in inbound_rows(tmp_path)] == ["shunted", "processed"],
             timeout=30, what="the poisoned mail shunted and the next one processed")
    assert judge.log.count("exited with -9") == 2
    assert inbound_rows(tmp_path) == [("POISON please", "shunted", 3), ("next in line", "processed", 1)]
    [reason] = shunt_reasons(tmp_path)
    assert reason.splitlines()[-1].startswith("UnfinishedProcessing: started 2 times, never finished")
    wait_for(lambda: len(eml_files(tmp_path)) == 2, what="the notice and the reply")
    notice = notice_to(tmp_path, "mallory@example.net")
    assert "the judge stopped each of the 2 times it began to process it" in notice
    assert "Nothing in it was done." in notice
    assert judge.terminate() == 0

    listing = run_judge(["shunt", "list"], tmp_path)
    assert listing.returncode == 0
    assert "from mallory@example.net\tsubject 'POISON please'\tUnfinishedProcessing: started 2 times" in listing.stdout


@pytest.mark.slow
def test_the_judge_killed_by_a_mail_at_each_start_shunts_it_at_the_fourth(tmp_path, judge_runner):
    """The worker a thread of ``judge serve``: the whole daemon dies, and is started again.
    (The mail is stored beforehand: a daemon killed right after its 250 may not get it out.)"""
    from datetime import datetime, timezone

    from judge.store.inbound import store_inbound

    assert run_judge(["db", "upgrade"], tmp_path).returncode == 0
    store = Store(f"sqlite:///{tmp_path / 'judge.db'}")
    store_inbound(store, make_mail(subject="POISON again", sender="mallory@example.net"), mail_from="mallory@example.net",
                  rcpt_to=["judge@localhost"], source="smtp", now=datetime.now(timezone.utc))
    store.dispose()
    for start in range(1, 4):
        judge = judge_runner.start(tmp_path, POISONED, wait=False)
        judge.process.wait(timeout=60)  # killed by the mail it began to process
        assert inbound_rows(tmp_path) == [("POISON again", "received", start)]
    judge = judge_runner.start(tmp_path, POISONED)
    port = judge.smtp_port
    wait_for(lambda: inbound_rows(tmp_path)[0][1] == "shunted", what="the shunt at the fourth start")
    wait_for(lambda: eml_files(tmp_path), what="the notice")
    assert "the judge stopped each of the 3 times" in notice_to(tmp_path, "mallory@example.net")
    send(port, make_mail(subject="still here?", sender="anna@example.net"))
    wait_for(lambda: len(eml_files(tmp_path)) == 2, what="the reply to a mail after the shunt")
    assert judge.terminate() == 0

    # `judge shunt retry` starts it afresh: counted from zero, it kills the judge again.
    assert run_judge(["shunt", "retry", "1"], tmp_path).returncode == 0
    assert inbound_rows(tmp_path)[0] == ("POISON again", "received", 0)


@pytest.mark.postgres
def test_on_postgres_a_start_another_worker_just_counted_is_not_counted_again(postgres_url):
    """The row is unlocked between a worker's count and its claim: a second worker counting
    it then would find it claimed, and a death of the first would count twice."""
    from datetime import datetime, timezone

    from sqlalchemy import text

    from judge.config import JudgeSettings
    from judge.store.inbound import store_inbound
    from judge.store.schema import upgrade
    from judge.daemon.worker import STARTING_SECONDS, Worker
    from tests.judge.handlers import echo

    store = Store(postgres_url)
    upgrade(store.engine)
    now = datetime(2026, 11, 25, 12, 0, tzinfo=timezone.utc)
    try:
        store_inbound(store, make_mail(subject="in hand"), mail_from="a@x.org", rcpt_to=[], source="smtp", now=now)
        dead, other = (Worker(store, JudgeSettings(), echo, clock=lambda: now) for _ in range(2))
        assert dead._count_start() == (1, 1)  # ... and dies before its claim
        assert other.process_pending() == 0  # not counted, not taken: the first worker's start
        with store.engine.begin() as connection:  # STARTING_SECONDS later
            connection.execute(text("UPDATE inbound_message SET started_at = started_at - :age"),
                               {"age": timedelta(seconds=STARTING_SECONDS + 1)})
        assert other.process_pending() == 1
        with store.engine.connect() as connection:
            assert connection.execute(text("SELECT status, attempts FROM inbound_message")).one() == ("processed", 2)
    finally:
        store.dispose()


@pytest.mark.slow
def test_a_batch_killed_by_one_of_its_mails_counts_each_once_and_only_the_killer_is_shunted(tmp_path, judge_runner):
    """The worker process takes the four stored mails as one batch (SQLite): its death
    leaves each counted once.  The mails started before are then taken one at a time, so
    the innocent ones finish at their second start and only the poisoned one is counted
    at each of its deaths, up to ``max_attempts`` (3), and shunted at its fourth start."""
    from datetime import datetime, timezone

    from judge.store.inbound import store_inbound

    assert run_judge(["db", "upgrade"], tmp_path).returncode == 0
    store = Store(f"sqlite:///{tmp_path / 'judge.db'}")
    for subject, sender in (("first", "anna@example.net"), ("POISON in the middle", "mallory@example.net"),
                            ("third", "bert@example.net"), ("fourth", "carl@example.net")):
        store_inbound(store, make_mail(subject=subject, sender=sender), mail_from=sender,
                      rcpt_to=["judge@localhost"], source="smtp", now=datetime.now(timezone.utc))
    store.dispose()
    judge = judge_runner.start(tmp_path, {**POISONED, "JUDGE_WORKER_PROCESSES": "1"})
    wait_for(lambda: [status for _, status, _ in inbound_rows(tmp_path)] == ["processed", "shunted", "processed",
                                                                           "processed"],
             timeout=60, what="the poisoned mail shunted and the others processed")
    assert judge.log.count("exited with -9") == 3
    # A batch stops after BATCH_SECONDS: on a loaded machine "first" may finish alone in a
    # batch before the poisoned one starts (one start); otherwise the death counted it too.
    rows = inbound_rows(tmp_path)
    assert rows[0][:2] == ("first", "processed") and rows[0][2] in (1, 2)
    assert rows[1:] == [("POISON in the middle", "shunted", 4), ("third", "processed", 2), ("fourth", "processed", 2)]
    [reason] = shunt_reasons(tmp_path)
    assert reason.splitlines()[-1].startswith("UnfinishedProcessing: started 3 times, never finished")
    wait_for(lambda: len(eml_files(tmp_path)) == 4, what="the notice and the three replies")
    assert "the judge stopped each of the 3 times" in notice_to(tmp_path, "mallory@example.net")
    assert sorted(m["To"] for m in sent_mail(tmp_path)) == ["anna@example.net", "bert@example.net",
                                                           "carl@example.net", "mallory@example.net"]
    assert judge.terminate() == 0
