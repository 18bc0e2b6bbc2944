"""judge.mailio.read: what of a stored mail is parsed (issue 12.1: bounded work per mail)."""

from __future__ import annotations

from judge.mailio.read import MAX_BOUNDARIES, READ_LIMIT_BYTES, read_message
from tests.judge.test_hostile_headers import deep_mail


def test_a_plain_mail_is_read_whole():
    message, unread = read_message(b"From: a@example.net\r\nSubject: hi\r\n\r\nLIST\r\n")
    assert unread is None and message.get_content().strip() == "LIST"


def test_a_long_mail_is_cut_at_a_line_end_before_the_limit():
    raw = b"From: a@example.net\r\nSubject: big\r\n\r\n" + b"HELP\r\n" * (READ_LIMIT_BYTES // 3)
    message, unread = read_message(raw)
    body = message.get_payload()
    assert len(body) < READ_LIMIT_BYTES and body.endswith("HELP\r\n")
    assert "longer than the 1,024 KB of a mail the judge reads" in unread


def test_more_multiparts_than_the_limit_are_not_parsed_but_the_headers_are():
    """A 1,000-deep mail took the parser 2.5 s (its work grows with the square of the depth)."""
    message, unread = read_message(deep_mail(MAX_BOUNDARIES + 1))
    assert message["Subject"] == "deep" and message.get_payload() == ""
    assert "too many or nested too deep" in unread and "nothing in it was read" in unread


def test_a_mail_within_the_multipart_limit_is_parsed():
    message, unread = read_message(deep_mail(MAX_BOUNDARIES))
    assert unread is None and message.is_multipart()
