"""``judge outbox list`` / ``retry``: outgoing mail refused for good by a real relay
(aiosmtpd sink) is listed, queued again, and then delivered; the sender's log says
"written to file" when there is no relay."""

from __future__ import annotations

import logging

from sqlalchemy import select

from judge.cli import main
from judge.edge.smtp_out import MaildirTransport, OutboxSender, RelayTransport
from judge.store.models_mail import OutboxMessage
from tests.judge.storage import migrated_store
from tests.judge.test_smtp_out import START, Clock, queue


def test_a_mail_refused_for_good_is_listed_retried_and_then_delivered(tmp_path, monkeypatch, capsys, smtp_sink):
    monkeypatch.setenv("JUDGE_STORE_URL", f"sqlite:///{tmp_path / 'judge.db'}")
    store = migrated_store(tmp_path)
    refused = queue(store, "anna@example.net", subject="g1 S1901M results")
    clock = Clock(START)
    sender = OutboxSender(store, RelayTransport(smtp_sink.host, smtp_sink.port), max_attempts=3, clock=clock)
    smtp_sink.refuse_next(1, "550 5.1.1 mailbox unavailable")
    assert sender.send_due() == 0  # refused for good at the first attempt
    waiting = queue(store, "bob@example.net", subject="g1: paused")  # queued, not yet attempted

    assert main(["outbox", "list"]) == 0
    listing = capsys.readouterr().out
    assert listing.startswith(f"{refused}\t") and listing.count("\n") == 1
    assert "failed\t1 attempts\tresults\tto anna@example.net\tsubject 'g1 S1901M results'" in listing
    assert "550" in listing
    assert main(["outbox", "list", "--queued"]) == 0
    assert f"\n{waiting}\t" in capsys.readouterr().out

    assert main(["outbox", "retry", "x"]) == 2
    assert "'x' is not an outgoing mail's number" in capsys.readouterr().err
    assert main(["outbox", "retry", "99"]) == 1
    assert "there is no outgoing mail 99" in capsys.readouterr().err
    assert main(["outbox", "retry", str(waiting)]) == 1
    assert "has not failed (queued): it is still queued" in capsys.readouterr().err

    assert main(["outbox", "retry", str(refused)]) == 0
    assert f"outgoing mail {refused} to anna@example.net queued again" in capsys.readouterr().out
    assert main(["outbox", "retry", str(refused)]) == 1  # queued now, not failed
    capsys.readouterr()
    clock.now = START.replace(year=2027)  # the retried row is due "now" (wall clock)
    assert sender.send_due() == 2
    assert sorted(m.rcpt_tos[0] for m in smtp_sink.wait_for(2)) == ["anna@example.net", "bob@example.net"]
    with store.unit_of_work() as session:
        row = session.execute(select(OutboxMessage).where(OutboxMessage.id == refused)).scalar_one()
        assert (row.status, row.attempts) == ("sent", 1)
    assert main(["outbox", "list"]) == 0
    assert capsys.readouterr().out.strip() == "no failed outgoing mail"
    store.dispose()


def test_without_a_relay_the_log_says_written_to_file(tmp_path, caplog):
    store = migrated_store(tmp_path)
    queue(store, "anna@example.net")
    sender = OutboxSender(store, MaildirTransport(tmp_path / "outbox"), clock=Clock(START))
    with caplog.at_level(logging.INFO, logger="judge"):
        assert sender.send_due() == 1
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "for anna@example.net written to file" in said and str(tmp_path / "outbox" / "new") in said
    assert "not sent: no [outbound] relay_host" in said and "sent to" not in said
    store.dispose()
