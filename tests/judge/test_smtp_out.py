import email
from datetime import datetime, timedelta, timezone
from email.policy import default

import pytest
from sqlalchemy import select

from judge.config import JudgeSettings, OutboundSettings
from judge.edge.smtp_out import MaildirTransport, OutboxSender, RelayTransport, backoff_seconds, transport_for
from judge.mailio.outgoing import OutgoingMail, queue_outgoing
from judge.store.models_mail import OutboxMessage

START = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def queue(store, *recipients, subject="results", now=START):
    with store.unit_of_work() as session:
        row = queue_outgoing(session, OutgoingMail(recipients=recipients, subject=subject,
                                                   body="body\n", kind="results"), JUDGE, now)
        session.flush()
        return row.id


def outbox(store):
    with store.unit_of_work() as session:
        return {r.id: r for r in session.execute(select(OutboxMessage)).scalars()}


def test_relay_delivery_with_retry_and_backoff(store, smtp_sink):
    row_id = queue(store, "anna@example.net", "bob@example.net")
    clock = Clock(START)
    sender = OutboxSender(store, RelayTransport(smtp_sink.host, smtp_sink.port),
                          retry_base_seconds=60, max_attempts=5, clock=clock)
    smtp_sink.refuse_next(2)  # the relay is unwell twice

    assert sender.send_due() == 0
    row = outbox(store)[row_id]
    assert (row.status, row.attempts, row.next_attempt_at) == ("queued", 1, START + timedelta(seconds=60))
    assert "451" in row.last_error

    clock.now = START + timedelta(seconds=59)
    assert sender.send_due() == 0 and smtp_sink.attempts == 1  # not due yet

    clock.now = START + timedelta(seconds=60)
    assert sender.send_due() == 0
    row = outbox(store)[row_id]
    assert (row.attempts, row.next_attempt_at) == (2, clock.now + timedelta(seconds=120))

    clock.now += timedelta(seconds=120)
    assert sender.send_due() == 1
    row = outbox(store)[row_id]
    assert (row.status, row.attempts, row.sent_at, row.last_error) == ("sent", 3, clock.now, None)
    [mail] = smtp_sink.messages
    assert mail.mail_from == "judge@example.org"
    assert mail.rcpt_tos == ("anna@example.net", "bob@example.net")
    assert email.message_from_bytes(mail.raw, policy=default)["Subject"] == "results"
    assert sender.send_due() == 0 and len(smtp_sink.messages) == 1  # sent rows stay sent


def test_permanent_refusal_fails_at_once(store, smtp_sink):
    row_id = queue(store, "nobody@example.net")
    smtp_sink.refuse_next(1, "550 5.1.1 no such user")
    sender = OutboxSender(store, RelayTransport(smtp_sink.host, smtp_sink.port), clock=Clock(START))
    assert sender.send_due() == 0
    row = outbox(store)[row_id]
    assert (row.status, row.attempts) == ("failed", 1) and "550" in row.last_error


def test_gives_up_after_max_attempts(store):
    from tests.fixtures.ports import free_port

    row_id = queue(store, "anna@example.net")
    clock = Clock(START)
    sender = OutboxSender(store, RelayTransport("127.0.0.1", free_port(), timeout=2),
                          retry_base_seconds=1, max_attempts=3, clock=clock)
    for _ in range(3):
        sender.send_due()
        clock.now += timedelta(hours=1)
    row = outbox(store)[row_id]
    assert (row.status, row.attempts) == ("failed", 3)
    assert "Connection refused" in row.last_error or "refused" in row.last_error.lower()


def test_maildir_outbox(store, tmp_path):
    first = queue(store, "anna@example.net", subject="one")
    second = queue(store, "bob@example.net", subject="two")
    directory = tmp_path / "outbox"
    sender = OutboxSender(store, MaildirTransport(directory), clock=Clock(START))
    assert sender.send_due() == 2
    files = sorted((directory / "new").iterdir())
    assert len(files) == 2 and all(f.suffix == ".eml" for f in files)
    assert list((directory / "tmp").iterdir()) == []
    subjects = {email.message_from_bytes(f.read_bytes(), policy=default)["Subject"] for f in files}
    assert subjects == {"one", "two"}
    rows = outbox(store)
    assert rows[first].status == rows[second].status == "sent"
    assert sender.send_due() == 0


