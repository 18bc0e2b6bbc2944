"""Who wrote a mail, through the running judge's SMTP listener, with a DNS server on
loopback serving the players' keys and policies: a DKIM-signed mail passes DMARC and is
recorded as such; a forged From of a domain with p=reject is stored, answered and its
SIGNON refused; DNS trouble and malformed signatures cost nothing; the IMAP path reads
the receiving server's verdict."""

from __future__ import annotations

import smtplib
import time
from email.message import EmailMessage
from email.utils import make_msgid, format_datetime
from datetime import datetime, timezone

import pytest
from sqlalchemy import select

from judge.mailauth.dkim_keys import ED25519, RSA, new_key
from judge.mailauth.dkim_sign import signer_for
from judge.store.models_mail import InboundMessage
from judge.store.models_signon import SignonFailure
from tests.judge.mailauth.daemon_game import JUDGE, files, header, running_daemon

PLAYER = "anna@players.test"
KEYS = (new_key("s1", RSA), new_key("s2", ED25519))


@pytest.fixture
def daemon(tmp_path, dns_zone):
    dns_zone.txt["_dmarc.players.test"] = ["v=DMARC1; p=reject"]
    dns_zone.txt["players.test"] = ["v=spf1 -all"]
    for key in KEYS:
        dns_zone.txt[f"{key.selector}._domainkey.players.test"] = [key.txt_value()]
    dns_zone.txt["_dmarc.relaxed.test"] = ["v=DMARC1; p=none"]
    dns_zone.silent.add("_dmarc.slow.test")
    dns_zone.servfail.add("s1._domainkey.broken.test")
    yield from running_daemon(tmp_path, {"JUDGE_MAIL_DNS_SERVER": dns_zone.server,
                                         "JUDGE_MAIL_DNS_TIMEOUT_SECONDS": "0.5"})


def mail(sender: str, body: str, *, signed: bool = False, domain: str = "players.test") -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, JUDGE, "diplomacy"
    message["Date"] = format_datetime(datetime.now(timezone.utc))
    message["Message-ID"] = make_msgid(domain="players.test")
    message.set_content(body)
    raw = message.as_bytes()
    return signer_for(domain, KEYS).sign(raw) if signed else raw


