"""Leases carry their owner; the leases of an owner that is gone are released at once."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from datetime import datetime, timedelta, timezone

from sqlalchemy import select, update

from judge.config import JudgeSettings
from judge.edge.smtp_out import OutboxSender
from judge.mailio.outgoing import OutgoingMail, queue_outgoing
from judge.store import leases
from judge.store.models_hosts import LeaseOwner
from judge.store.models_mail import OutboxMessage

START = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")


def queue(store, n):
    with store.unit_of_work() as session:
        for i in range(n):
            queue_outgoing(session, OutgoingMail(recipients=(f"p{i}@example.net",), subject="s", body="b\n"),
                           JUDGE, START)


def lease_all(store, owner):
    leases.register(store, owner)
    with store.unit_of_work() as session:
        session.execute(update(OutboxMessage).values(leased_by=owner.id, next_attempt_at=START + timedelta(minutes=5)))


def rows(store):
    with store.unit_of_work() as session:
        return session.execute(select(OutboxMessage.leased_by, OutboxMessage.next_attempt_at)).all()


def owners(store):
    with store.unit_of_work() as session:
        return set(session.execute(select(LeaseOwner.id)).scalars())


def a_finished_process() -> leases.Owner:
    """An owner whose process has exited (and been reaped) on this machine."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
    started = leases.pid_started(child.pid)
    child.wait()
    return leases.Owner("dead" + "0" * 28, "here", leases.process_table(), child.pid, started)


def test_leases_of_a_process_that_exited_are_released(store):
    queue(store, 3)
    dead = a_finished_process()
    lease_all(store, dead)
    assert leases.release_gone(store, START) == 3
    assert rows(store) == [(None, START)] * 3
    assert dead.id not in owners(store)


def test_leases_of_this_live_process_stay(store):
    queue(store, 2)
    alive = leases.Owner.this_process()
    lease_all(store, alive)
    assert leases.release_gone(store, START) == 0
    assert all(owner == alive.id for owner, _ in rows(store))


def test_a_reused_pid_does_not_make_a_dead_owner_alive(store):
    queue(store, 1)
    me = leases.Owner.this_process()
    impostor = replace(me, id="x" * 32, pid_started=(me.pid_started or 0) + 1)  # same pid, other start
    lease_all(store, impostor)
    assert leases.release_gone(store, START) == 1


def test_an_owner_elsewhere_is_gone_when_its_heartbeat_is_stale(store):
    queue(store, 1)
    remote = leases.Owner("r" * 32, "other-host", "another-boot:1", 4242, 1)
    now = leases.wall_clock()
    leases.register(store, remote, now)
    with store.unit_of_work() as session:
        session.execute(update(OutboxMessage).values(leased_by=remote.id))
    assert leases.release_gone(store, START, now + leases.STALE_AFTER) == 0  # still beating
    assert leases.release_gone(store, START, now + leases.STALE_AFTER + timedelta(seconds=1)) == 1


def test_a_restarted_sender_takes_up_what_its_dead_run_leased(store, tmp_path):
    from judge.edge.smtp_out import MaildirTransport

    queue(store, 4)
    lease_all(store, a_finished_process())  # a sender killed with four rows leased
    sender = OutboxSender(store, MaildirTransport(tmp_path / "out"), clock=lambda: START)
    assert sender.send_due() == 0  # without start(): the lease would hold for 5 minutes
    sender.start()
    try:
        assert sender.send_due() == 4
    finally:
        sender.stop()
    assert owners(store) == set()


def test_a_bot_process_frees_a_dead_judges_jobs_but_leaves_its_outbox_to_a_sender(store):
    """A bot process starting beside a killed judge gives back the judge's bot jobs only:
    had it released the outbox rows too (and forgotten the owner), the live judge's lease
    keeper would find nothing gone and never wake its sender for them."""
    from judge.daemon.bot_worker import BotWorker
    from judge.config import Settings
    from judge.store.models_bots import BotJob
    from judge.lifecycle import ACTIVE
    from judge.store.models_game import Game

    queue(store, 2)
    dead = a_finished_process()
    lease_all(store, dead)
    with store.unit_of_work() as session:
        game = Game(name="g1", master_password_hash="x", status=ACTIVE, created_at=START)
        session.add(game)
        session.flush()
        session.add(BotJob(game_id=game.id, phase="S1901M", power="FRANCE", digest="d", map_name="standard",
                           position={}, seed=1, created_at=START, claimed_by=dead.id, claimed_at=START))
    worker = BotWorker(store, Settings(), clock=lambda: START, process_ready=None)
    worker.start()
    try:
        with store.unit_of_work() as session:
            assert session.scalar(select(BotJob.claimed_by)) is None
        assert all(owner == dead.id for owner, _ in rows(store))
        assert dead.id in owners(store)
        assert leases.release_gone(store, START) == 2  # the judge's keeper: it wakes its sender
        assert rows(store) == [(None, START)] * 2
    finally:
        worker.stop()