def test_backoff_doubles_and_is_capped():
    assert [backoff_seconds(n, 60) for n in (1, 2, 3, 4)] == [60, 120, 240, 480]
    assert backoff_seconds(40, 60) == 6 * 3600


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_relay_login(store):
    """A relay requiring AUTH: the configured username/password are used."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    from tests.fixtures.ports import free_port
    from tests.fixtures.smtp_sink import SmtpSink

    logins = []

    def authenticator(server, session, envelope, mechanism, auth_data):
        logins.append((auth_data.login, auth_data.password))
        return AuthResult(success=True)

    sink = SmtpSink("127.0.0.1", free_port())
    controller = Controller(sink, hostname=sink.host, port=sink.port, server_hostname="relay.test",
                            authenticator=authenticator, auth_required=True, auth_require_tls=False)
    controller.start()
    try:
        row_id = queue(store, "anna@example.net")
        # Without credentials the relay says 530: a configuration problem, so retried later.
        anonymous = OutboxSender(store, RelayTransport(sink.host, sink.port), clock=Clock(START))
        assert anonymous.send_due() == 0
        row = outbox(store)[row_id]
        assert row.status == "queued" and "530" in row.last_error
        good = OutboxSender(store, RelayTransport(sink.host, sink.port, "judge", "s3cret"),
                            clock=Clock(START + timedelta(hours=1)))
        assert good.send_due() == 1
    finally:
        controller.stop()
    assert logins == [(b"judge", b"s3cret")]
    assert len(sink.messages) == 1


def test_relay_with_starttls_verifies_the_certificate(store, tmp_path, monkeypatch):
    """STARTTLS against a relay whose certificate the judge trusts ([outbound] ca_file, or
    SSL_CERT_FILE), and a refusal to send in clear when the certificate is not trusted."""
    import shutil
    import ssl
    import subprocess

    from aiosmtpd.controller import Controller

    from tests.fixtures.ports import free_port
    from tests.fixtures.smtp_sink import SmtpSink

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    sink = SmtpSink("127.0.0.1", free_port())
    controller = Controller(sink, hostname=sink.host, port=sink.port, server_hostname="relay.test",
                            tls_context=context, require_starttls=True)
    controller.start()
    try:
        row_id = queue(store, "anna@example.net")
        untrusted = OutboxSender(store, RelayTransport("localhost", sink.port, starttls=True),
                                 clock=Clock(START))
        assert untrusted.send_due() == 0
        row = outbox(store)[row_id]
        assert row.status == "queued" and "CERTIFICATE_VERIFY_FAILED" in row.last_error
        assert sink.messages == []

        # [outbound] ca_file: the relay's certificate trusted from the configuration
        settings = OutboundSettings(relay_host="localhost", relay_port=sink.port, starttls=True, ca_file=str(cert))
        configured = OutboxSender(store, transport_for(settings, tmp_path / "unused"),
                                  clock=Clock(START + timedelta(hours=1)))
        assert configured.send_due() == 1
        assert len(sink.messages) == 1

        # or from the process's environment (SSL_CERT_FILE), as for any OpenSSL client
        queue(store, "bert@example.net")
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        trusted = OutboxSender(store, RelayTransport("localhost", sink.port, starttls=True),
                               clock=Clock(START + timedelta(hours=2)))
        assert trusted.send_due() == 1
    finally:
        controller.stop()
    assert len(sink.messages) == 2


class _RefusingOne:
    """Writes to a Maildir, except for one row, which it refuses for good."""

    def __init__(self, directory, refused_row):
        self.maildir = MaildirTransport(directory)
        self.refused_row = refused_row

    def deliver(self, mail_from, recipients, raw, row_id):
        from judge.edge.smtp_out import DeliveryError

        if row_id == self.refused_row:
            raise DeliveryError("550 no such user", permanent=True)
        self.maildir.deliver(mail_from, recipients, raw, row_id)


def test_each_row_is_recorded_as_soon_as_its_attempt_ends(store, tmp_path):
    """When the relay takes a row, that row is marked sent before the next is attempted:
    a crash then resends at most the one row in hand (issue 12.5)."""
    first, refused, third = (queue(store, f"p{n}@example.net") for n in range(3))
    seen_before: dict[int, dict[int, str]] = {}

    class Watching(_RefusingOne):
        def deliver(self, mail_from, recipients, raw, row_id):
            seen_before[row_id] = {i: r.status for i, r in outbox(store).items()}
            super().deliver(mail_from, recipients, raw, row_id)

    sender = OutboxSender(store, Watching(tmp_path / "out", refused), clock=Clock(START))
    assert sender.send_due() == 2
    rows = outbox(store)
    assert [(rows[i].status, rows[i].attempts, rows[i].sent_at) for i in (first, third)] == [("sent", 1, START)] * 2
    assert (rows[refused].status, rows[refused].attempts, rows[refused].last_error) == ("failed", 1, "550 no such user")
    assert seen_before[refused][first] == "sent"
    assert seen_before[third] == {first: "sent", refused: "failed", third: "queued"}
    assert len(list((tmp_path / "out" / "new").iterdir())) == 2


def test_a_batch_is_signed_together_and_a_row_that_cannot_be_signed_stays_queued(store, tmp_path):
    from sqlalchemy import update

    from judge.mailauth.dkim_keys import ED25519, RSA, new_key
    from judge.mailauth.dkim_sign import signer_for

    good, bad, last = (queue(store, f"{name}@example.net") for name in ("anna", "bob", "cleo"))
    with store.unit_of_work() as session:  # a stored message dkimpy cannot read
        session.execute(update(OutboxMessage).where(OutboxMessage.id == bad)
                        .values(raw=b"\xff\xfe not a header\n\nbody\n"))
    signer = signer_for("example.org", (new_key("a", RSA), new_key("b", ED25519)))
    sender = OutboxSender(store, MaildirTransport(tmp_path), clock=Clock(START), signer=signer)
    assert sender.send_due() == 2
    rows = outbox(store)
    assert (rows[good].status, rows[last].status) == ("sent", "sent")
    assert (rows[bad].status, rows[bad].attempts) == ("queued", 1) and "cannot sign" in rows[bad].last_error
    files = [path.read_bytes() for path in (tmp_path / "new").glob("*.eml")]
    assert len(files) == 2 and all(raw.count(b"DKIM-Signature:") == 2 for raw in files)
