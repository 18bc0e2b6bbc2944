"""The daemon's worker on SQLite processes the mails waiting in one transaction
(``Worker.process_batch``): every mail still takes effect wholly or not at all, a failing
one rolls the batch back and is shunted alone, the others are taken again, and each gets
its reply.  The mails are read and prepared by the hook before the write turn."""

from __future__ import annotations

import contextlib
import email
import sqlite3
from datetime import datetime, timezone
from email.policy import default

from sqlalchemy import event, select

from judge.config import JudgeSettings
from judge.store.engine import READ_ONLY_OPTION
from judge.store.inbound import store_inbound
from judge.store.models_game import Game
from judge.store.models_mail import InboundMessage, OutboxMessage, Shunt
from judge.daemon.worker import Worker
from tests.judge.handlers import DeliberateFailure, echo
from tests.judge.storage import make_mail

NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")


def put(store, subject: str) -> int:
    return store_inbound(store, make_mail(subject=subject), mail_from="anna@example.net",
                         rcpt_to=["judge@example.org"], source="smtp", now=NOW).inbound_id


def rows(store, model):
    with store.unit_of_work() as session:
        return session.execute(select(model).order_by(model.id)).scalars().all()


def writes_a_game_then_echoes(session, inbound, now):
    """Each mail creates a game named by its subject; CRASH fails after that write."""
    session.add(Game(name=inbound.subject.split()[-1], master_password_hash="x", created_at=now))
    session.flush()
    return echo(session, inbound, now)


def writes(store) -> list[int]:
    """One item per committed transaction that could write (reads before the turn left out)."""
    commits: list[int] = []
    event.listen(store.engine, "commit", lambda connection: None if connection.get_execution_options().get(
        READ_ONLY_OPTION) else commits.append(1))
    return commits


def test_waiting_mails_share_one_transaction(store):
    ids = [put(store, "game one"), put(store, "game two"), put(store, "game three")]
    commits = writes(store)
    processed: list[int] = []
    worker = Worker(store, JUDGE, writes_a_game_then_echoes, clock=lambda: NOW,
                    on_processed=lambda: processed.append(1), batch_seconds=60)
    assert worker.process_batch() == 3
    assert len(commits) == 2 and processed == [1]  # the starts counted in one commit, the three mails in the next
    assert {m.id: m.status for m in rows(store, InboundMessage)} == dict.fromkeys(ids, "processed")
    assert [game.name for game in rows(store, Game)] == ["one", "two", "three"]
    assert sorted(row.inbound_id for row in rows(store, OutboxMessage)) == ids
    assert worker.process_batch() == 0


def test_a_failing_mail_rolls_its_batch_back_and_is_shunted_alone_and_the_others_are_taken_again(store):
    ids = [put(store, "game one"), put(store, "CRASH two"), put(store, "game three")]
    processed: list[int] = []
    worker = Worker(store, JUDGE, writes_a_game_then_echoes, clock=lambda: NOW,
                    on_processed=lambda: processed.append(1), batch_seconds=60)
    assert worker.process_batch() == 1  # the shunted mail
    assert processed == [1]  # the sender wakes for the notice
    assert [(m.status, m.attempts) for m in rows(store, InboundMessage)] == [
        ("received", 0), ("shunted", 1), ("received", 0)]  # "one" rolled back with the batch: its count too
    assert rows(store, Game) == []
    [shunt] = rows(store, Shunt)
    assert shunt.inbound_id == ids[1] and DeliberateFailure.__name__ in shunt.traceback
    assert worker.process_batch() == 2  # batched again
    assert [game.name for game in rows(store, Game)] == ["one", "three"]  # "two" rolled back with its mail
    replies = {row.inbound_id: row.raw for row in rows(store, OutboxMessage)}
    assert sorted(replies) == ids  # the crash's sender is told nothing was done
    assert "Nothing in it was done." in email.message_from_bytes(replies[ids[1]], policy=default).get_content()
    assert attempts(store) == dict.fromkeys(ids, 1)
    assert worker.process_batch() == 0


def test_a_batch_takes_at_most_its_limit_oldest_first(store):
    ids = [put(store, f"game g{n}") for n in range(5)]
    worker = Worker(store, JUDGE, writes_a_game_then_echoes, clock=lambda: NOW, batch_seconds=60)
    assert [worker.process_batch(2), worker.process_batch(2), worker.process_batch(2)] == [2, 2, 1]
    assert [row.inbound_id for row in rows(store, OutboxMessage)] == ids


