"""``judge serve`` with ``[worker] processes``: the worker runs in a child process, which
stops with the daemon (SIGTERM: after the message in hand; SIGKILL: at once) and is
started again if it dies on its own."""

from __future__ import annotations

import email
import os
import re
import signal
import threading
import time
from datetime import datetime
from email.policy import default
from pathlib import Path
from typing import Sequence

from sqlalchemy.orm import Session

from judge.mailio.outgoing import OutgoingMail
from judge.store.engine import Store
from judge.mailio.inbound import InboundMail
from tests.judge.storage import make_mail
from tests.judge.test_serve_process import db_rows, eml_files, send, wait_for

PID_ECHO = {"JUDGE_WORKER_HANDLER": "tests.judge.test_worker_processes:reply_with_pid",
            "JUDGE_WORKER_POLL_SECONDS": "5", "JUDGE_OUTBOUND_POLL_SECONDS": "5"}


def reply_with_pid(session: Session, inbound: InboundMail, now: datetime) -> Sequence[OutgoingMail]:
    """The processing hook of these tests: says which process processed the mail."""
    return [inbound.reply(f"#{inbound.inbound_id} processed by pid {os.getpid()}\n")]


def reply_pids(workdir: Path) -> list[int]:
    bodies = [email.message_from_bytes(p.read_bytes(), policy=default).get_content() for p in eml_files(workdir)]
    return sorted(int(re.search(r"processed by pid (\d+)", body).group(1)) for body in bodies)


def child_pids(log: str) -> list[int]:
    return [int(pid) for pid in re.findall(r"worker process (\d+) started", log)]


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


def test_one_worker_process_processes_the_mail_and_stops_with_sigterm(tmp_path, judge_runner):
    judge = judge_runner.start(tmp_path, {**PID_ECHO, "JUDGE_WORKER_PROCESSES": "1",
                                          "JUDGE_WORKER_POLL_SECONDS": "120", "JUDGE_OUTBOUND_POLL_SECONDS": "120"})
    judge.wait_for_log("worker process")
    [child] = child_pids(judge.log)
    assert child != judge.process.pid
    started = time.monotonic()
    send(judge.smtp_port, make_mail(subject="first"))
    # Poll intervals are 120 s: a reply well within that shows the wake-ups cross the
    # processes (the bound is loose because a loaded 2-core machine can take seconds).
    wait_for(lambda: eml_files(tmp_path), timeout=60, what="the reply, woken rather than polled")
    assert time.monotonic() - started < 60
    assert reply_pids(tmp_path) == [child]
    assert judge.terminate() == 0
    assert gone(child)
    assert "worker process %d stopped" % child in judge.log
    assert db_rows(tmp_path) == ([(1, "processed")], [(1, "sent")])


def test_sigterm_lets_the_worker_process_finish_the_message_in_hand(tmp_path, judge_runner):
    judge = judge_runner.start(tmp_path, {**PID_ECHO, "JUDGE_WORKER_PROCESSES": "1",
                                          "JUDGE_WORKER_PAUSE_BEFORE_COMMIT_SECONDS": "1.5"})
    send(judge.smtp_port, make_mail(subject="in hand"))
    judge.wait_for_log("pausing")
    [child] = child_pids(judge.log)
    started = time.monotonic()
    assert judge.terminate() == 0
    assert time.monotonic() - started >= 1.0  # it waited for the child's commit
    assert gone(child)
    inbound, outbox = db_rows(tmp_path)
    assert inbound == [(1, "processed")] and [row[0] for row in outbox] == [1]


def test_a_worker_process_still_busy_after_stop_seconds_is_killed_and_its_mail_done_after_the_restart(
        tmp_path, judge_runner):
    """``judge serve`` stops in bounded time: a child that has not finished its mail
    ``[worker] stop_seconds`` after it was told to stop is killed; the mail rolls back."""
    stuck = {**PID_ECHO, "JUDGE_WORKER_PROCESSES": "1", "JUDGE_WORKER_PAUSE_BEFORE_COMMIT_SECONDS": "300",
             "JUDGE_WORKER_STOP_SECONDS": "1"}
    judge = judge_runner.start(tmp_path, stuck)
    send(judge.smtp_port, make_mail(subject="in hand"))
    judge.wait_for_log("pausing")
    [child] = child_pids(judge.log)
    started = time.monotonic()
    assert judge.terminate() == 0
    assert time.monotonic() - started < 25  # not the child's 300 s pause
    assert gone(child)
    assert re.search(r"worker process %d still busy 1 s after it was told to stop: killed" % child, judge.log)
    assert db_rows(tmp_path) == ([(1, "received")], [])  # rolled back, not lost
    again = judge_runner.start(tmp_path, {**PID_ECHO, "JUDGE_WORKER_PROCESSES": "1"})
    wait_for(lambda: db_rows(tmp_path)[0] == [(1, "processed")], timeout=60, what="the mail done after the restart")
    assert again.terminate() == 0


