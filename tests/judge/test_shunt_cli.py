from datetime import datetime, timezone

from sqlalchemy import select

from judge.cli import main
from judge.config import JudgeSettings
from judge.store.inbound import store_inbound
from judge.store.models_mail import InboundMessage, Shunt
from judge.daemon.worker import Worker
from tests.judge.handlers import echo
from tests.judge.storage import make_mail, migrated_store

NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")


def test_shunt_list_and_retry(tmp_path, monkeypatch, capsys):
    db = tmp_path / "judge.db"
    monkeypatch.setenv("JUDGE_STORE_URL", f"sqlite:///{db}")
    store = migrated_store(tmp_path)
    store_inbound(store, make_mail(subject="CRASH me", sender="bob@example.net"),
                  mail_from="bob@example.net", rcpt_to=[], source="smtp", now=NOW)
    Worker(store, JUDGE, echo, clock=lambda: NOW).process_pending()

    assert main(["shunt", "list"]) == 0
    listing = capsys.readouterr().out
    assert "bob@example.net" in listing and "DeliberateFailure" in listing
    with store.unit_of_work() as session:
        shunt_id = session.execute(select(Shunt.id)).scalar_one()
    assert listing.startswith(f"{shunt_id}\t")

    assert main(["shunt", "retry", "99"]) == 1
    assert "no shunt 99" in capsys.readouterr().err
    assert main(["shunt", "retry", "x1"]) == 2
    assert "'x1'" in capsys.readouterr().err

    assert main(["shunt", "retry", str(shunt_id)]) == 0
    assert "queued again" in capsys.readouterr().out
    assert main(["shunt", "retry", str(shunt_id)]) == 1
    assert "already retried" in capsys.readouterr().err
    assert main(["shunt", "list"]) == 0
    assert capsys.readouterr().out.strip() == "no shunted messages"

    # The retried message fails again (same handler): a second shunt row, the first kept.
    assert Worker(store, JUDGE, echo, clock=lambda: NOW).process_pending() == 1
    with store.unit_of_work() as session:
        shunts = session.execute(select(Shunt).order_by(Shunt.id)).scalars().all()
        assert [s.retried for s in shunts] == [True, False]
        assert session.execute(select(InboundMessage.status)).scalar_one() == "shunted"
    assert main(["shunt", "list", "--all"]) == 0
    assert "retried" in capsys.readouterr().out
    store.dispose()


def test_retried_message_is_processed_when_the_cause_is_gone(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("JUDGE_STORE_URL", f"sqlite:///{tmp_path / 'judge.db'}")
    store = migrated_store(tmp_path)
    store_inbound(store, make_mail(subject="flaky"), mail_from="a@x.org", rcpt_to=[],
                  source="smtp", now=NOW)
    broken = {"yes": True}

    def flaky(session, inbound, now):
        if broken["yes"]:
            raise ConnectionError("backend away")
        return echo(session, inbound, now)

    Worker(store, JUDGE, flaky, clock=lambda: NOW).process_pending()
    broken["yes"] = False
    assert main(["shunt", "retry", "1"]) == 0
    assert Worker(store, JUDGE, flaky, clock=lambda: NOW).process_pending() == 1
    with store.unit_of_work() as session:
        assert session.execute(select(InboundMessage.status)).scalar_one() == "processed"
    store.dispose()


def test_shunt_commands_refuse_an_unmigrated_database(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("JUDGE_STORE_URL", f"sqlite:///{tmp_path / 'empty.db'}")
    assert main(["shunt", "list"]) == 1
    assert "judge db upgrade" in capsys.readouterr().err


def test_a_mail_another_worker_processed_is_not_shunted(tmp_path):
    """Worker A fails; while it rolls back, worker B claims the mail and processes it.
    A's shunt must not overwrite B's "processed" (issue 18.2)."""
    import threading

    store = migrated_store(tmp_path)
    store_inbound(store, make_mail(subject="contended"), mail_from="a@x.org", rcpt_to=[], source="smtp", now=NOW)
    other = Worker(store, JUDGE, echo, clock=lambda: NOW)
    helper: list[threading.Thread] = []

    def fails_while_b_waits(session, inbound, now):
        thread = threading.Thread(target=other.process_next)
        thread.start()
        helper.append(thread)
        while store._turns.waiting < 1:  # B queues for the write turn A holds
            threading.Event().wait(0.005)
        raise RuntimeError("A's transaction fails")

    assert Worker(store, JUDGE, fails_while_b_waits, clock=lambda: NOW).process_next()
    helper[0].join(timeout=10)
    with store.unit_of_work() as session:
        assert session.execute(select(InboundMessage.status)).scalar_one() == "processed"
        assert session.execute(select(Shunt)).scalars().all() == []
    store.dispose()


def test_retry_refuses_a_mail_that_was_processed(tmp_path, monkeypatch, capsys):
    """A shunt row whose mail was processed anyway (as the unguarded shunt could leave it)."""
    monkeypatch.setenv("JUDGE_STORE_URL", f"sqlite:///{tmp_path / 'judge.db'}")
    store = migrated_store(tmp_path)
    store_inbound(store, make_mail(subject="twice?"), mail_from="a@x.org", rcpt_to=[], source="smtp", now=NOW)
    Worker(store, JUDGE, echo, clock=lambda: NOW).process_pending()
    with store.unit_of_work() as session:
        row = session.execute(select(InboundMessage)).scalar_one()
        row.status = "shunted"
        session.add(Shunt(inbound_id=row.id, traceback="RuntimeError: x", created_at=NOW))
    assert main(["shunt", "retry", "1"]) == 1
    assert "was processed at 2026-05-01 10:00:00Z" in capsys.readouterr().err
    with store.unit_of_work() as session:
        assert session.execute(select(InboundMessage.status)).scalar_one() == "shunted"
        assert session.execute(select(Shunt.retried)).scalar_one() is False
    store.dispose()


def _quoting_failure(session, inbound, now):
    """A handler whose error quotes the mail's lines, as a careless exception message would."""
    raise ValueError(f"cannot read {inbound.raw.decode()!r}")


def test_shunt_list_masks_passwords_quoted_in_the_error(tmp_path, monkeypatch, capsys, caplog):
    monkeypatch.setenv("JUDGE_STORE_URL", f"sqlite:///{tmp_path / 'judge.db'}")
    store = migrated_store(tmp_path)
    store_inbound(store, make_mail(subject="SIGNON england@g1 subjsecret", body="SIGNON france@g1 hunter2\n",
                                   sender="bob@example.net"),
                  mail_from="bob@example.net", rcpt_to=[], source="smtp", now=NOW)
    Worker(store, JUDGE, _quoting_failure, clock=lambda: NOW).process_pending()

    assert main(["shunt", "list", "--traceback"]) == 0
    listing = capsys.readouterr().out
    assert "cannot read" in listing and "france@g1" in listing
    assert "hunter2" not in listing and "subjsecret" not in listing
    logged = "\n".join(record.getMessage() for record in caplog.records if record.name == "judge.daemon.worker")
    assert "shunted" in logged and "cannot read" in logged
    assert "hunter2" not in logged and "subjsecret" not in logged
    store.dispose()
