import threading
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.orm.exc import StaleDataError

from judge.store.inbound import content_digest, header_message_id, store_inbound
from judge.store.models_game import Game, Membership, OrderSet
from judge.store.models_mail import InboundMessage
from judge.store.passwords import hash_password, verify_password
from tests.judge.storage import make_mail

NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)


def test_sqlite_runs_in_wal_mode_with_busy_timeout(store):
    with store.engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA busy_timeout")).scalar() >= 10_000
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_datetimes_come_back_aware_utc(store):
    local = datetime(2026, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    with store.unit_of_work() as session:
        session.add(Game(name="g1", master_password_hash="x", created_at=local, deadline=local))
    with store.unit_of_work() as session:
        game = session.execute(select(Game)).scalar_one()
        assert game.deadline == local and game.deadline.tzinfo is not None
        assert game.deadline.utcoffset() == timedelta(0)


def test_naive_datetimes_are_refused(store):
    with pytest.raises(Exception, match="naive datetime"):
        with store.unit_of_work() as session:
            session.add(Game(name="g1", master_password_hash="x", created_at=datetime(2026, 1, 1)))


def test_unit_of_work_rolls_back_on_error(store):
    with pytest.raises(RuntimeError):
        with store.unit_of_work() as session:
            session.add(Game(name="g1", master_password_hash="x", created_at=NOW))
            session.flush()
            raise RuntimeError("boom")
    with store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(Game)) == 0


def test_same_message_id_is_stored_once(store):
    raw = make_mail(message_id="<same@example.net>")
    first = store_inbound(store, raw, mail_from="a@x", rcpt_to=["j@x"], source="smtp", now=NOW)
    resent = b"Received: from relay2 by mx; Fri, 1 May 2026\r\n" + raw
    second = store_inbound(store, resent, mail_from="a@x", rcpt_to=["j@x"], source="smtp", now=NOW)
    assert first.new and not second.new and first.inbound_id == second.inbound_id
    with store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 1


def test_mail_without_message_id_is_recognised_by_digest(store):
    raw = make_mail(message_id=None, body="F PAR - BUR\n")
    redelivered = b"Received: from a by b;\r\n\tFri, 1 May 2026\r\nDelivered-To: j@x\r\n" + raw
    other = make_mail(message_id=None, body="F PAR - PIC\n")
    assert header_message_id(raw) is None
    assert content_digest(raw) == content_digest(redelivered) != content_digest(other)
    ids = [store_inbound(store, r, mail_from="a@x", rcpt_to=[], source="smtp", now=NOW)
           for r in (raw, redelivered, other)]
    assert [s.new for s in ids] == [True, False, True]
    assert ids[0].inbound_id == ids[1].inbound_id != ids[2].inbound_id


def test_concurrent_deliveries_of_one_mail_store_one_row(store):
    raw = make_mail()
    results = []

    def deliver():
        results.append(store_inbound(store, raw, mail_from="a@x", rcpt_to=[], source="smtp", now=NOW))

    threads = [threading.Thread(target=deliver) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r.new for r in results) == 1
    assert len({r.inbound_id for r in results}) == 1


def test_game_version_guards_concurrent_updates(store):
    with store.unit_of_work() as session:
        session.add(Game(name="g1", master_password_hash="x", created_at=NOW, phase="S1901M"))
    first = store.sessions()
    second = store.sessions()
    try:
        # Each reads in its own transaction (SQLite transactions here are BEGIN IMMEDIATE,
        # so they cannot overlap); commit keeps the loaded state (expire_on_commit=False).
        game_a = first.execute(select(Game)).scalar_one()
        first.commit()
        game_b = second.execute(select(Game)).scalar_one()
        second.commit()
        game_a.phase = "F1901M"
        first.commit()
        game_b.phase = "F1901M"
        with pytest.raises(StaleDataError):
            second.commit()
    finally:
        first.close()
        second.close()
    with store.unit_of_work() as session:
        assert session.execute(select(Game.version)).scalar_one() == 2


def test_order_set_is_unique_per_game_phase_power(store):
    from sqlalchemy.exc import IntegrityError

    with store.unit_of_work() as session:
        game = Game(name="g1", master_password_hash="x", created_at=NOW)
        session.add(game)
        session.flush()
        session.add(Membership(game_id=game.id, role="player", power="FRANCE", address="a@x",
                               password_hash=hash_password("pw"), joined_at=NOW))
        session.add(OrderSet(game_id=game.id, phase="S1901M", power="FRANCE", orders=["A PAR - BUR"],
                             submitted_at=NOW))
    with pytest.raises(IntegrityError):
        with store.unit_of_work() as session:
            session.add(OrderSet(game_id=1, phase="S1901M", power="FRANCE", orders=[], submitted_at=NOW))


def test_passwords_are_salted_scrypt_hashes():
    first, second = hash_password("geheim"), hash_password("geheim")
    assert first != second and "geheim" not in first and first.startswith("scrypt$")
    assert verify_password("geheim", first) and verify_password("geheim", second)
    assert not verify_password("Geheim", first)
    assert not verify_password("geheim", "not a hash")


def test_message_id_is_read_from_a_folded_or_odd_header():
    assert header_message_id(b"From: a@x\r\nMessage-ID:\r\n <abc@x.org>\r\n\r\nbody") == "abc@x.org"
    assert header_message_id(b"message-id: <q@x>\nX-Message-ID: <other@x>\n\nbody") == "q@x"
    assert header_message_id(b"X-Message-ID: <other@x>\n\nMessage-ID: <in-body@x>\n") is None


def test_a_reading_transaction_takes_no_write_lock(store):
    """Store.reading (the scheduler's and the bot process's polls): a writer goes on while
    it is open, and it sees what was committed before it began."""
    with store.unit_of_work() as session:
        session.add(Game(name="g1", master_password_hash="x", created_at=NOW))
    with store.reading() as reader:
        assert reader.execute(select(func.count()).select_from(Game)).scalar() == 1
        done = threading.Event()

        def write() -> None:
            with store.unit_of_work() as session:
                session.add(Game(name="g2", master_password_hash="x", created_at=NOW))
            done.set()

        writer = threading.Thread(target=write)
        writer.start()
        assert done.wait(5), "the writer waited for the reader"
        writer.join()
        assert reader.execute(select(func.count()).select_from(Game)).scalar() == 1  # its own snapshot
    with store.reading() as reader:
        assert reader.execute(select(func.count()).select_from(Game)).scalar() == 2
