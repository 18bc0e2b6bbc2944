"""Write transactions on SQLite: first come first served among threads, and durable intake."""

from __future__ import annotations

import os
import threading
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import event, text

from judge.store import engine as engine_module
from judge.store.engine import Store
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
        while store._turns is not None and store._turns.waiting < 1:
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


def test_intake_is_synced_to_disk_after_its_commit_outside_the_write_turn(tmp_path, monkeypatch) -> None:
    """WAL file: commit with NORMAL, then fsync the -wal file without holding the write turn."""
    store = migrated_store(tmp_path)
    with store.unit_of_work() as session:
        normal_level = session.execute(text("PRAGMA synchronous")).scalar()
    events: list[str] = []
    real_fsync = engine_module.os.fsync

    def recording_fsync(descriptor: int) -> None:
        path = os.readlink(f"/proc/self/fd/{descriptor}")
        holder = store._turns._owner  # type: ignore[union-attr]
        events.append(f"fsync {Path(path).name} turn held: {holder == threading.get_ident()}")
        real_fsync(descriptor)

    monkeypatch.setattr(engine_module.os, "fsync", recording_fsync)
    event.listen(store.engine, "before_cursor_execute",
                 lambda _c, _cur, statement, *_rest: events.append(statement))
    event.listen(store.engine, "commit", lambda _c: events.append("COMMIT"))
    stored = store_inbound(store, make_mail(), mail_from="a@x", rcpt_to=["judge@example.org"],
                           source="smtp", now=NOW)
    database_name = Path(store.engine.url.database or "").name
    assert events[0] == "BEGIN IMMEDIATE"  # the connection is at NORMAL already (read above)
    assert events[-2:] == ["COMMIT", f"fsync {database_name}-wal turn held: False"]
    with store.unit_of_work() as session:
        assert session.get(InboundMessage, stored.inbound_id) is not None
    store.dispose()
    assert normal_level == 1  # NORMAL


def test_without_a_wal_file_a_durable_unit_commits_with_full_sync() -> None:
    store = Store("sqlite://")  # in memory: no WAL to sync
    levels = []
    for durable in (False, True, True, False):
        with store.unit_of_work(durable=durable) as session:
            levels.append(session.execute(text("PRAGMA synchronous")).scalar())
    store.dispose()
    assert levels == [1, 2, 2, 1]  # NORMAL, FULL, FULL, NORMAL: set again whenever it changes


def test_a_removed_wal_means_the_database_file_is_synced(tmp_path, monkeypatch) -> None:
    database = tmp_path / "judge.db"
    database.write_bytes(b"")
    synced: list[str] = []
    monkeypatch.setattr(engine_module.os, "fsync",
                        lambda descriptor: synced.append(os.readlink(f"/proc/self/fd/{descriptor}")))
    engine_module.sync_wal(tmp_path / "judge.db-wal")
    assert synced == [str(database)]


def test_turns_exclude_each_other_and_hand_over_to_every_waiter(tmp_path) -> None:
    from judge.store.engine import WriteTurns

    turns = WriteTurns()
    inside: list[int] = []
    counter = [0]

    def writer() -> None:
        for _ in range(200):
            with turns.turn():
                with turns.turn():  # nested: the same thread does not wait for itself
                    inside.append(threading.get_ident())
                    seen = counter[0]
                    threading.Event().wait(0)  # let another thread run, if it could get in
                    counter[0] = seen + 1
                    assert inside.pop() == threading.get_ident() and not inside

    threads = [threading.Thread(target=writer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    assert counter[0] == 8 * 200 and turns.waiting == 0