def test_a_batch_ends_when_another_thread_waits_to_write(store):
    import threading

    ids = [put(store, f"game g{n}") for n in range(4)]
    intake_waits = threading.Event()
    written = threading.Event()

    def hook(session, inbound, now):
        if not intake_waits.is_set():  # the first mail: another thread now wants the turn
            intake_waits.set()
            threading.Thread(target=lambda: (put(store, "game late"), written.set())).start()
            while not store.writers_waiting():
                threading.Event().wait(0.001)
        return writes_a_game_then_echoes(session, inbound, now)

    worker = Worker(store, JUDGE, hook, clock=lambda: NOW, batch_seconds=60)
    assert worker.process_batch(8) == 1  # the first mail only: the writer waiting goes next
    assert written.wait(30)
    assert worker.process_batch(8) == 3  # the three left (counted with the first) ...
    assert worker.process_batch(8) == 1  # ... and the one stored meanwhile
    assert [row.inbound_id for row in rows(store, OutboxMessage)] == [*ids, ids[-1] + 1]


def marks_game_ready(session, inbound, now):
    """A subject with "ready" makes game 42 ready to process after the commit; CRASH then fails."""
    from judge.store.schedule import PROCESS_AFTER_COMMIT

    if "ready" in inbound.subject:
        session.info.setdefault(PROCESS_AFTER_COMMIT, set()).add(42)
    return writes_a_game_then_echoes(session, inbound, now)


def test_a_mail_that_makes_a_phase_ready_ends_the_batch_and_the_phase_is_processed_after_its_commit(store):
    for subject in ("game a", "ready b", "game c"):
        put(store, subject)
    processed_after: list[frozenset[int]] = []
    worker = Worker(store, JUDGE, marks_game_ready, clock=lambda: NOW, batch_seconds=60,
                    after_commit=lambda games, now: processed_after.append(games))
    assert worker.process_batch() == 2  # the next mail must find the phase processed
    assert processed_after == [frozenset({42})]
    assert worker.process_batch() == 1 and processed_after == [frozenset({42})]


def test_what_a_failed_mail_made_ready_is_rolled_back_with_it(store):
    put(store, "game first")
    put(store, "ready CRASH")
    put(store, "game fine")
    processed_after: list[frozenset[int]] = []
    worker = Worker(store, JUDGE, marks_game_ready, clock=lambda: NOW, batch_seconds=60,
                    after_commit=lambda games, now: processed_after.append(games))
    assert worker.process_batch() == 1  # the batch rolled back, "ready CRASH" shunted
    assert worker.process_batch() == 2
    assert processed_after == []
    assert [game.name for game in rows(store, Game)] == ["first", "fine"]


def test_a_failing_first_mail_is_shunted_alone_and_the_rest_wait_for_the_next_batch(store):
    """A failure rolls the transaction back, and the mail is shunted as a mail on its own is."""
    ids = [put(store, "CRASH first"), put(store, "game two"), put(store, "game three")]
    worker = Worker(store, JUDGE, writes_a_game_then_echoes, clock=lambda: NOW, batch_seconds=60)
    assert worker.process_batch() == 1
    assert [(m.status, m.attempts) for m in rows(store, InboundMessage)] == [
        ("shunted", 1), ("received", 0), ("received", 0)]  # the two never started: their counts taken back
    [shunt] = rows(store, Shunt)
    assert shunt.inbound_id == ids[0] and DeliberateFailure.__name__ in shunt.traceback
    [notice] = rows(store, OutboxMessage)
    assert notice.inbound_id == ids[0]
    assert "Nothing in it was done." in email.message_from_bytes(notice.raw, policy=default).get_content()
    assert worker.process_batch() == 2
    assert [game.name for game in rows(store, Game)] == ["two", "three"]
    assert attempts(store) == dict.fromkeys(ids, 1)


def attempts(store) -> dict[int, int]:
    return {m.id: m.attempts for m in rows(store, InboundMessage)}


def test_the_starts_of_a_batch_are_counted_and_committed_before_it_runs(store, tmp_path):
    """What another connection sees while the batch runs is what a death would leave."""
    ids = [put(store, f"game g{n}") for n in range(3)]
    seen: list[dict[int, int]] = []

    def hook(session, inbound, now):
        with contextlib.closing(sqlite3.connect(store.engine.url.database, timeout=30)) as other:
            seen.append(dict(other.execute("SELECT id, attempts FROM inbound_message").fetchall()))
        return writes_a_game_then_echoes(session, inbound, now)

    worker = Worker(store, JUDGE, hook, clock=lambda: NOW, batch_seconds=60)
    assert worker.process_batch() == 3
    assert seen == [dict.fromkeys(ids, 1)] * 3
    assert attempts(store) == dict.fromkeys(ids, 1)


