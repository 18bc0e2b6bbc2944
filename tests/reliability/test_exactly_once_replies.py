"""Replies are sent exactly once, but for at most one duplicate per crash of the sender.

The real outbox sender (tests/reliability/sender_child.py) drains a SQLite outbox into a
real SMTP relay (aiosmtpd) and is SIGKILLed again and again by the relay itself, at
different points around an accepted message: before the relay's 250 reaches it, and
0 to 8 ms after (while it records the row, or before or after it leases the next batch).
After each kill a new sender starts at once.  Issue 12.5's goal: at least 50 kills, at
most one duplicate per kill (the mail in hand, with the same bytes and Message-ID, so a
receiver can drop it), nothing lost, and no row waiting out the 5-minute lease.
"""

from __future__ import annotations

import email
import multiprocessing
import os
import signal
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail, queue_all
from judge.store.models_mail import OutboxMessage
from tests.fixtures.ports import free_port
from tests.judge.storage import migrated_store
from tests.reliability.sender_child import STUCK, send_everything

pytestmark = pytest.mark.slow

ROWS = 150
KILLS = 60
#: When the relay kills the sender around the k-th accepted mail: None = before it
#: answers 250; a number = that many seconds after answering.
KILL_POINTS = (None, 0.0, 0.0005, 0.001, 0.002, 0.004, 0.008)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")
NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)


@dataclass
class KillingRelay:
    """An SMTP relay that keeps every mail and SIGKILLs each sender at its second mail."""

    victim: int | None = None
    run: int = 0
    kills: int = 0
    accepted: list[tuple[int, str, bytes]] = field(default_factory=list)  # (run, Message-ID, bytes)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        import asyncio

        raw = envelope.original_content or envelope.content  # type: ignore[attr-defined]
        message_id = str(email.message_from_bytes(raw)["Message-ID"])
        with self.lock:
            self.accepted.append((self.run, message_id, raw))
            this_run = sum(1 for run, _, _ in self.accepted if run == self.run)
            victim = self.victim if this_run == 2 and self.kills < KILLS else None
            if victim is not None:
                point = KILL_POINTS[self.kills % len(KILL_POINTS)]
                self.kills += 1
                self.victim = None  # one kill per sender
        if victim is not None:
            if point is None:
                _kill(victim)
            else:
                asyncio.get_running_loop().call_later(point, _kill, victim)
        return "250 2.0.0 OK"


def accepted_but_unrecorded(relay: KillingRelay, store, message_ids: dict[int, str]) -> int:
    """Mails the relay has taken whose outbox rows are not marked sent (``message_ids``: each
    row's Message-ID, read once rather than parsed again after every kill)."""
    with relay.lock:
        taken = {message_id for _, message_id, _ in relay.accepted}
    with store.unit_of_work() as session:
        sent = {message_ids[row] for row in session.execute(
            select(OutboxMessage.id).where(OutboxMessage.status == "sent")).scalars()}
    return len(taken - sent)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # it had already finished
        pass


@pytest.fixture
def relay():
    relay = KillingRelay()
    port = free_port()
    controller = Controller(relay, hostname="127.0.0.1", port=port, server_hostname="relay.test")
    controller.start()
    try:
        yield relay, port
    finally:
        controller.stop()


def test_a_killed_sender_duplicates_at_most_one_mail_per_kill_and_loses_none(tmp_path, relay):
    relay, port = relay
    store = migrated_store(tmp_path)
    with store.unit_of_work() as session:
        queue_all(session, [OutgoingMail(recipients=(f"player{n}@example.net",), subject=f"reply {n}",
                                         body=f"reply number {n}\n") for n in range(ROWS)], JUDGE, NOW)
        queued = session.execute(select(OutboxMessage.id, OutboxMessage.raw)).all()
    message_ids = {row: str(email.message_from_bytes(raw)["Message-ID"]) for row, raw in queued}
    expected = {message_ids[row]: raw for row, raw in queued}
    url = str(store.engine.url)
    context = multiprocessing.get_context("forkserver")
    # The children also import the main module (pytest): preload it too, or each start pays for it.
    context.set_forkserver_preload(["tests.reliability.sender_child", "pytest"])
    endings: list[int | None] = []
    leftovers = [0]
    while True:
        go = context.Event()
        child = context.Process(target=send_everything, args=(url, "127.0.0.1", port, go))
        child.start()
        with relay.lock:
            relay.run += 1
            relay.victim = child.pid
        go.set()
        child.join(timeout=60)
        endings.append(child.exitcode)
        leftovers.append(accepted_but_unrecorded(relay, store, message_ids))
        assert child.exitcode in (0, -signal.SIGKILL), f"sender ended with {child.exitcode} (STUCK={STUCK})"
        if child.exitcode == 0:
            break
        assert len(endings) < KILLS + 20, "the senders make no progress"

    killed = endings.count(-signal.SIGKILL)
    assert killed >= 50
    # Each kill ended a sender, but for one aimed, a few ms late, at the last sender, which
    # had already sent its last rows and ended by itself.
    assert killed == relay.kills or (killed == relay.kills - 1 and endings[-1] == 0), (killed, relay.kills, endings)
    # Nothing lost: every queued mail reached the relay, and every row is marked sent.
    received = {message_id for _, message_id, _ in relay.accepted}
    assert received == set(expected)
    with store.unit_of_work() as session:
        assert set(session.execute(select(OutboxMessage.status)).scalars()) == {"sent"}
    store.dispose()
    # At most one duplicate per kill: a kill leaves at most the one mail in hand taken by
    # the relay but not recorded as sent (a later sender resends it, byte for byte, with
    # the same Message-ID), and nothing else is ever sent twice.
    assert all(after - before <= 1 for before, after in zip(leftovers, leftovers[1:])), leftovers
    counts = Counter(message_id for _, message_id, _ in relay.accepted)
    duplicates = sum(counts.values()) - len(counts)
    assert 1 <= duplicates <= relay.kills  # the kills before a 250 did make copies: the check is live
    for _, message_id, raw in relay.accepted:
        assert raw.replace(b"\r\n", b"\n") == expected[message_id]  # the wire has CRLF
