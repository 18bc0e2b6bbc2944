"""judge.mailio.policy: the default policy's behaviour, with header classes built once."""

from __future__ import annotations

import email
from email.message import EmailMessage
from email.policy import default

from judge.mailio.policy import POLICY

RAW = (
    "From: =?utf-8?q?J=C3=BCrgen?= <juergen@example.net>\r\n"
    "To: judge@example.org, \"Other, Person\" <o@example.org>\r\n"
    "Reply-To: <back@example.net>\r\n"
    "Subject: =?utf-8?b?w6TDtsO8?= orders\r\n"
    "Date: Mon, 02 Mar 2026 12:00:00 +0100\r\n"
    "Message-ID: <abc@example.net>\r\n"
    "Auto-Submitted: no\r\n"
    "MIME-Version: 1.0\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "Content-Transfer-Encoding: quoted-printable\r\n"
    "\r\n"
    "SIGNON fgame secret\r\nA PAR - BUR =C3=BC\r\n"
).encode("ascii")


def test_parsed_headers_read_the_same_as_with_the_default_policy() -> None:
    ours = email.message_from_bytes(RAW, policy=POLICY)
    theirs = email.message_from_bytes(RAW, policy=default)
    for name in ("From", "To", "Reply-To", "Subject", "Date", "Message-ID", "Auto-Submitted", "Content-Type"):
        assert str(ours[name]) == str(theirs[name]), name
    assert ours["To"].addresses == theirs["To"].addresses
    assert ours["Date"].datetime == theirs["Date"].datetime
    assert ours.get_body(("plain",)).get_content() == theirs.get_body(("plain",)).get_content()
    assert ours.as_bytes() == theirs.as_bytes()


def test_a_built_message_serialises_exactly_as_with_the_default_policy() -> None:
    def build(message: EmailMessage) -> bytes:
        message["From"] = "Diplomacy Judge <judge@example.org>"
        message["To"] = "Jürgen <juergen@example.net>"
        message["Subject"] = "Re: " + "a long subject line " * 6
        message["In-Reply-To"] = "<abc@example.net>"
        message.set_content("Orders:\n  A PAR - BUR\nÄnderung\n", charset="utf-8", cte="quoted-printable")
        return message.as_bytes()

    assert build(EmailMessage(policy=POLICY)) == build(EmailMessage(policy=default))


def test_each_header_class_is_built_once() -> None:
    registry = POLICY.header_factory
    assert registry["Subject"] is registry["subject"] is registry["SUBJECT"]
    assert default.header_factory["Subject"] is not default.header_factory["Subject"]  # why this exists


def test_a_header_value_is_parsed_once_and_reads_the_same() -> None:
    first = email.message_from_bytes(RAW, policy=POLICY)
    second = email.message_from_bytes(RAW, policy=POLICY)
    assert first["Content-Type"] is second["Content-Type"] is first["Content-Type"]
    assert first["Content-Type"].params == default.header_factory("Content-Type", "text/plain; charset=utf-8").params
    built = EmailMessage(policy=POLICY)
    built["Content-Type"] = "text/plain; charset=utf-8"
    assert built["Content-Type"] is first["Content-Type"]  # stored values share the memo too
    assert built.get_content_charset() == "utf-8"


def test_the_memo_is_bounded_and_parses_non_string_values_anew() -> None:
    from email.headerregistry import Address

    from judge.mailio.policy import MEMO_LIMIT, CachingHeaderRegistry

    registry = CachingHeaderRegistry()
    for number in range(MEMO_LIMIT + 10):
        registry("Subject", f"subject {number}")
    assert len(registry._parsed) <= MEMO_LIMIT
    address = Address("Judge", "judge", "example.org")
    made = registry("From", address)
    assert str(made) == "Judge <judge@example.org>" and registry("From", address) is not made
