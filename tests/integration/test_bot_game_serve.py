"""The judge's bot through a real `judge serve`: mail in over SMTP, the bot in its own
process, replies read back from the outbox folder, the store read from the SQLite file.

A master fills a game with the bot (SEAT BOT seven times).  The mail is answered before the
bot has thought (its moves are jobs for the bot process); ordinary mail sent while it
thinks is answered at once; the phase is processed once, when the seven powers' moves
are in, with exactly the orders the stand-in makes.  Killed while the bot thinks, the
judge loses nothing: after the restart the claimed job is given back and done, and the
phase is processed once.
"""

from __future__ import annotations

import email
import functools
import json
import smtplib
import sqlite3
import time
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path

import pytest

import maps
from adjudicator import api
from bot.player import Budget
from bot.stand_in import game_seed, stand_in_lines

pytestmark = pytest.mark.slow

JUDGE = "judge@example.org"
MASTER = "gm@example.net"
STANDARD = maps.load("standard")
SEVEN_BOTS = "SIGNON master@g1 masterpw\n" + "SEAT BOT\n" * 7
ITERATIONS = 200  # [bots] iterations: a light search keeps the test short; seven still outlast a reply


def judge_env(**extra: str) -> dict[str, str]:
    return {"JUDGE_JUDGE_ADDRESS": JUDGE, "JUDGE_JUDGE_DOMAIN": "example.org",
            "JUDGE_WORKER_POLL_SECONDS": "0.2", "JUDGE_OUTBOUND_POLL_SECONDS": "0.1",
            "JUDGE_SCHEDULER_TICK_SECONDS": "3600", "JUDGE_BOTS_PROCESSES": "1",
            "JUDGE_BOTS_POLL_SECONDS": "0.1", "JUDGE_BOTS_ITERATIONS": str(ITERATIONS), "JUDGE_DAIDE_HOST": "",
            **extra}


class Mailroom:
    """SMTP into the judge, and its outbox folder read back."""

    def __init__(self, judge, workdir: Path) -> None:
        self.judge, self.outbox = judge, workdir / "outbox" / "new"

    def send(self, sender: str, body: str) -> EmailMessage:
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, JUDGE, "diplomacy"
        message["Message-ID"] = make_msgid(domain="example.net")
        message.set_content(body)
        with smtplib.SMTP("127.0.0.1", self.judge.smtp_port, timeout=10) as client:
            client.send_message(message, from_addr=sender, to_addrs=[JUDGE])
        return message

    def messages(self) -> list[EmailMessage]:
        paths = sorted(self.outbox.glob("*.eml")) if self.outbox.is_dir() else []
        return [email.message_from_bytes(p.read_bytes(), policy=default_policy) for p in paths]  # type: ignore[misc]

    def wait_for(self, predicate, timeout: float = 60.0) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [m for m in self.messages() if predicate(m)]
            if found:
                return found
            time.sleep(0.05)
        raise AssertionError(f"no such mail in {timeout} s; log:\n{self.judge.log}")

    def reply_to(self, sent: EmailMessage, timeout: float = 60.0) -> str:
        [reply] = self.wait_for(lambda m: m["In-Reply-To"] == sent["Message-ID"], timeout)
        return reply.get_body(("plain",)).get_content()


def rows(workdir: Path, query: str) -> list[tuple]:
    with sqlite3.connect(workdir / "judge.db", timeout=30) as db:
        return db.execute(query).fetchall()


