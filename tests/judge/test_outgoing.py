import email
from datetime import datetime, timezone
from email.policy import default

import pytest

from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail, build_message

JUDGE = JudgeSettings(address="judge@example.org", name="Test Judge", domain="example.org")
NOW = datetime(2026, 3, 1, 12, 30, tzinfo=timezone.utc)


def reparse(message):
    return email.message_from_bytes(message.as_bytes(), policy=default)


def test_reply_has_threading_and_auto_headers():
    mail = OutgoingMail(recipients=("anna@example.net",), subject="Re: orders", body="ok\n",
                        in_reply_to="abc@example.net", references=("root@example.net",))
    message = reparse(build_message(mail, JUDGE, NOW))
    assert message["In-Reply-To"] == "<abc@example.net>"
    assert message["References"] == "<root@example.net> <abc@example.net>"
    assert message["Auto-Submitted"] == "auto-replied"
    assert message["Message-ID"].endswith("@example.org>")
    assert email.utils.parsedate_to_datetime(message["Date"]) == NOW
    assert message["From"].addresses[0].addr_spec == "judge@example.org"
    assert message["From"].addresses[0].display_name == "Test Judge"
    assert message["To"] == "anna@example.net"
    assert message.get_content() == "ok\n"


def test_broadcast_is_auto_generated_without_threading():
    mail = OutgoingMail(recipients=("a@x.org",), subject="game1 S1901M results", body="r",
                        kind="results", headers=(("List-Id", "<game1.example.org>"),))
    message = reparse(build_message(mail, JUDGE, NOW))
    assert message["Auto-Submitted"] == "auto-generated"
    assert "In-Reply-To" not in message and "References" not in message
    assert message["List-Id"] == "<game1.example.org>"


def test_non_ascii_body_is_transfer_encoded():
    mail = OutgoingMail(recipients=("a@x.org",), subject="Zürich", body="Grüße aus Genève\n")
    raw = build_message(mail, JUDGE, NOW).as_bytes()
    assert raw.isascii()
    message = email.message_from_bytes(raw, policy=default)
    assert message.get_content() == "Grüße aus Genève\n"
    assert message["Subject"] == "Zürich"


def test_message_ids_are_unique():
    mail = OutgoingMail(recipients=("a@x.org",), subject="s", body="b")
    assert build_message(mail, JUDGE, NOW)["Message-ID"] != build_message(mail, JUDGE, NOW)["Message-ID"]


def test_prebuilt_mime_body_keeps_its_structure():
    inner = email.message.EmailMessage()
    inner.set_content("signed text")
    inner.add_attachment(b"sig", maintype="application", subtype="pgp-signature", filename="x.asc")
    mail = OutgoingMail(recipients=("a@x.org",), subject="s", mime=inner)
    message = reparse(build_message(mail, JUDGE, NOW))
    assert message.get_content_type() == "multipart/mixed"
    assert [p.get_filename() for p in message.iter_attachments()] == ["x.asc"]
    assert message["Auto-Submitted"] == "auto-generated"


def test_recipients_must_be_a_tuple_of_addresses():
    with pytest.raises(TypeError):
        OutgoingMail(recipients="a@x.org", subject="s")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        OutgoingMail(recipients=(), subject="s")
