"""Write transactions on SQLite: first come first served among threads, and durable intake."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

from sqlalchemy import event, text

from judge.store.inbound import store_inbound
from judge.store.models_mail import InboundMessage
from tests.judge.storage import make_mail, migrated_store

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


def test_a_waiting_writer_goes_before_a_thread_that_begins_again(tmp_path) -> None:
    """The worker's pattern (commit, begin again at once) must not starve the intake."""
    store = migrated_store(tmp_path)
    order: list[str] = []
    holding, intake_waiting = threading.Event(), threading.Event()

    def intake() -> None:
        holding.wait()
        intake_waiting.set()
        with store.unit_of_work() as session:
            session.execute(text("SELECT 1"))
            order.append("intake")

    thread = threading.Thread(target=intake)
    thread.start()
    with store.unit_of_work() as session:
        session.execute(text("SELECT 1"))
        order.append("worker 1")
        holding.set()
        intake_waiting.wait()
        # Let the intake thread reach its turn request before this transaction ends.
        while store._turns is not None and store._turns._next_ticket < 2:
            threading.Event().wait(0.001)
    with store.unit_of_work() as session:
        order.append("worker 2")
    thread.join()
    store.dispose()
    assert order == ["worker 1", "intake", "worker 2"]


def test_a_nested_unit_of_work_of_the_same_thread_does_not_wait_for_itself(tmp_path) -> None:
    store = migrated_store(tmp_path)
    with store.unit_of_work():
        with store._turns.turn():  # type: ignore[union-attr]
            nested = True
    with store.unit_of_work() as session:  # the turn was given back
        session.execute(text("SELECT 1"))
    store.dispose()
    assert nested


def test_intake_commits_with_full_sync_and_other_work_with_normal(tmp_path) -> None:
    store = migrated_store(tmp_path)
    with store.unit_of_work(durable=True) as session:
        durable_level = session.execute(text("PRAGMA synchronous")).scalar()
    with store.unit_of_work() as session:
        normal_level = session.execute(text("PRAGMA synchronous")).scalar()
    statements: list[str] = []
    event.listen(store.engine, "before_cursor_execute",
                 lambda _c, _cur, statement, *_rest: statements.append(statement))
    stored = store_inbound(store, make_mail(), mail_from="a@x", rcpt_to=["judge@example.org"],
                           source="smtp", now=NOW)
    assert statements[:2] == ["PRAGMA synchronous=FULL", "BEGIN IMMEDIATE"]
    with store.unit_of_work() as session:
        assert session.get(InboundMessage, stored.inbound_id) is not None
    store.dispose()
    assert (durable_level, normal_level) == (2, 1)  # FULL, NORMAL
