"""Bounces through the running judge: its mail leaves with VERP return paths (seen by a
relay), delivery status reports written as common providers write them come back over
SMTP to those paths; three permanent ones make the address unreachable, the master is
told, mail to it stops, and starts again when the player writes.  Forged and temporary
bounces, and auto-replies to the return path, count for nothing."""

from __future__ import annotations

import smtplib
import time
from datetime import datetime, timezone

import pytest
from sqlalchemy import select

from judge.mailio.outgoing import OutgoingMail, queue_outgoing
from judge.store.models_mail import OutboxMessage
from judge.store.models_mailauth import MailBounce, UnreachableAddress
from tests.judge.mailauth.daemon_game import JUDGE, running_daemon, send

PLAYER = "p3@example.net"


def dsn(return_path: str, recipient: str, status: str, action: str, diagnostic: str, mta: str) -> bytes:
    """A delivery status notification (RFC 3464) as ``mta`` writes one."""
    return (f"From: Mail Delivery System <MAILER-DAEMON@{mta}>\r\nTo: {return_path}\r\n"
            f"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <{time.time_ns()}@{mta}>\r\n"
            "MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n"
            "--B\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n\r\n"
            f"--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; {mta}\r\n\r\n"
            f"Final-Recipient: rfc822; {recipient}\r\nAction: {action}\r\nStatus: {status}\r\n"
            f"Diagnostic-Code: smtp; {diagnostic}\r\n\r\n"
            "--B\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: judge@example.org\r\nSubject: x\r\n\r\n--B--\r\n"
            ).encode()


GMAIL = ("5.1.1", "failed", "550-5.1.1 The email account that you tried to reach does not exist.", "mx.google.com")
OUTLOOK = ("5.1.10", "failed", "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup",
           "BN8NAM12HT123.mail.protection.outlook.com")
POSTFIX = ("5.1.1", "failed", "550 5.1.1 <p3@example.net>: Recipient address rejected: User unknown", "mail.example.net")
DELAYED = ("4.4.1", "delayed", "421 4.4.1 Connection timed out", "mx.example.net")


@pytest.fixture
def daemon(tmp_path, smtp_sink):
    yield from running_daemon(tmp_path, {"JUDGE_OUTBOUND_RELAY_HOST": smtp_sink.host,
                                         "JUDGE_OUTBOUND_RELAY_PORT": str(smtp_sink.port),
                                         "JUDGE_OUTBOUND_RETRY_BASE_SECONDS": "0.2"})


def bounce(daemon, raw: bytes, rcpt: str, mail_from: str = "") -> None:
    with smtplib.SMTP("127.0.0.1", daemon.settings.smtp.port, timeout=20) as client:
        client.sendmail(mail_from, [rcpt], raw)


def wait(predicate, what: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while not (found := predicate()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return found


def bounces(daemon) -> list[MailBounce]:
    with daemon.store.unit_of_work() as session:
        rows = list(session.execute(select(MailBounce).order_by(MailBounce.id)).scalars())
        session.expunge_all()
        return rows


def processed(daemon, count: int) -> None:
    from judge.store.models_mail import InboundMessage

    def done() -> bool:
        with daemon.store.unit_of_work() as session:
            rows = session.execute(select(InboundMessage.status)).scalars().all()
        return len(rows) >= count and all(s != "received" for s in rows)
    wait(done, f"{count} mails processed")


def test_verp_dsns_unreachable_master_told_and_mail_resumes(daemon, smtp_sink):
    send(daemon, "gm@example.net", "CREATE bo1 masterpw\nFORM\n")
    send(daemon, PLAYER, "JOIN bo1 secret\n")
    [to_player] = wait(lambda: [m for m in smtp_sink.messages if m.rcpt_tos == (PLAYER,)], "the JOIN reply")
    path = to_player.mail_from
    assert path.startswith("judge+b") and path.endswith("@example.org")
    to_master = next(m for m in smtp_sink.messages if m.rcpt_tos == ("gm@example.net",))
    assert to_master.mail_from != path  # one return path per recipient

    # Forged: a changed hash, another mail's number, our plain address; and an auto-reply.
    token = path.split("+", 1)[1].split("@")[0]
    altered = f"judge+{token[:-1]}{'a' if token[-1] != 'a' else 'b'}@example.org"
    renumbered = f"judge+b9999{token[token.index('-'):]}@example.org"
    for target in (altered, renumbered, JUDGE):
        bounce(daemon, dsn(target, PLAYER, *GMAIL), target)
    bounce(daemon, b"From: p3@example.net\r\nTo: x\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\n\r\n"
                   b"I am away.\r\n", path, mail_from=PLAYER)
    bounce(daemon, dsn(path, PLAYER, *DELAYED), path)  # temporary: kept, not counted
    processed(daemon, 2 + 5)
    [delayed] = bounces(daemon)
    assert (delayed.address, delayed.permanent) == (PLAYER, False)

    for sample in (GMAIL, OUTLOOK):
        bounce(daemon, dsn(path, PLAYER, *sample), path)
    processed(daemon, 2 + 7)
    with daemon.store.unit_of_work() as session:
        assert session.get(UnreachableAddress, PLAYER) is None  # two: not yet
    bounce(daemon, dsn(path, "someone-else@example.net", *POSTFIX), path)  # the token names the address
    notice = wait(lambda: [m for m in smtp_sink.messages if b"Subject: bo1: mail to " in m.raw
                           and b" bounces\r\n" in m.raw], "the master's notice")[0]
    assert notice.rcpt_tos == ("gm@example.net",) and b"bounced 3 times in 14 days" in notice.raw.replace(b"\r\n", b"\n")
    with daemon.store.unit_of_work() as session:
        assert session.get(UnreachableAddress, PLAYER).bounces == 3

    # Mail to the player stops...
    sent_before = len([m for m in smtp_sink.messages if PLAYER in m.rcpt_tos])
    with daemon.store.unit_of_work() as session:  # a game's news for the player, queued as the scheduler does
        queue_outgoing(session, OutgoingMail(recipients=(PLAYER,), subject="bo1: news", body="news\n", kind="results"),
                       daemon.settings.judge, datetime.now(timezone.utc))

    def stopped() -> list[OutboxMessage]:
        with daemon.store.unit_of_work() as session:
            return list(session.execute(select(OutboxMessage).where(OutboxMessage.status == "failed")).scalars())
    [held] = wait(stopped, "the mail to the unreachable player given up")
    assert "bounced too often" in (held.last_error or "") and held.recipients == [PLAYER]
    assert len([m for m in smtp_sink.messages if PLAYER in m.rcpt_tos]) == sent_before

    # ... until the player writes again.
    send(daemon, PLAYER, "LIST\n")
    wait(lambda: len([m for m in smtp_sink.messages if PLAYER in m.rcpt_tos]) > sent_before, "mail to the player again")
    with daemon.store.unit_of_work() as session:
        assert session.get(UnreachableAddress, PLAYER) is None
