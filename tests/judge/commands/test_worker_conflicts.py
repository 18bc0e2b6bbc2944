"""A mail whose transaction collides with a concurrent change of the same game is run again
from scratch (a new session) and takes effect once; it is shunted only if it keeps failing.

The collision is real: the first attempt reads the game (version v), another session then
commits a change of that game (version v+1), and the orders handler's own UPDATE of the game
(the last orders set DELAY) fails SQLAlchemy's version check with StaleDataError.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Callable

import pytest
from psycopg.errors import DeadlockDetected, LockNotAvailable, SerializationFailure
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from judge.store import engine as store_engine
from judge.store.conflicts import is_conflict
from judge.store.inbound import store_inbound
from judge.store.models_game import Game, OrderSet
from judge.store.models_mail import InboundMessage, OutboxMessage, Shunt
from judge.daemon.worker import Worker
from tests.judge.handlers import echo
from tests.judge.scheduler.driver import HOLDS
from tests.judge.commands.conftest import Seat, create_game, fill_game
from tests.judge.commands.harness import JUDGE, START, JudgeHarness
from tests.judge.storage import make_mail, migrated_store

LAST = "TURKEY"  # the other six powers' orders are in; TURKEY's mail completes the phase

Bump = Callable[[JudgeHarness, Session, int], None]


def bump_on_the_same_connection(judge: JudgeHarness, session: Session, game_id: int) -> None:
    """SQLite: another writer's change of the game.  SQLite admits one writer at a time (the
    worker's transaction holds BEGIN IMMEDIATE), so no second connection can commit inside
    this transaction; a second ORM session on the same connection makes the change the
    worker's session has not seen.  It is rolled back with the failed attempt."""
    with Session(bind=session.connection()) as other:
        game = other.get(Game, game_id)
        game.description = (game.description or "") + " changed by a scheduler pass"
        other.flush()


def bump_from_another_connection(judge: JudgeHarness, session: Session, game_id: int) -> None:
    """PostgreSQL: another transaction on its own connection changes the game and commits."""
    with judge.store.unit_of_work() as other:
        game = other.get(Game, game_id)
        game.description = (game.description or "") + " changed by a scheduler pass"


def colliding_first_attempt(judge: JudgeHarness, bump: Bump) -> list[int]:
    """Make the worker's first attempt read the game, then have it changed under it."""
    real = judge.worker.process
    calls: list[int] = []

    def process(session, inbound, now):
        calls.append(inbound.inbound_id)
        if len(calls) == 1:
            game = session.execute(select(Game)).scalar_one()  # this attempt now holds version v
            bump(judge, session, game.id)
        return real(session, inbound, now)

    judge.worker.process = process
    judge.worker.conflict_backoff = lambda attempt: 0.001
    return calls


def all_but_the_last_ordered(judge: JudgeHarness) -> int:
    """Store six powers' orders; the game's version before the last power's mail."""
    with judge.session() as session:
        game = session.execute(select(Game)).scalar_one()
        for power, orders in HOLDS.items():
            if power != LAST:
                session.add(OrderSet(game_id=game.id, phase=game.phase, power=power, orders=orders,
                                     submitted_at=START))
        return game.version


def assert_processed_once(judge: JudgeHarness, calls: list[int], version_before: int, bumps_kept: int) -> None:
    assert len(calls) == 2 and calls[0] == calls[1], calls
    with judge.session() as session:
        inbound = session.get(InboundMessage, calls[0])
        assert inbound.status == "processed"
        assert session.execute(select(func.count()).select_from(Shunt)).scalar_one() == 0
        replies = session.execute(
            select(OutboxMessage.kind).where(OutboxMessage.inbound_id == inbound.id)).scalars().all()
        assert replies == ["reply"]
        game = session.execute(select(Game)).scalar_one()
        assert game.delay == 1  # the last orders' settle window, set once
        # One UPDATE of the game by the mail, plus the other writer's when it was committed.
        assert game.version == version_before + 1 + bumps_kept
        stored = session.execute(select(OrderSet.orders).where(OrderSet.power == LAST)).scalar_one()
        assert sorted(stored) == sorted(HOLDS[LAST])


def send_last_orders(judge: JudgeHarness, seat: Seat) -> str:
    return judge.send(seat.address, seat.signon + "\n" + "\n".join(HOLDS[LAST]) + "\n").reply.body


def test_sqlite_mail_colliding_with_a_game_change_is_retried_and_applied_once(judge, started, caplog):
    version = all_but_the_last_ordered(judge)
    calls = colliding_first_attempt(judge, bump_on_the_same_connection)
    with caplog.at_level(logging.WARNING, logger="judge.daemon.worker"):
        reply = send_last_orders(judge, started[LAST])
    assert "ERROR" not in reply, reply
    assert "concurrency conflict on attempt 1 (StaleDataError" in caplog.text
    assert_processed_once(judge, calls, version, bumps_kept=0)  # the bump died with attempt 1


