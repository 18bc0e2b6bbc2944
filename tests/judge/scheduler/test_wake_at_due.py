"""The daemon's scheduler wakes at the next thing due, to the second, not at its tick
(issue 29.7): the planner alone, then a real `judge serve` whose tick is 20 minutes."""

from __future__ import annotations

import email
import email.utils
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from judge.edge.pass_timing import DueOutlook, PassPlanner
from judge.store.engine import Store
from judge.store.models_game import Membership
from judge.store.passwords import hash_password
from tests.fixtures.judge_process import run_judge
from tests.judge.scheduler.seed import seed_game
from tests.judge.scheduler.test_daemon_game import Table

T0 = datetime(2026, 11, 28, 16, 0, tzinfo=timezone.utc)


def seconds(n: float) -> timedelta:
    return timedelta(seconds=n)


def test_the_next_pass_is_at_the_earliest_due_time_capped_by_the_tick():
    planner = PassPlanner(tick_seconds=1200, touched_seconds=30)
    assert planner.next_pass_at(T0, T0, DueOutlook(T0 + seconds(7), touched=False)) == T0 + seconds(7)
    planner.passed()
    assert planner.next_pass_at(T0, T0, DueOutlook(T0 + seconds(5000), touched=False)) == T0 + seconds(1200)
    planner.passed()
    assert planner.next_pass_at(T0, T0, DueOutlook(None, touched=False)) == T0 + seconds(1200)


def test_a_due_time_hidden_by_a_touch_is_remembered_until_a_pass():
    planner = PassPlanner(tick_seconds=1200, touched_seconds=600)
    assert planner.next_pass_at(T0, T0, DueOutlook(T0 + seconds(60), touched=False)) == T0 + seconds(60)
    # A mail touched that game: the index shows it due now, its deadline no longer.
    later = T0 + seconds(10)
    assert planner.next_pass_at(later, T0, DueOutlook(None, touched=True)) == T0 + seconds(60)
    assert planner.next_pass_at(later, T0, DueOutlook(T0 + seconds(90), touched=True)) == T0 + seconds(60)
    planner.passed()  # the pass stored every due time again
    assert planner.next_pass_at(T0 + seconds(61), T0 + seconds(60), DueOutlook(T0 + seconds(90), touched=False)) \
        == T0 + seconds(90)


def test_touched_games_get_a_pass_within_touched_seconds_of_the_last():
    planner = PassPlanner(tick_seconds=1200, touched_seconds=30)
    last = T0 - seconds(100)  # quiet for a while: the first touch is looked at at once
    assert planner.next_pass_at(T0, last, DueOutlook(None, touched=True)) == last + seconds(30)
    assert planner.next_pass_at(T0, T0, DueOutlook(None, touched=True)) == T0 + seconds(30)
    assert planner.next_pass_at(T0, T0, None) == T0 + seconds(1200)  # the store unreadable: the tick
    assert planner.next_pass_at(T0, None, DueOutlook(None, touched=True)) == T0  # touched before the start


@pytest.mark.slow
def test_the_late_notice_goes_at_the_deadline_with_a_twenty_minute_tick(tmp_path, judge_runner, smtp_sink):
    assert run_judge(["db", "upgrade"], tmp_path).returncode == 0
    now = datetime.now(timezone.utc)
    deadline = (now + seconds(8)).replace(microsecond=0)
    store = Store(f"sqlite:///{tmp_path / 'judge.db'}")
    with store.unit_of_work(now=now) as session:
        game = seed_game(session, "g1", now, orders=False, deadline=deadline, due=deadline)
        england = session.execute(select(Membership).where(Membership.game_id == game.id,
                                                           Membership.power == "ENGLAND")).scalar_one()
        england.password_hash = hash_password("pw")
        address = england.address
    store.dispose()
    judge = judge_runner.start(tmp_path, {
        "JUDGE_OUTBOUND_RELAY_HOST": smtp_sink.host, "JUDGE_OUTBOUND_RELAY_PORT": str(smtp_sink.port),
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.1", "JUDGE_WORKER_POLL_SECONDS": "0.1", "JUDGE_DAIDE_HOST": "",
        # Only the deadline the planner saw at start can bring the pass: no tick, no touch pass.
        "JUDGE_SCHEDULER_TICK_SECONDS": "1200", "JUDGE_SCHEDULER_TOUCHED_SECONDS": "1200",
    })
    table = Table(tmp_path, judge, smtp_sink)
    # England's orders touch the game (due "now" in the index, its deadline hidden).
    reply = table.command(address, "SIGNON Eg1 pw\nF LON H\nF EDI H\nA LVP H\n", "orders")
    assert "ERROR" not in reply, reply
    [(_, _, body), *_] = table.wait_for("late notice", timeout=60)
    assert "Orders are still missing from" in body and "ENGLAND" not in body.split("missing from")[1][:80]
    notices = [email.message_from_bytes(m.raw) for m in smtp_sink.messages]
    sent_at = min(email.utils.parsedate_to_datetime(str(m["Date"])) for m in notices
                  if "late notice" in str(m["Subject"]))
    assert deadline <= sent_at <= deadline + seconds(10), (deadline, sent_at)
    assert judge.terminate() == 0
