"""The daemon in-process over real SMTP: intake, exactly once, loop guard, outbox files."""

import email
import smtplib
import time
from email.policy import default

import pytest
from sqlalchemy import func, select

from judge.config import load_settings
from judge.daemon.serve import Daemon, open_store
from judge.store.models_mail import InboundMessage, OutboxMessage
from tests.fixtures.ports import free_port
from tests.judge.handlers import echo
from tests.judge.storage import make_mail


@pytest.fixture
def daemon(tmp_path):
    settings = load_settings(None, environ={
        "JUDGE_JUDGE_DATA_DIR": str(tmp_path),
        "JUDGE_JUDGE_ADDRESS": "judge@example.org",
        "JUDGE_JUDGE_DOMAIN": "example.org",
        "JUDGE_SMTP_PORT": str(free_port()),
        "JUDGE_SMTP_MAX_MESSAGE_BYTES": "200000",
        "JUDGE_WORKER_POLL_SECONDS": "0.2",
        "JUDGE_OUTBOUND_POLL_SECONDS": "0.2",
    })
    store = open_store(settings, initialise_empty=True)
    daemon = Daemon(settings, store, process=echo)
    daemon.start()
    yield daemon
    daemon.stop()
    store.dispose()


def send(daemon, raw, mail_from="anna@example.net", rcpt="judge@example.org"):
    with smtplib.SMTP("127.0.0.1", daemon.settings.smtp.port, timeout=10) as client:
        client.ehlo("client.test")
        client.mail(mail_from)
        client.rcpt(rcpt)
        return client.data(raw)


