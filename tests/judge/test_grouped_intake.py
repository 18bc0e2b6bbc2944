"""Mails arriving together on several SMTP connections are stored in one durable
transaction (judge.store.inbound.GroupedIntake), each acknowledged with its own row, a
copy with the row of its twin, and a mail the group cannot store fails alone."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import pytest
from sqlalchemy import event, func, select

from judge.store.engine import Store
from judge.store.inbound import GroupedIntake, Stored
from judge.store.models_mail import InboundMessage
from tests.judge.storage import migrated_store

NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)


def mail(number: int) -> bytes:
    return (f"From: p{number}@example.net\r\nMessage-ID: <m{number}@example.net>\r\n"
            f"Subject: orders\r\n\r\nSIGNON F@g1 pw\r\nA PAR H\r\n").encode()


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.002)


class Arrivals:
    """Threads each handing one mail to the intake; their outcomes by name."""

    def __init__(self, intake: GroupedIntake) -> None:
        self.intake = intake
        self.outcomes: dict[str, Stored | BaseException] = {}
        self.threads: list[threading.Thread] = []

    def arrive(self, name: str, raw: bytes, now: datetime = NOW) -> None:
        def run() -> None:
            try:
                self.outcomes[name] = self.intake.store_inbound(raw, mail_from="p@example.net",
                                                                rcpt_to=["judge@example.org"], source="smtp", now=now)
            except Exception as problem:
                self.outcomes[name] = problem

        thread = threading.Thread(target=run)
        self.threads.append(thread)
        thread.start()

    def join(self) -> None:
        for thread in self.threads:
            thread.join(30)


@pytest.fixture
def store(tmp_path: Path):
    store = migrated_store(tmp_path)
    yield store
    store.dispose()


def commits_of(store: Store) -> list[int]:
    commits: list[int] = []
    event.listen(store.engine, "commit", lambda connection: commits.append(1))
    return commits


def test_mails_waiting_for_the_write_turn_are_stored_in_one_transaction_each_with_its_row(store: Store) -> None:
    intake = GroupedIntake(store)
    arrivals = Arrivals(intake)
    with store.unit_of_work():  # the worker's turn, say: intake must wait
        arrivals.arrive("first", mail(0))
        wait_for(lambda: store._turns is not None and store._turns.waiting == 1, "the first mail to wait")
        commits = commits_of(store)
        for number in range(1, 5):
            arrivals.arrive(f"m{number}", mail(number))
        arrivals.arrive("copy of m1", mail(1))
        wait_for(lambda: len(intake._waiting) == 5, "the other mails to wait")
        assert not arrivals.outcomes  # nothing acknowledged before it is stored
    arrivals.join()
    assert len(commits) == 2  # the first mail's group, then the five that waited behind it
    stored = {name: outcome for name, outcome in arrivals.outcomes.items()}
    assert all(isinstance(outcome, Stored) for outcome in stored.values()), stored
    new = [outcome.inbound_id for outcome in stored.values() if isinstance(outcome, Stored) and outcome.new]
    assert len(new) == len(set(new)) == 5
    copy, twin = stored["copy of m1"], stored["m1"]
    assert isinstance(copy, Stored) and isinstance(twin, Stored)
    assert not copy.new and copy.inbound_id == twin.inbound_id
    with store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 5


def test_a_mail_the_group_cannot_store_fails_alone_and_the_others_are_stored(store: Store) -> None:
    intake = GroupedIntake(store)
    arrivals = Arrivals(intake)
    with store.unit_of_work():
        arrivals.arrive("first", mail(0))
        wait_for(lambda: store._turns is not None and store._turns.waiting == 1, "the first mail to wait")
        arrivals.arrive("good", mail(1))
        arrivals.arrive("naive clock", mail(2), now=NOW.replace(tzinfo=None))
        arrivals.arrive("also good", mail(3))
        wait_for(lambda: len(intake._waiting) == 3, "the other mails to wait")
    arrivals.join()
    assert "naive datetime" in str(arrivals.outcomes["naive clock"])
    assert all(isinstance(arrivals.outcomes[name], Stored) and arrivals.outcomes[name].new  # type: ignore[union-attr]
               for name in ("first", "good", "also good"))
    with store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 3


def test_a_redelivery_of_a_stored_mail_gets_the_stored_row(store: Store) -> None:
    intake = GroupedIntake(store)
    first = intake.store_inbound(mail(7), mail_from="p@example.net", rcpt_to=[], source="smtp", now=NOW)
    again = intake.store_inbound(b"Received: by mx2\r\n" + mail(7), mail_from="p@example.net", rcpt_to=[],
                                 source="smtp", now=NOW)
    assert first.new and not again.new and again.inbound_id == first.inbound_id