@pytest.mark.postgres
def test_postgresql_mail_colliding_with_a_game_change_is_retried_and_applied_once(tmp_path, postgres_url, caplog):
    judge = JudgeHarness(tmp_path, url=postgres_url)
    try:
        create_game(judge)
        seats = fill_game(judge)
        version = all_but_the_last_ordered(judge)
        calls = colliding_first_attempt(judge, bump_from_another_connection)
        with caplog.at_level(logging.WARNING, logger="judge.daemon.worker"):
            reply = send_last_orders(judge, seats[LAST])
        assert "ERROR" not in reply, reply
        assert "concurrency conflict on attempt 1 (StaleDataError" in caplog.text
        assert_processed_once(judge, calls, version, bumps_kept=1)
    finally:
        judge.close()


def _seed_game(store) -> int:
    with store.unit_of_work() as session:
        game = Game(name="g1", master_password_hash="x", created_at=START)
        session.add(game)
        session.flush()
        return game.id


def _put(store) -> int:
    return store_inbound(store, make_mail(subject="hello"), mail_from="anna@example.net",
                         rcpt_to=[JUDGE.address], source="smtp", now=START).inbound_id


def test_a_conflict_every_time_is_shunted_after_the_last_attempt(tmp_path):
    store = migrated_store(tmp_path)
    try:
        game_id = _seed_game(store)
        inbound_id = _put(store)
        calls: list[int] = []

        def always_collides(session, inbound, now):
            calls.append(inbound.inbound_id)
            game = session.get(Game, game_id)
            with Session(bind=session.connection()) as other:  # another writer, every time
                other.get(Game, game_id).description = "theirs"
                other.flush()
            game.description = "mine"
            session.flush()
            return echo(session, inbound, now)

        waits: list[int] = []
        worker = Worker(store, JUDGE, always_collides, clock=lambda: START, conflict_attempts=5,
                        conflict_backoff=lambda attempt: waits.append(attempt) or 0.0)
        assert worker.process_pending() == 1
        assert calls == [inbound_id] * 5 and waits == [1, 2, 3, 4]
        with store.unit_of_work() as session:
            assert session.get(InboundMessage, inbound_id).status == "shunted"
            [shunt] = session.execute(select(Shunt)).scalars().all()
            assert "StaleDataError" in shunt.traceback
            [notice] = session.execute(select(OutboxMessage)).scalars().all()  # the sender is told, nothing else
            assert b"kept being changed by others" in notice.raw and b"Nothing in it was done" in notice.raw
            assert session.get(Game, game_id).description == ""
    finally:
        store.dispose()


def test_other_failures_are_shunted_at_once(tmp_path):
    store = migrated_store(tmp_path)
    try:
        _put(store)
        calls: list[int] = []

        def broken(session, inbound, now):
            calls.append(inbound.inbound_id)
            raise OperationalError("SELECT nothing", {}, sqlite3.OperationalError("no such table: nothing"))

        assert Worker(store, JUDGE, broken, clock=lambda: START, conflict_backoff=lambda a: 0.0).process_pending() == 1
        assert len(calls) == 1
        with store.unit_of_work() as session:
            assert session.execute(select(InboundMessage.status)).scalar_one() == "shunted"
    finally:
        store.dispose()


def test_sqlite_lock_held_by_another_process_is_waited_out(tmp_path, monkeypatch):
    """Another connection (as another process would) holds SQLite's write lock past the busy
    timeout: the first attempt fails with "database is locked", the next one succeeds."""
    monkeypatch.setattr(store_engine, "SQLITE_BUSY_TIMEOUT_MS", 50)
    store = migrated_store(tmp_path)
    holder = sqlite3.connect(tmp_path / "judge.db", isolation_level=None)
    try:
        inbound_id = _put(store)
        holder.execute("BEGIN IMMEDIATE")
        released: list[int] = []

        def release_then_wait(attempt: int) -> float:
            released.append(attempt)
            holder.execute("COMMIT")
            return 0.0

        worker = Worker(store, JUDGE, echo, clock=lambda: START, conflict_backoff=release_then_wait)
        assert worker.process_pending() == 1
        assert released == [1]
        with store.unit_of_work() as session:
            assert session.get(InboundMessage, inbound_id).status == "processed"
            assert session.execute(select(OutboxMessage.inbound_id)).scalars().all() == [inbound_id]
            assert session.execute(select(func.count()).select_from(Shunt)).scalar_one() == 0
    finally:
        holder.close()
        store.dispose()


@pytest.mark.parametrize("error, conflict", [
    (StaleDataError("UPDATE statement on table 'game' expected to update 1 row(s); 0 were matched."), True),
    (OperationalError("UPDATE game", {}, SerializationFailure("could not serialize access")), True),
    (OperationalError("UPDATE game", {}, DeadlockDetected("deadlock detected")), True),
    (OperationalError("SELECT ... NOWAIT", {}, LockNotAvailable("could not obtain lock")), True),
    (OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database is locked")), True),
    (OperationalError("SELECT x", {}, sqlite3.OperationalError("no such table: x")), False),
    (ValueError("bad input"), False),
])
def test_which_errors_are_concurrency_conflicts(error, conflict):
    assert is_conflict(error) is conflict
    try:  # also when a handler raised something else while the conflict was being handled
        try:
            raise error
        except Exception as inner:
            raise RuntimeError("while handling") from inner
    except RuntimeError as outer:
        assert is_conflict(outer) is conflict