def wait_processed(daemon, count, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        with daemon.store.unit_of_work() as session:
            done = session.scalar(select(func.count()).select_from(InboundMessage)
                                  .where(InboundMessage.status != "received"))
            queued = session.scalar(select(func.count()).select_from(OutboxMessage)
                                    .where(OutboxMessage.status == "queued"))
        if done >= count and queued == 0:
            return
        assert time.monotonic() < deadline, f"{done} of {count} messages processed"
        time.sleep(0.05)


def outbox_files(daemon):
    directory = daemon.settings.outbox_path / "new"
    if not directory.exists():
        return []
    return [email.message_from_bytes(p.read_bytes(), policy=default) for p in sorted(directory.iterdir())]


def test_smtp_conversation_stores_processes_and_replies(daemon):
    raw = make_mail(subject="signon", message_id="<q1@example.net>")
    code, text = send(daemon, raw)
    assert code == 250 and b"stored as #1" in text
    wait_processed(daemon, 1)
    with daemon.store.unit_of_work() as session:
        stored = session.execute(select(InboundMessage)).scalar_one()
        assert stored.raw == raw
        assert (stored.mail_from, stored.rcpt_to, stored.source) == ("anna@example.net", ["judge@example.org"], "smtp")
    [reply] = outbox_files(daemon)
    assert reply["To"] == "anna@example.net"
    assert reply["Subject"] == "Re: signon"
    assert reply["In-Reply-To"] == "<q1@example.net>"
    assert reply["Auto-Submitted"] == "auto-replied"
    assert reply["Message-ID"].endswith("@example.org>")
    assert reply["From"].addresses[0].addr_spec == "judge@example.org"
    assert reply.get_content() == "processed #1\n"


def test_redelivered_message_id_is_processed_once(daemon):
    raw = make_mail(subject="orders", message_id="<dup@example.net>")
    assert send(daemon, raw)[0] == 250
    code, text = send(daemon, b"Received: from mx2.example.net; Sat, 2 May 2026\r\n" + raw)
    assert code == 250 and b"already stored as #1" in text
    wait_processed(daemon, 1)
    assert len(outbox_files(daemon)) == 1
    with daemon.store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 1


@pytest.mark.parametrize("mail_from, extra, why", [
    ("", {"Subject": "Undelivered Mail Returned to Sender"}, "bounce"),
    ("anna@example.net", {"Subject": "Out of office", "Auto-Submitted": "auto-replied",
                          "X-Autoreply": "yes"}, "Auto-Submitted"),
    ("dip-bounces@lists.example.net", {"Subject": "[dip] digest", "List-Id": "<dip.lists.example.net>",
                                       "Precedence": "list"}, "Precedence"),
])
def test_robot_mail_is_stored_but_never_answered(daemon, mail_from, extra, why):
    subject = extra.pop("Subject")
    raw = make_mail(subject=subject, extra=extra,
                    sender="MAILER-DAEMON@mx.example.net" if not mail_from else mail_from)
    assert send(daemon, raw, mail_from=mail_from)[0] == 250
    # A person's mail after it, to know the worker has been past the robot's.
    assert send(daemon, make_mail(subject="person"))[0] == 250
    wait_processed(daemon, 2)
    with daemon.store.unit_of_work() as session:
        robot = session.get(InboundMessage, 1)
        assert robot.status == "processed" and why in robot.loop_reason
        assert robot.raw.startswith(b"From: ") or b"Subject: " in robot.raw
    assert [m["Subject"] for m in outbox_files(daemon)] == ["Re: person"]


def test_oversized_message_is_refused(daemon):
    code, text = send(daemon, make_mail(body="x" * 300_000))
    assert code == 552, text
    assert send(daemon, make_mail(body="small"))[0] == 250
    wait_processed(daemon, 1)
    with daemon.store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 1


def test_non_ascii_8bit_mail_is_stored_byte_for_byte(daemon):
    raw = ("From: Zoë <zoe@example.net>\r\nTo: judge@example.org\r\nSubject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n"
           "Message-ID: <8bit@example.net>\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
           "A Mün - Ber\r\n").encode("utf-8")
    with smtplib.SMTP("127.0.0.1", daemon.settings.smtp.port, timeout=10) as client:
        client.sendmail("zoe@example.net", ["judge@example.org"], raw, mail_options=["BODY=8BITMIME"])
    wait_processed(daemon, 1)
    with daemon.store.unit_of_work() as session:
        assert session.execute(select(InboundMessage.raw)).scalar_one() == raw
    [reply] = outbox_files(daemon)
    assert reply["Subject"] == "Re: Grüße" and reply["To"] == "zoe@example.net"


def test_scheduler_tick_runs_and_its_mail_is_sent(tmp_path):
    from datetime import datetime

    from judge.mailio.outgoing import OutgoingMail, queue_outgoing

    settings = load_settings(None, environ={
        "JUDGE_JUDGE_DATA_DIR": str(tmp_path), "JUDGE_SMTP_PORT": str(free_port()),
        "JUDGE_SCHEDULER_TICK_SECONDS": "0.2", "JUDGE_OUTBOUND_POLL_SECONDS": "5",
    })
    ticks: list[datetime] = []

    def tick(store, settings, now):
        ticks.append(now)
        if len(ticks) == 2:
            with store.unit_of_work() as session:
                queue_outgoing(session, OutgoingMail(recipients=("list@example.net",),
                                                     subject="g1 S1901M results", body="r", kind="results"),
                               settings.judge, now)

    store = open_store(settings, initialise_empty=True)
    daemon = Daemon(settings, store, process=echo, tick=tick)
    daemon.start()
    try:
        deadline = time.monotonic() + 10
        while not outbox_files(daemon):
            assert time.monotonic() < deadline, f"ticks so far: {len(ticks)}"
            time.sleep(0.05)
    finally:
        daemon.stop()
        store.dispose()
    assert len(ticks) >= 2 and all(t.tzinfo is not None for t in ticks)
    [mail] = outbox_files(daemon)
    assert mail["Subject"] == "g1 S1901M results" and mail["Auto-Submitted"] == "auto-generated"


def test_a_message_without_content_is_answered_451_and_not_stored(store):
    # aiosmtpd always hands DATA its content; were it ever missing, the sender must retry.
    import asyncio

    from aiosmtpd.smtp import Envelope

    from judge.edge.smtp_in import IntakeHandler

    reply = asyncio.run(IntakeHandler(store).handle_DATA(None, None, Envelope()))
    assert reply.startswith("451 4.3.0 ")
    with store.unit_of_work() as session:
        assert session.execute(select(func.count()).select_from(InboundMessage)).scalar_one() == 0