def test_the_mails_a_batch_did_not_reach_stay_counted_for_the_next_and_a_commit_counts_the_next_batch(store):
    """The count of a batch's starts costs no transaction of its own once the worker is busy."""
    ids = [put(store, f"game g{n}") for n in range(4)]
    commits = writes(store)
    worker = Worker(store, JUDGE, writes_a_game_then_echoes, clock=lambda: NOW, batch_seconds=0)
    assert worker.process_batch(3) == 1  # counted three; out of time after the first
    assert len(commits) == 2  # the count, the batch
    assert attempts(store) == {ids[0]: 1, ids[1]: 1, ids[2]: 1, ids[3]: 0}
    del commits[:]
    assert worker.process_batch(3) == 1  # the second, counted already
    assert worker.process_batch(3) == 1  # the third; its commit counts the fourth
    assert len(commits) == 2  # one per batch
    assert attempts(store) == dict.fromkeys(ids, 1)
    worker.release_counts()  # e.g. the worker stops: the fourth was never started
    assert attempts(store) == {ids[0]: 1, ids[1]: 1, ids[2]: 1, ids[3]: 0}
    assert worker.process_batch(3) == 1
    assert [row.inbound_id for row in rows(store, OutboxMessage)] == ids
    assert attempts(store) == dict.fromkeys(ids, 1)


def test_a_worker_that_stops_gives_back_the_counts_of_mails_it_did_not_start(store):
    import threading

    ids = [put(store, f"game g{n}") for n in range(3)]
    stop = threading.Event()
    worker = Worker(store, JUDGE, writes_a_game_then_echoes, clock=lambda: NOW, batch_seconds=0,
                    on_processed=stop.set)
    worker.run(stop, threading.Event(), poll_seconds=0.01)
    assert attempts(store) == {ids[0]: 1, ids[1]: 0, ids[2]: 0}
    assert [m.status for m in rows(store, InboundMessage)] == ["processed", "received", "received"]


def test_a_mail_started_before_is_taken_alone_and_the_mails_after_it_wait(store):
    """After a death the mails of the dead batch are each counted once; taken one at a
    time, only the one that kills the worker is counted again (at its own starts)."""
    ids = [put(store, f"game g{n}") for n in range(4)]
    with store.engine.begin() as connection:  # a batch of the first three died
        connection.execute(InboundMessage.__table__.update()
                           .where(InboundMessage.id.in_(ids[:3])).values(attempts=1))
    worker = Worker(store, JUDGE, writes_a_game_then_echoes, clock=lambda: NOW, batch_seconds=60)
    assert [worker.process_batch(), worker.process_batch(), worker.process_batch()] == [1, 1, 1]
    assert attempts(store) == {ids[0]: 2, ids[1]: 2, ids[2]: 2, ids[3]: 0}
    assert worker.process_batch() == 1  # the never-started one: batched again
    assert attempts(store) == {ids[0]: 2, ids[1]: 2, ids[2]: 2, ids[3]: 1}
    assert [row.inbound_id for row in rows(store, OutboxMessage)] == ids


def test_a_batch_rolled_back_by_a_conflict_gets_its_counts_back(store):
    """No mail of it died: the first is then retried alone, the others batched again."""
    import sqlite3 as sqlite

    from sqlalchemy.exc import OperationalError

    ids = [put(store, f"game g{n}") for n in range(3)]
    collided: list[int] = []

    def collides_once(session, inbound, now):
        if inbound.inbound_id == ids[1] and not collided:
            collided.append(1)
            raise OperationalError("UPDATE game", {}, sqlite.OperationalError("database is locked"))
        return writes_a_game_then_echoes(session, inbound, now)

    worker = Worker(store, JUDGE, collides_once, clock=lambda: NOW, batch_seconds=60)
    assert worker.process_batch() == 1  # the batch rolled back; its first mail alone
    assert attempts(store) == {ids[0]: 1, ids[1]: 0, ids[2]: 0}
    assert worker.process_batch() == 2
    assert attempts(store) == dict.fromkeys(ids, 1)
    assert [game.name for game in rows(store, Game)] == ["g0", "g1", "g2"]
