"""SPF alone, through the running judge's SMTP listener, from this host's own non-loopback
address (mail from loopback is a local relay's, whose address says nothing of the
sender): domains publishing SPF but no DMARC policy, mail unsigned.  The verdict is
recorded (spf=pass, spf=fail); under either ``[mail] trust`` value SPF alone neither
proves the From address (SPF is about the envelope sender's domain) nor refuses the
mail: without a DMARC policy the domain has not said that failing mail is not its own.
A domain adding ``p=reject`` to the same SPF failure is what ``trust = dmarc`` refuses
and ``trust = any`` reads."""

from __future__ import annotations

import re
import smtplib

import pytest

from judge.store.models_mail import InboundMessage
from tests.fixtures.ports import own_address
from tests.judge.mailauth.daemon_game import JUDGE, running_daemon
from tests.judge.mailauth.test_inbound_auth import mail, reply_to, stored


HOST = own_address()


@pytest.fixture(params=["dmarc", "any"])
def daemon(request, tmp_path, dns_zone):
    dns_zone.txt["spf-pass.test"] = [f"v=spf1 ip4:{HOST} -all"]
    dns_zone.txt["spf-fail.test"] = ["v=spf1 ip4:198.51.100.7 -all"]
    dns_zone.txt["spf-reject.test"] = ["v=spf1 ip4:198.51.100.7 -all"]
    dns_zone.txt["_dmarc.spf-reject.test"] = ["v=DMARC1; p=reject"]
    for daemon in running_daemon(tmp_path, {"JUDGE_SMTP_HOST": HOST, "JUDGE_MAIL_DNS_SERVER": dns_zone.server,
                                            "JUDGE_MAIL_TRUST": request.param}):
        yield daemon


def deliver_from_host(daemon, raw: bytes, envelope: str) -> InboundMessage:
    with smtplib.SMTP(HOST, daemon.settings.smtp.port, timeout=20, source_address=(HOST, 0)) as client:
        client.ehlo("mx.players.test")
        client.sendmail(envelope, [JUDGE], raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    with daemon.store.unit_of_work() as session:
        latest = max(session.query(InboundMessage.id).all())[0]
    return stored(daemon, latest)


def test_spf_alone_is_recorded_and_neither_proves_nor_refuses_but_dmarc_may(daemon):
    for number, (domain, spf) in enumerate((("spf-pass.test", "pass"), ("spf-fail.test", "fail"))):
        sender = f"eve@{domain}"
        raw = mail(sender, f"CREATE sp{number} masterpw\nFORM\n")
        row = deliver_from_host(daemon, raw, sender)
        verdict = row.auth_results or ""
        assert re.search(rf"; spf={spf} \([^)]*\) smtp\.mailfrom={sender};", verdict), verdict
        assert verdict.endswith("; dkim=none; dmarc=none")
        assert (row.authenticated, row.distrust, row.peer) == (None, None, HOST)
        assert "created with you as its master" in reply_to(daemon, raw)

    sender = "eve@spf-reject.test"  # the same SPF failure, and a DMARC policy of reject
    raw = mail(sender, "CREATE sp2 masterpw\nFORM\n")
    row = deliver_from_host(daemon, raw, sender)
    assert "spf=fail" in (row.auth_results or "") and "dmarc=fail" in (row.auth_results or "")
    answer = reply_to(daemon, raw)
    if daemon.settings.mail.trust == "dmarc":
        assert row.distrust and "not read: this mail fails DMARC" in answer
    else:
        assert row.distrust is None and "created with you as its master" in answer