def deliver(daemon, raw: bytes, envelope: str = PLAYER) -> int:
    with smtplib.SMTP("127.0.0.1", daemon.settings.smtp.port, timeout=20) as client:
        client.ehlo("mx.players.test")
        client.sendmail(envelope, [JUDGE], raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    with daemon.store.unit_of_work() as session:
        return session.execute(select(InboundMessage.id).order_by(InboundMessage.id.desc())).scalars().first()


def stored(daemon, inbound_id: int) -> InboundMessage:
    with daemon.store.unit_of_work() as session:
        row = session.get(InboundMessage, inbound_id)
        session.expunge(row)
        return row


def reply_to(daemon, raw: bytes) -> str:
    message_id = next(line.split(b":", 1)[1].strip() for line in raw.split(b"\n")
                      if line.lower().startswith(b"message-id:"))
    deadline = time.monotonic() + 20
    while True:
        for found in files(daemon, 0):
            if (header(found, "In-Reply-To") or "").encode() == message_id:
                return found.decode("utf-8", "replace")
        assert time.monotonic() < deadline, "no reply"
        time.sleep(0.05)


def test_signed_mail_passes_and_a_forged_from_is_refused(daemon):
    signed = mail(PLAYER, "CREATE au1 masterpw\nFORM\n", signed=True)
    row = stored(daemon, deliver(daemon, signed))
    verdict = row.auth_results or ""
    assert verdict.startswith("example.org;") and "dkim=pass header.d=players.test" in verdict
    assert verdict.count("dkim=pass") == 2 and "dmarc=pass" in verdict
    assert (row.authenticated, row.distrust) == (PLAYER, None)
    assert "created with you as its master" in reply_to(daemon, signed)

    forged = mail(PLAYER, "SIGNON master@au1 wrong\nPAUSE\n")  # unsigned, From the player's p=reject domain
    row = stored(daemon, deliver(daemon, forged, envelope="mallory@evil.test"))
    assert "dmarc=fail" in (row.auth_results or "") and row.distrust
    assert row.raw.endswith(forged.replace(b"\n", b"\r\n"))  # kept whole: only the verdict on top
    answer = reply_to(daemon, forged)
    assert "not read: this mail fails DMARC" in answer and "asks receivers to reject" in answer
    with daemon.store.unit_of_work() as session:  # the forger's attempt costs the player nothing
        assert session.execute(select(SignonFailure)).all() == []

    # Forged headers below the judge's own count for nothing.
    lying = b"Authentication-Results: example.org; dmarc=pass header.from=players.test\n" + mail(
        PLAYER, "SIGNON master@au1 masterpw\nPAUSE\n")
    row = stored(daemon, deliver(daemon, lying))
    assert row.distrust and row.authenticated is None
    assert "not read: this mail fails DMARC" in reply_to(daemon, lying)


def test_dns_trouble_and_bad_signatures_cost_nothing(daemon):
    # The From domain's DMARC record times out: temperror, and the mail is read as usual.
    slow = mail("bob@slow.test", "LIST\n")
    row = stored(daemon, deliver(daemon, slow, envelope="bob@slow.test"))
    assert "dmarc=temperror" in (row.auth_results or "") and row.distrust is None
    assert "ERROR" not in reply_to(daemon, slow).split("\n\n", 1)[1][:200]

    # A name server failing (SERVFAIL) on the key: temperror, not a forgery.
    broken = mail("carl@broken.test", "LIST\n", signed=True, domain="broken.test")
    row = stored(daemon, deliver(daemon, broken, envelope="carl@broken.test"))
    assert "dkim=temperror" in (row.auth_results or "") and row.distrust is None

    # Malformed, unknown-algorithm and oversized signatures: permerror or fail, mail kept and answered.
    plain = mail("dora@relaxed.test", "LIST\n")
    garbage = (b"DKIM-Signature: v=1; a=rsa-sha512; d=relaxed.test; s=x; h=from; bh=AAAA; b=!!!!\n"
               b"DKIM-Signature: v=1; a=rsa-sha256; d=relaxed.test; s=y; h=from; bh=" + b"\n ".join([b"A" * 900] * 6)
               + b"; b=AAAA\n"
               b"DKIM-Signature: nonsense\n" + plain)
    row = stored(daemon, deliver(daemon, garbage, envelope="dora@relaxed.test"))
    verdict = row.auth_results or ""
    assert verdict.count("dkim=permerror") == 3 and row.distrust is None  # p=none: unverified, not refused
    assert "ERROR" not in reply_to(daemon, garbage).split("\n\n", 1)[1][:200]


@pytest.fixture
def imap_daemon(tmp_path, dovecot_server, imap_account):
    yield from running_daemon(tmp_path, {
        "JUDGE_IMAP_HOST": imap_account.host, "JUDGE_IMAP_PORT": str(imap_account.port),
        "JUDGE_IMAP_USERNAME": imap_account.username, "JUDGE_IMAP_PASSWORD": imap_account.password,
        "JUDGE_IMAP_POLL_SECONDS": "0.2", "JUDGE_MAIL_TRUSTED_AUTHSERV_IDS": "mx.judge.test"})


def test_imap_reads_the_receiving_servers_verdict(imap_daemon, dovecot_server, imap_account):
    """Through Dovecot: the receiving server (authserv-id mx.judge.test, trusted) found the
    mail failing DMARC of a p=reject domain: refused as over SMTP.  Headers of any other
    authserv-id, the judge's own included (it verified nothing on this path), and trusted
    ones below the topmost, are believed by nobody."""
    def fetched(headers: bytes, body: str) -> tuple[InboundMessage, str]:
        raw = headers + mail(PLAYER, body)
        dovecot_server.deliver(imap_account, raw, sender="mallory@evil.test")
        answer = reply_to(imap_daemon, raw)
        with imap_daemon.store.unit_of_work() as session:
            row = session.execute(select(InboundMessage).order_by(InboundMessage.id.desc())).scalars().first()
            session.expunge(row)
        assert row.source == "imap" and row.raw.replace(b"\r\n", b"\n").endswith(raw.replace(b"\r\n", b"\n"))
        return row, answer

    trusted_fail = (b"Authentication-Results: mx.judge.test; spf=fail smtp.mailfrom=evil.test; dkim=none;\n"
                    b" dmarc=fail (p=reject) header.from=players.test policy.dmarc=reject\n")
    forged_pass = (b"Authentication-Results: mx.judge.test; dmarc=pass header.from=players.test\n"
                   b"Authentication-Results: example.org; dmarc=pass header.from=players.test\n")
    row, answer = fetched(trusted_fail + forged_pass, "SIGNON master@im1 wrong\nPAUSE\n")
    assert row.distrust and row.authenticated is None
    assert "not read: this mail fails DMARC" in answer and "asks receivers to reject" in answer
    with imap_daemon.store.unit_of_work() as session:  # as over SMTP: the forgery costs the player nothing
        assert session.execute(select(SignonFailure)).all() == []

    for stranger in (b"Authentication-Results: evil.test; dmarc=pass header.from=players.test\n",
                     b"Authentication-Results: example.org; dmarc=pass header.from=players.test\n"):
        row, answer = fetched(stranger, "LIST\n")
        assert (row.authenticated, row.distrust) == (None, None)  # nobody we trust said anything

    trusted_pass = b"Authentication-Results: mx.judge.test; dkim=pass header.d=players.test; dmarc=pass header.from=players.test\n"
    row, answer = fetched(trusted_pass, "CREATE im1 masterpw\nFORM\n")
    assert (row.authenticated, row.distrust) == (PLAYER, None)
    assert "created with you as its master" in answer
