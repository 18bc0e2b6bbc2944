"""`judge serve` processes a phase right after the mail that made it ready (issue 17.2):
with an hour between scheduler passes, the late last orders of a phase still bring its
results at once, over real SMTP in and out."""

from __future__ import annotations

from datetime import timedelta

import pytest

from judge.daemon.clockfile import set_clock
from tests.judge.scheduler.test_daemon_game import MASTER, PLAYERS, S1901, START, Table

pytestmark = pytest.mark.slow

HOLDS = {power: [" ".join(order.split()[:2]) + " H" for order in lines] for power, lines in S1901.items()}
HOLDS["FRANCE"] = ["A PAR H", "A MAR H", "F BRE H"]


@pytest.fixture
def table(tmp_path, judge_runner, smtp_sink):
    set_clock(tmp_path / "clock", START)
    env = {
        "JUDGE_OUTBOUND_RELAY_HOST": smtp_sink.host, "JUDGE_OUTBOUND_RELAY_PORT": str(smtp_sink.port),
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.1", "JUDGE_WORKER_POLL_SECONDS": "0.1",
        "JUDGE_SCHEDULER_TICK_SECONDS": "3600", "JUDGE_SCHEDULER_TOUCHED_SECONDS": "3600",  # no pass during the test: only the mail can do it
    }
    judge = judge_runner.start(tmp_path, env, args=["--clock-file", str(tmp_path / "clock")])
    yield Table(tmp_path, judge, smtp_sink)
    assert judge.terminate() == 0


def test_late_last_orders_are_processed_right_after_their_mail(table):
    assert "ERROR" not in table.command(MASTER, "CREATE g1 masterpw\nFORM\n", "create")
    for index, address in enumerate(PLAYERS):
        table.send(address, f"JOIN g1 pw{index}\n", subject=f"join {index}")
    for rcpt, subject, _ in table.wait_for("game started, you play", 7):
        power = subject.rsplit(" ", 1)[1]
        table.address_of[power], table.password_of[power] = rcpt, "pw" + rcpt[len("player")]
    *first, last = sorted(HOLDS)
    for power in first:
        assert "ERROR" not in table.orders(power, HOLDS[power], f"orders {power}")
    table.past_deadline(timedelta(hours=2))
    reply = table.orders(last, HOLDS[last], f"orders {last}")
    assert "Processing: all orders are in: the phase is processed right after this mail" in reply
    results = table.wait_for("g1 S1901M results", 8)
    assert {rcpt for rcpt, _, _ in results} == set(PLAYERS) | {MASTER}
    assert "The position now (units and supply centres):" in results[0][2]
    assert table.game().phase == "F1901M"