def test_no_worker_process_with_zero(tmp_path, judge_runner):
    judge = judge_runner.start(tmp_path, {**PID_ECHO, "JUDGE_WORKER_PROCESSES": "0"})
    send(judge.smtp_port, make_mail(subject="first"))
    wait_for(lambda: eml_files(tmp_path), what="the reply")
    assert reply_pids(tmp_path) == [judge.process.pid]
    assert judge.terminate() == 0
    assert child_pids(judge.log) == []


def test_sigkill_of_the_daemon_takes_the_worker_process_with_it(tmp_path, judge_runner):
    judge = judge_runner.start(tmp_path, {**PID_ECHO, "JUDGE_WORKER_PROCESSES": "1",
                                          "JUDGE_WORKER_PAUSE_BEFORE_COMMIT_SECONDS": "60"})
    send(judge.smtp_port, make_mail(subject="in hand"))
    judge.wait_for_log("pausing")
    [child] = child_pids(judge.log)
    judge.kill()
    wait_for(lambda: gone(child), timeout=10, what=f"worker process {child} to die with its parent")
    assert db_rows(tmp_path) == ([(1, "received")], [])  # rolled back: done after a restart


def test_a_worker_process_that_dies_is_replaced(tmp_path, judge_runner):
    judge = judge_runner.start(tmp_path, {**PID_ECHO, "JUDGE_WORKER_PROCESSES": "1"})
    judge.wait_for_log("worker process")
    [first] = child_pids(judge.log)
    os.kill(first, signal.SIGKILL)
    judge.wait_for_log(f"worker process {first} exited")
    wait_for(lambda: len(child_pids(judge.log)) == 2, what="a second worker process")
    second = child_pids(judge.log)[1]
    judge.wait_for_log(f"worker process {second} running")
    send(judge.smtp_port, make_mail(subject="after the crash"))
    wait_for(lambda: eml_files(tmp_path), what="the reply")
    assert reply_pids(tmp_path) == [second]
    assert judge.terminate() == 0
    assert gone(second)


def test_writer_lock_orders_writers_of_two_stores(tmp_path):
    """The writer lock excludes another open of the same database (as another process's)."""
    url, lock = f"sqlite:///{tmp_path / 'j.db'}", tmp_path / "j.db.writer-lock"
    first, second = Store(url, writer_lock=lock), Store(url, writer_lock=lock)
    entered = threading.Event()
    try:
        with first.unit_of_work():
            waiter = threading.Thread(target=lambda: _enter(second, entered))
            waiter.start()
            assert not entered.wait(0.3)  # no BEGIN was sent yet: only the lock holds it back
        assert entered.wait(5)
        waiter.join()
    finally:
        first.dispose()
        second.dispose()


def _enter(store: Store, entered: threading.Event) -> None:
    with store.unit_of_work():
        entered.set()


def test_processed_bytes_are_told_apart_from_lines_and_say_what_the_mails_did():
    from judge.daemon.processed import Processed
    from judge.daemon.worker_process import processed_signals

    assert processed_signals(b"ppp") == ([], b"", Processed())
    assert processed_signals(b"pjp") == ([], b"", Processed(bot_jobs_stored=True))
    assert processed_signals(b"dp") == ([], b"", Processed(phases_processed=True))
    assert processed_signals(b"pb") == ([], b"", Processed(True, True))
    # A told line, processed bytes on both sides of it, and a line not yet complete.
    assert processed_signals(b"ppready 4\npjready 5\ndpre") == ([b"ready 4", b"ready 5"], b"re", Processed(True, True))
    assert processed_signals(b"ready 4\npp") == ([b"ready 4"], b"", Processed())
    # Letters inside a line's text are text, not signals.
    assert processed_signals(b"pready bjd\n") == ([b"ready bjd"], b"", Processed())
