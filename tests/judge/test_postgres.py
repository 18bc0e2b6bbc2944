"""The judge on PostgreSQL, configured as deploy/README.md says: deploy/judge.toml.example as it
is and JUDGE_STORE_URL in the environment (judge.env)."""

import os
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm.exc import StaleDataError

from judge.config import JudgeSettings, load_settings
from judge.store.engine import Store
from judge.store.inbound import store_inbound
from judge.store.models_game import Game
from judge.store.models_mail import InboundMessage, OutboxMessage
from judge.store.schema import upgrade
from judge.daemon.worker import Worker
from tests.fixtures.judge_process import run_judge
from tests.judge.handlers import echo
from tests.judge.storage import make_mail
from tests.judge.test_migrations import schema_differences

pytestmark = pytest.mark.postgres
EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "judge.toml.example"
NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")


#: What deploy/README.md tells an operator to put in /etc/judge/judge.env (the fixture's
#: role ``judge`` has the password ``judge``).
GUIDE_URL = "postgresql+psycopg://judge:judge@localhost:{port}/judge"


@pytest.fixture
def example_config(postgres_server, tmp_path, monkeypatch):
    """The example file as it is, and JUDGE_STORE_URL as deploy/README.md's judge.env sets
    it (the port is the test server's); its database created on the test server."""
    url = make_url(GUIDE_URL.format(port=postgres_server.port))
    with psycopg.connect(postgres_server.admin_conninfo(), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{url.database}" OWNER "{url.username}"')
    config = tmp_path / "judge.toml"
    config.write_text(EXAMPLE.read_text())
    monkeypatch.setenv("JUDGE_STORE_URL", url.render_as_string(hide_password=False))
    return config


def test_judge_serves_on_postgres_with_the_example_store_settings(example_config, tmp_path,
                                                                   judge_runner, smtp_sink):
    env = {"JUDGE_JUDGE_DATA_DIR": str(tmp_path), "JUDGE_OUTBOUND_RELAY_HOST": smtp_sink.host,
           "JUDGE_OUTBOUND_RELAY_PORT": str(smtp_sink.port), "JUDGE_STORE_URL": os.environ["JUDGE_STORE_URL"],
           "JUDGE_WORKER_HANDLER": "tests.judge.handlers:echo",
           "JUDGE_WORKER_POLL_SECONDS": "0.2", "JUDGE_OUTBOUND_POLL_SECONDS": "0.2"}
    upgraded = run_judge(["db", "upgrade", "--config", str(example_config)], tmp_path, env)
    assert upgraded.returncode == 0, upgraded.stderr
    assert "postgresql+psycopg://judge:***@localhost" in upgraded.stdout

    settings = load_settings(example_config, environ={"JUDGE_STORE_URL": env["JUDGE_STORE_URL"]})
    store = Store(settings.store_url)
    assert store.dialect == "postgresql"
    assert schema_differences(store.engine) == []

    judge = judge_runner.start(tmp_path, env, args=["--config", str(example_config)])
    import smtplib

    first = make_mail(subject="on postgres", message_id="<pg1@example.net>")
    with smtplib.SMTP("127.0.0.1", judge.smtp_port, timeout=10) as client:
        client.sendmail("anna@example.net", ["judge@dip.example.org"], first)
        client.sendmail("anna@example.net", ["judge@dip.example.org"], first)  # redelivered
        client.sendmail("bob@example.net", ["judge@dip.example.org"], make_mail(subject="second",
                                                                                sender="bob@example.net"))
    mails = smtp_sink.wait_for(2, timeout=20)
    assert judge.terminate() == 0
    assert sorted(m.rcpt_tos for m in mails) == [("anna@example.net",), ("bob@example.net",)]
    # The envelope sender is the judge's VERP return path, judge+TOKEN@ (bounces, issue 27.3).
    assert all(m.mail_from.startswith("judge+") and m.mail_from.endswith("@dip.example.org") for m in mails)
    with store.unit_of_work() as session:
        assert session.execute(select(InboundMessage.status).order_by(InboundMessage.id)).scalars().all() \
            == ["processed", "processed"]
        assert session.execute(select(OutboxMessage.status)).scalars().all() == ["sent", "sent"]
    store.dispose()


def test_two_workers_on_postgres_process_each_message_once(postgres_url):
    store = Store(postgres_url)
    upgrade(store.engine)
    for n in range(30):
        store_inbound(store, make_mail(subject=f"m{n}"), mail_from="a@x.org", rcpt_to=[],
                      source="smtp", now=NOW)
    seen: list[int] = []
    lock = threading.Lock()

    def slow_echo(session, inbound, now):
        with lock:
            seen.append(inbound.inbound_id)
        time.sleep(0.01)
        return echo(session, inbound, now)

    workers = [Worker(store, JUDGE, slow_echo, clock=lambda: NOW) for _ in range(3)]
    counts: list[int] = []
    threads = [threading.Thread(target=lambda w=w: counts.append(w.process_pending())) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen) == list(range(1, 31))  # every message handed to the hook exactly once
    assert sum(counts) == 30 and all(c > 0 for c in counts)
    with store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 30
    store.dispose()


def test_game_version_guard_on_postgres(postgres_url):
    store = Store(postgres_url)
    upgrade(store.engine)
    with store.unit_of_work() as session:
        session.add(Game(name="g1", master_password_hash="x", created_at=NOW, phase="S1901M"))
    first, second = store.sessions(), store.sessions()
    try:
        game_a = first.execute(select(Game)).scalar_one()
        game_b = second.execute(select(Game)).scalar_one()
        game_a.phase = "F1901M"
        first.commit()
        game_b.phase = "F1901M"
        with pytest.raises(StaleDataError):
            second.commit()
    finally:
        first.close()
        second.close()
        store.dispose()


def test_one_mail_delivered_to_two_judges_at_once_is_stored_once(postgres_url):
    """A relay that gave up waiting for one judge's 250 delivers the mail again to another
    while the first is still committing: both stores race on the unique Message-ID, and
    both judges answer with the one row (deploy/SCALE-OUT.md)."""
    stores = [Store(postgres_url), Store(postgres_url)]  # two daemons: two engines, two pools
    upgrade(stores[0].engine)
    try:
        for n in range(20):
            raw = make_mail(subject=f"twice {n}", message_id=f"<twice{n}@example.net>")
            start = threading.Barrier(2)
            results = []

            def deliver(store: Store) -> None:
                start.wait()
                results.append(store_inbound(store, raw, mail_from="a@x.org", rcpt_to=[], source="smtp", now=NOW))

            threads = [threading.Thread(target=deliver, args=(store,)) for store in stores]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert len({r.inbound_id for r in results}) == 1 and sorted(r.new for r in results) == [False, True]
        with stores[0].unit_of_work() as session:
            assert session.scalar(select(func.count()).select_from(InboundMessage)) == 20
    finally:
        for store in stores:
            store.dispose()


def test_a_burst_of_concurrent_work_reuses_the_pools_connections(postgres_url):
    """Twelve threads at once, again and again (more than SQLAlchemy's default pool of 5):
    each connection is opened once and kept, not opened and closed per transaction."""
    from judge.store.engine import SERVER_POOL_SIZE

    store = Store(postgres_url)
    upgrade(store.engine)
    threads = 12
    assert threads <= SERVER_POOL_SIZE
    conninfo = make_url(postgres_url).set(drivername="postgresql").render_as_string(hide_password=False)
    sessions = "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
    with psycopg.connect(conninfo) as db:
        before = db.execute(sessions).fetchone()[0]
    barrier = threading.Barrier(threads)

    def work() -> None:
        for _ in range(5):
            barrier.wait(timeout=30)
            with store.unit_of_work() as session:
                session.execute(select(func.count()).select_from(Game)).scalar()
                time.sleep(0.02)  # all twelve hold a connection at once

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(60)
    with psycopg.connect(conninfo) as db:
        opened = db.execute(sessions).fetchone()[0] - before - 1  # less this count's own
    store.dispose()
    assert threads <= opened + 1  # every thread had a connection of its own at once...
    assert opened <= threads + 1  # ...opened once for the five rounds, not once a round