def wait_until(check, timeout: float = 90.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def start_bot_game(room: Mailroom) -> str:
    created = room.reply_to(room.send(MASTER, "CREATE g1 masterpw\nTIMING MOVE 2D\nFORM\n"))
    assert "game 'g1' created" in created and "ERROR" not in created
    return room.reply_to(room.send(MASTER, SEVEN_BOTS))


@functools.cache  # the same seven searches for both tests: computed once
def expected_s1901() -> dict[str, list[str]]:
    start = api.initial_position(STANDARD)
    budget = Budget(iterations=ITERATIONS, seconds=None)
    return {p.name: stand_in_lines(STANDARD, start, p.name, game_seed("g1"), budget) for p in STANDARD.powers}


def recorded(workdir: Path, phase: str) -> list[tuple]:
    return rows(workdir, f"SELECT orders FROM phase_record WHERE phase = '{phase}'")


@pytest.mark.parametrize("worker_processes", ["0", "1"])
def test_mail_is_answered_while_the_bot_thinks_and_the_phase_waits_for_its_moves(tmp_path, judge_runner,
                                                                                  worker_processes) -> None:
    # The bot process never polls here: the mail that stores its jobs must wake it (a mail
    # that stores none does not, judge.daemon.serve), processed by the worker thread or by
    # a worker process (whose "processed" byte then says so, judge.daemon.worker_process).
    judge = judge_runner.start(tmp_path, judge_env(JUDGE_BOTS_POLL_SECONDS="600",
                                                   JUDGE_WORKER_PROCESSES=worker_processes))
    room = Mailroom(judge, tmp_path)
    seated = start_bot_game(room)
    assert "game 'g1' is full and has started" in seated
    # Answered before the bot made a single move: the seven jobs are stored, not thought.
    jobs = rows(tmp_path, "SELECT power, done_at FROM bot_job ORDER BY power")
    assert [power for power, _ in jobs] == sorted(p.name for p in STANDARD.powers)
    assert any(done is None for _, done in jobs)

    # Ordinary mail while the bot thinks: answered at once, long before the bot is through.
    asked = time.monotonic()
    listed = room.reply_to(room.send("someone@example.net", "LIST g1\n"))
    answered_in = time.monotonic() - asked
    assert "g1" in listed and answered_in < 5.0

    results = room.wait_for(lambda m: m["Subject"] == "g1 S1901M results", timeout=240)
    [(replied, last_move)] = rows(tmp_path, "SELECT (SELECT max(created_at) FROM outbox WHERE recipients "
                                            "LIKE '%someone@%'), (SELECT max(done_at) FROM bot_job "
                                            "WHERE phase = 'S1901M')")
    assert replied < last_move, "the reply was queued before the bot had made its last move"
    results = room.wait_for(lambda m: m["Subject"] == "g1 S1901M results")
    wait_until(lambda: recorded(tmp_path, "S1901M"), what="the S1901M record")
    [(orders,)] = recorded(tmp_path, "S1901M")
    assert json.loads(orders) == {power: lines for power, lines in expected_s1901().items() if lines}
    # Processed once: one record, one results mail to the master.
    assert len([m for m in results if m["To"] == MASTER]) == 1
    assert judge.terminate() == 0, judge.log


def test_a_judge_killed_while_the_bot_thinks_loses_nothing(tmp_path, judge_runner) -> None:
    judge = judge_runner.start(tmp_path, judge_env())
    room = Mailroom(judge, tmp_path)
    start_bot_game(room)
    # Kill the judge (and with it the bot process) in the middle of a job.
    in_hand = "SELECT id FROM bot_job WHERE claimed_by IS NOT NULL AND done_at IS NULL"
    wait_until(lambda: rows(tmp_path, in_hand), what="a job in hand")
    judge.kill()
    killed = [job for (job,) in rows(tmp_path, in_hand)]  # empty only if it finished just before the kill
    left = rows(tmp_path, "SELECT count(*) FROM bot_job WHERE done_at IS NULL")[0][0]
    assert left > 0 and not recorded(tmp_path, "S1901M")

    judge = judge_runner.start(tmp_path, judge_env())
    room = Mailroom(judge, tmp_path)
    room.wait_for(lambda m: m["Subject"] == "g1 S1901M results", timeout=240)
    wait_until(lambda: recorded(tmp_path, "S1901M"), what="the S1901M record")
    [(orders,)] = recorded(tmp_path, "S1901M")
    assert json.loads(orders) == {power: lines for power, lines in expected_s1901().items() if lines}
    s1901 = dict(rows(tmp_path, "SELECT id, attempts FROM bot_job WHERE phase = 'S1901M' AND done_at IS NOT NULL"))
    assert len(s1901) == 7
    assert all(s1901[job] == 2 for job in killed)  # the job in hand at the kill: given back and done again
    assert judge.terminate() == 0, judge.log
