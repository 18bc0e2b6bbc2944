"""A bounce written by a real MTA: the judge relays through a private Postfix, a player
joined from an address Postfix does not know (``ghost@postfix.test``); Postfix accepts the
reply, fails to deliver it locally, and sends its own DSN to the reply's VERP return
path, i.e. back to the judge's SMTP listener.  The judge ties it to the address, marks
the address unreachable (``bounce_limit = 1`` here) and tells the master, whose notice
also leaves through Postfix."""

from __future__ import annotations

from sqlalchemy import select

import pytest

from judge.store.models_mail import InboundMessage
from judge.store.models_mailauth import MailBounce, UnreachableAddress
from tests.fixtures.ports import free_port
from tests.judge.mailauth.daemon_game import running_daemon, send
from tests.judge.mailauth.test_bounces import wait

GHOST = "ghost@postfix.test"


@pytest.fixture
def relayed(tmp_path, postfix, smtp_sink):
    judge_port = free_port()
    mta = postfix.start({"example.org": ("127.0.0.1", judge_port), "example.net": (smtp_sink.host, smtp_sink.port)})
    for daemon in running_daemon(tmp_path, {"JUDGE_SMTP_PORT": str(judge_port),
                                            "JUDGE_OUTBOUND_RELAY_HOST": mta.host,
                                            "JUDGE_OUTBOUND_RELAY_PORT": str(mta.port),
                                            "JUDGE_OUTBOUND_RETRY_BASE_SECONDS": "0.2",
                                            "JUDGE_MAIL_BOUNCE_LIMIT": "1"}):
        yield daemon, mta


def test_postfix_dsn_for_an_unknown_local_user_marks_the_address(relayed, smtp_sink):
    daemon, mta = relayed
    send(daemon, "gm@example.net", "CREATE pf1 masterpw\nFORM\n")
    send(daemon, GHOST, "JOIN pf1 secret\n")

    def bounced() -> list[MailBounce]:
        with daemon.store.unit_of_work() as session:
            rows = list(session.execute(select(MailBounce)).scalars())
            session.expunge_all()
            return rows
    [row] = wait(bounced, f"Postfix's DSN recorded\n{mta.maillog[-2000:]}", timeout=60)
    assert (row.address, row.permanent) == (GHOST, True)
    assert f"to=<{GHOST}>, relay=local" in mta.maillog and "status=bounced (unknown user" in mta.maillog

    with daemon.store.unit_of_work() as session:
        dsn = session.get(InboundMessage, row.inbound_id)
        assert dsn.mail_from == "" and dsn.rcpt_to[0].startswith("judge+b")  # null sender, to the VERP path
        assert b"X-Postfix-Queue-ID:" in dsn.raw and b"Status: 5.1.1" in dsn.raw  # Postfix's own report
        assert session.get(UnreachableAddress, GHOST).bounces == 1

    notice = wait(lambda: [m for m in smtp_sink.messages if b"Subject: pf1: mail to " in m.raw],
                  "the master's notice, through Postfix", timeout=60)[0]
    assert notice.rcpt_tos == ("gm@example.net",) and b"by mx.postfix.test (Postfix)" in notice.raw
