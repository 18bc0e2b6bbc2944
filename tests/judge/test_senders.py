"""judge.mailio.senders.sender_of: who sent a mail, by what a stranger cannot simply write."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from email import message_from_bytes
from email.policy import default

from judge.config import JudgeSettings
from judge.mailio.inbound import InboundMail
from judge.mailio.senders import sender_of
from tests.judge.storage import make_mail


def inbound(mail_from: str | None, peer: str | None, **headers: str) -> InboundMail:
    raw = make_mail(sender=headers.pop("From", "owner@example.net"), extra=headers)
    return InboundMail(inbound_id=1, raw=raw, message=message_from_bytes(raw, policy=default), mail_from=mail_from,
                       rcpt_to=("judge@example.org",), message_id=None, source="smtp",
                       received_at=datetime(2026, 3, 2, tzinfo=timezone.utc), no_reply_reason=None,
                       judge=JudgeSettings(), peer=peer)


def test_the_envelope_and_a_remote_client_name_the_sender_not_from_or_reply_to():
    mail = inbound("Guesser@Evil.example", "203.0.113.7", **{"Reply-To": "owner@example.net"})
    sender = sender_of(mail)
    assert (sender.address, sender.peer, sender.verified) == ("guesser@evil.example", "203.0.113.7", False)
    assert sender.key == "guesser@evil.example [203.0.113.7]"


def test_a_forged_envelope_from_another_host_is_still_another_sender():
    owner = sender_of(inbound("owner@example.net", "198.51.100.2"))
    forger = sender_of(inbound("owner@example.net", "203.0.113.7"))
    assert owner.address == forger.address and owner.key != forger.key


def test_this_hosts_addresses_say_nothing_of_the_sender():
    for local in ("127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1", "0.0.0.0", "not an address", None):
        assert sender_of(inbound("a@example.net", local)).key == "a@example.net", local


def test_imap_mail_is_named_by_its_return_path_else_its_from():
    assert sender_of(inbound(None, None, **{"Return-Path": "<bounce@lists.example>"})).address == "bounce@lists.example"
    assert sender_of(inbound(None, None)).address == "owner@example.net"
    assert sender_of(inbound("", "203.0.113.7")).key == "owner@example.net [203.0.113.7]"  # a null envelope


def test_a_verified_identity_comes_first_and_needs_no_client_address():
    mail = replace(inbound("guesser@evil.example", "203.0.113.7"), authenticated="Owner@Example.net")
    sender = sender_of(mail)
    assert (sender.key, sender.verified) == ("owner@example.net (verified)", True)  # never a forger's plain key
