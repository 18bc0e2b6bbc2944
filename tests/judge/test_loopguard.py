import email
from email.policy import default

import pytest

from judge.mailio.loopguard import no_reply_reason

JUDGE = ("judge@example.org",)


def parse(headers: str, body: str = "hello\n"):
    return email.message_from_string(headers.strip() + "\n\n" + body, policy=default)


PLAIN = "From: Anna <anna@example.net>\nTo: judge@example.org\nSubject: signon"


def test_a_person_may_be_answered():
    assert no_reply_reason(parse(PLAIN), "anna@example.net", JUDGE) is None
    assert no_reply_reason(parse(PLAIN + "\nAuto-Submitted: no"), "anna@example.net", JUDGE) is None
    assert no_reply_reason(parse(PLAIN + "\nPrecedence: first-class"), "anna@example.net", JUDGE) is None


@pytest.mark.parametrize("extra, envelope, expected", [
    ("", "", "empty return path"),
    ("", "<>", "empty return path"),
    ("", "MAILER-DAEMON@mx.example.net", "bounce"),
    ("\nAuto-Submitted: auto-replied", "anna@example.net", "Auto-Submitted"),
    ("\nAuto-Submitted: auto-generated; owner-email=x@y", "anna@example.net", "Auto-Submitted"),
    ("\nPrecedence: bulk", "anna@example.net", "Precedence"),
    ("\nPrecedence: LIST", "anna@example.net", "Precedence"),
    ("\nPrecedence: junk", "anna@example.net", "Precedence"),
    ("\nList-Id: <dip.lists.example.net>", "anna@example.net", "List-Id"),
    ("", "judge@example.org", "judge itself"),
    ("", "JUDGE@Example.org", "judge itself"),
])
def test_robot_mail_is_not_answered(extra, envelope, expected):
    reason = no_reply_reason(parse(PLAIN + extra), envelope, JUDGE)
    assert reason is not None and expected in reason


def test_mail_from_the_judge_address_in_from_header():
    message = parse("From: Judge <judge@example.org>\nSubject: x")
    assert "judge itself" in no_reply_reason(message, "other@example.org", JUDGE)


def test_mailer_daemon_in_from_header_without_envelope():
    message = parse("From: Mail Delivery System <MAILER-DAEMON@mx.example.net>\nSubject: failure")
    assert "bounce" in no_reply_reason(message, None, JUDGE)


def test_imap_mail_uses_return_path_header():
    bounce = parse("Return-Path: <>\n" + PLAIN)
    assert "empty return path" in no_reply_reason(bounce, None, JUDGE)
    person = parse("Return-Path: <anna@example.net>\n" + PLAIN)
    assert no_reply_reason(person, None, JUDGE) is None


def test_delivery_report_is_a_bounce():
    message = parse(PLAIN + '\nMIME-Version: 1.0\nContent-Type: multipart/report; '
                    'report-type=delivery-status; boundary="b"', "--b\n\nfailed\n--b--\n")
    assert "multipart/report" in no_reply_reason(message, "anna@example.net", JUDGE)
