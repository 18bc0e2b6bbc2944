"""The judge's mail through a real submission relay: an aiosmtpd server with a
certificate and AUTH, STARTTLS (port 587 style) or implicit TLS (465), the relay's queue
id recorded in the outbox, the DKIM signatures valid on the bytes the relay received."""

from __future__ import annotations

import ssl
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from sqlalchemy import select

from judge.cli import main
from judge.config import JudgeSettings, OutboundSettings
from judge.edge.smtp_out import OutboxSender, queue_id_of, transport_for
from judge.mailauth.dkim_keys import ED25519, RSA, new_key
from judge.mailauth.dkim_sign import signer_for
from judge.mailio.outgoing import OutgoingMail, queue_outgoing
from judge.store.models_mail import OutboxMessage
from tests.fixtures.ports import free_port
from tests.fixtures.smtp_sink import SmtpSink
from tests.judge.mailauth.dkim_checks import dkimpy_verdicts

START = datetime(2026, 11, 28, 19, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")
KEYS = (new_key("judge-rsa", RSA), new_key("judge-ed25519", ED25519))


class PostfixLikeSink(SmtpSink):
    """Answers DATA as Postfix does, naming its queue id."""

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        answer = await super().handle_DATA(server, session, envelope)
        return answer if not answer.startswith("250") else f"250 2.0.0 Ok: queued as 4F1A{len(self.messages):06d}"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("cert")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


class Relay:
    def __init__(self, certificate: tuple[Path, Path], *, implicit: bool = False, tls: bool = True) -> None:
        self.logins: list[tuple[bytes, bytes]] = []
        self.sink = PostfixLikeSink("127.0.0.1", free_port())
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*certificate)
        options: dict[str, object] = {"authenticator": self._check, "auth_required": True}
        if implicit:  # aiosmtpd knows only STARTTLS as TLS: the whole connection is TLS here
            options.update(ssl_context=context, auth_require_tls=False)
        elif tls:
            options.update(tls_context=context, require_starttls=True)
        else:
            options["auth_require_tls"] = False
        self.controller = Controller(self.sink, hostname="127.0.0.1", port=self.sink.port,
                                     server_hostname="relay.test", **options)  # type: ignore[arg-type]

    def _check(self, server, session, envelope, mechanism, auth_data) -> AuthResult:  # type: ignore[no-untyped-def]
        self.logins.append((auth_data.login, auth_data.password))
        return AuthResult(success=auth_data.password == b"s3cret", handled=False)

    def __enter__(self) -> "Relay":
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def queue(store, to: str = "anna@example.net") -> int:  # type: ignore[no-untyped-def]
    with store.unit_of_work() as session:
        row = queue_outgoing(session, OutgoingMail(recipients=(to,), subject="S1901M results", body="A PAR - BUR\n",
                                                   kind="results"), JUDGE, START)
        session.flush()
        assert row is not None
        return row.id


def row(store, row_id: int) -> OutboxMessage:  # type: ignore[no-untyped-def]
    with store.unit_of_work() as session:
        found = session.execute(select(OutboxMessage).where(OutboxMessage.id == row_id)).scalar_one()
        session.expunge(found)
        return found


def sender(store, settings: OutboundSettings, clock: Clock) -> OutboxSender:  # type: ignore[no-untyped-def]
    return OutboxSender(store, transport_for(settings, Path("unused")), retry_base_seconds=60, clock=clock,
                        signer=signer_for("example.org", KEYS))


def test_starttls_and_auth_queue_id_recorded_signature_valid_as_received(store, certificate, tmp_path,
                                                                         monkeypatch, capsys):
    with Relay(certificate) as relay:
        row_id = queue(store)
        clock = Clock(START)
        wrong = OutboundSettings(relay_host="localhost", relay_port=relay.sink.port, starttls=True,
                                 ca_file=str(certificate[0]), username="judge", password="guess")
        assert sender(store, wrong, clock).send_due() == 0  # 535: kept and retried with back-off
        failed = row(store, row_id)
        assert (failed.status, failed.attempts, failed.next_attempt_at) == ("queued", 1, START + timedelta(seconds=60))
        assert "535" in (failed.last_error or "") and "guess" not in (failed.last_error or "")

        right = OutboundSettings(relay_host="localhost", relay_port=relay.sink.port, starttls=True,
                                 ca_file=str(certificate[0]), username="judge", password="s3cret")
        clock.now = START + timedelta(seconds=59)
        assert sender(store, right, clock).send_due() == 0  # not due yet
        clock.now = START + timedelta(seconds=60)
        assert sender(store, right, clock).send_due() == 1
    assert relay.logins[-1] == (b"judge", b"s3cret") and {p for _, p in relay.logins} == {b"guess", b"s3cret"}
    sent = row(store, row_id)
    assert (sent.status, sent.relay_queue_id) == ("sent", "4F1A000001")
    [received] = relay.sink.messages
    assert received.raw.startswith(b"DKIM-Signature: v=1; a=rsa-sha256;")
    assert dkimpy_verdicts(received.raw, "example.org", KEYS) == [True, True]

    monkeypatch.setenv("JUDGE_STORE_URL", str(store.engine.url))
    assert main(["outbox", "list", "--sent", "Anna@example.net"]) == 0
    assert "queue id 4F1A000001" in capsys.readouterr().out


def test_implicit_tls(store, certificate):
    with Relay(certificate, implicit=True) as relay:
        row_id = queue(store)
        settings = OutboundSettings(relay_host="127.0.0.1", relay_port=relay.sink.port, implicit_tls=True,
                                    ca_file=str(certificate[0]), username="judge", password="s3cret")
        assert sender(store, settings, Clock(START)).send_due() == 1
    assert row(store, row_id).relay_queue_id == "4F1A000001"


def test_a_relay_without_starttls_gets_no_mail_when_the_judge_wants_tls(store, certificate):
    """A relay (or a man in the middle) that does not offer STARTTLS: nothing is sent in clear."""
    with Relay(certificate, tls=False) as relay:
        row_id = queue(store)
        settings = OutboundSettings(relay_host="127.0.0.1", relay_port=relay.sink.port, starttls=True,
                                    username="judge", password="s3cret")
        assert sender(store, settings, Clock(START)).send_due() == 0
    kept = row(store, row_id)
    assert kept.status == "queued" and "STARTTLS" in (kept.last_error or "")
    assert relay.logins == [] and relay.sink.messages == []


def test_no_password_in_clear_to_another_host(store):
    row_id = queue(store)
    settings = OutboundSettings(relay_host="192.0.2.25", relay_port=587, username="judge", password="s3cret")
    assert sender(store, settings, Clock(START)).send_due() == 0
    kept = row(store, row_id)
    assert kept.status == "queued" and "not sending the relay password in clear" in (kept.last_error or "")


def test_queue_ids_of_common_relays():
    assert queue_id_of(b"2.0.0 Ok: queued as 4F1A2B3C4D") == "4F1A2B3C4D"
    assert queue_id_of(b"OK id=1rXyZa-0003Bc-2Q") == "1rXyZa-0003Bc-2Q"
    assert queue_id_of(b"2.0.0 OK  1732800000 x12-20020a17") == "2.0.0 OK 1732800000 x12-20020a17"
