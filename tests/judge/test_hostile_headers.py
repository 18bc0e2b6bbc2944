"""Hostile headers and structures are answered, not shunted (issue 12.6)."""

from __future__ import annotations

import argparse

import pytest
from sqlalchemy import select

from judge.store.models_mail import InboundMessage, OutboxMessage, Shunt
from tests.judge.commands.harness import JudgeHarness



def raw_mail(headers: str, body: str = "LIST\r\n") -> bytes:
    return (headers.replace("\n", "\r\n") + "\r\n" + body).encode("ascii")


def deliver(judge: JudgeHarness, raw: bytes) -> list[OutboxMessage]:
    last = judge.deliver(raw, "someone@example.net")
    with judge.session() as session:
        assert session.execute(select(Shunt)).first() is None, "the mail was shunted"
        return list(session.execute(select(OutboxMessage).where(OutboxMessage.id > last)).scalars())


def subject_of(row: OutboxMessage) -> str:
    head = row.raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0].decode("ascii")
    lines = head.replace("\r\n", "\n").split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith("Subject:"))
    return " ".join([lines[index], *[line for line in lines[index + 1:] if line[:1] in (" ", "\t")]])


@pytest.mark.parametrize("subject", [
    "=?utf-8?q?LIST=0D=0ABcc:_victim@example.org?=",  # an encoded CR LF
    "=?utf-8?b?TElTVOKAqEJjYzogdmljdGltQGV4YW1wbGUub3Jn?=",  # U+2028 inside
])
def test_a_subject_that_decodes_to_a_line_break_gets_a_one_line_reply_subject(judge, subject):
    [reply] = deliver(judge, raw_mail(f"From: a@example.net\nTo: judge@example.org\nSubject: {subject}\n"
                                      "Message-ID: <h1@example.net>\n"))
    assert "Bcc" not in reply.raw.split(b"\r\n\r\n", 1)[0].decode("ascii", "replace").split("Subject:")[0]
    assert reply.recipients == ["a@example.net"]
    assert b"\r\nBcc:" not in reply.raw and b"\nBcc:" not in reply.raw


def test_a_from_without_a_domain_is_never_a_recipient(judge):
    [reply] = deliver(judge, raw_mail("From: nobody\nTo: judge@example.org\nSubject: hi\nMessage-ID: <h2@example.net>\n"))
    assert reply.recipients == ["someone@example.net"]  # the envelope sender, not "nobody"
    last = judge.last_outbox_id()
    from judge.store.inbound import store_inbound
    store_inbound(judge.store, raw_mail("From: nobody\nTo: judge@example.org\nSubject: hi\nMessage-ID: <h4@example.net>\n"),
                  mail_from="nobody", rcpt_to=["judge@example.org"], source="smtp", now=judge.now)
    assert judge.worker.process_pending() == 1
    assert judge.last_outbox_id() == last  # nobody to answer
    with judge.session() as session:
        inbound = session.execute(select(InboundMessage).order_by(InboundMessage.id.desc())).scalars().first()
        assert inbound.status == "processed" and "no address to reply to" in inbound.loop_reason


@pytest.mark.parametrize("sender", [
    "=?utf-8?q?Evil=0D=0A?= <a@example.net>",  # found by tests/reliability/hostile_mail.py's fuzzer
    "=?utf-8?q?a@example.net=0D=0ABcc:_v@example.org?=",
])
def test_a_from_with_an_encoded_line_break_is_answered_not_shunted(judge, sender):
    """The loop guard read such a From with the email package, which raised (twice): shunted."""
    rows = deliver(judge, raw_mail(f"From: {sender}\nTo: judge@example.org\nSubject: hi\n"
                                   "Message-ID: <h5@example.net>\n"))
    assert [row.recipients for row in rows] == [["someone@example.net"]]  # the envelope sender


@pytest.mark.parametrize("reply_to", ["nobody", "b@example.net\x00", "=?utf-8?q?b@example.net=0D=0A?="])
def test_an_unusable_reply_to_leaves_the_from_to_answer(judge, reply_to):
    """Found by tests/reliability/hostile_mail.py's fuzzer: such a mail went unanswered."""
    rows = deliver(judge, raw_mail(f"From: a@example.net\nReply-To: {reply_to}\nTo: judge@example.org\n"
                                   "Subject: hi\nMessage-ID: <h6@example.net>\n"))
    assert [row.recipients for row in rows] == [["a@example.net"]]


def test_a_reply_to_with_a_line_break_is_not_used(judge):
    rows = deliver(judge, raw_mail("From: a@example.net\nReply-To: =?utf-8?q?b@example.net=0D=0ABcc:_c@example.org?=\n"
                                   "To: judge@example.org\nSubject: hi\nMessage-ID: <h3@example.net>\n"))
    assert all("bcc" not in " ".join(row.recipients) for row in rows)


def deep_mail(depth: int) -> bytes:
    body = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(depth))
    body += "Content-Type: text/plain\r\n\r\nLIST\r\n" + "".join(f"--b{i}--\r\n" for i in reversed(range(depth)))
    head = "From: a@example.net\r\nTo: judge@example.org\r\nSubject: deep\r\nMessage-ID: <deep@example.net>\r\nMIME-Version: 1.0\r\n"
    return (head + body).encode("ascii")


@pytest.mark.parametrize("depth", [40, 1000])
def test_mime_nested_too_deep_is_answered_with_a_reason(judge, depth):
    [reply] = deliver(judge, deep_mail(depth))
    text = reply.raw.decode("utf-8", "replace")
    assert "nested" in text and "deep" in text
    assert reply.recipients == ["a@example.net"]


def test_the_shunt_listing_works_with_a_deep_mail_in_it(tmp_path, capsys):
    from judge.cli.shunt import run_list
    from judge.store.inbound import store_inbound

    harness = JudgeHarness(tmp_path)
    try:
        store_inbound(harness.store, deep_mail(1000), mail_from="a@example.net", rcpt_to=["judge@example.org"],
                      source="smtp", now=harness.now)
        with harness.session() as session:
            row = session.execute(select(InboundMessage)).scalar_one()
            row.status = "shunted"
            session.add(Shunt(inbound_id=row.id, traceback="RecursionError: too deep", created_at=harness.now))
        url = str(harness.store.engine.url)
    finally:
        harness.close()
    args = argparse.Namespace(config=None, all=False, traceback=False)
    import os
    os.environ["JUDGE_STORE_URL"] = url
    try:
        assert run_list(args) == 0
    finally:
        del os.environ["JUDGE_STORE_URL"]
    assert "subject 'deep'" in capsys.readouterr().out


def test_set_address_refuses_control_characters():
    from judge.commands.registry import parse_text

    parsed = parse_text("SIGNON france@g1 pw\nSET ADDRESS a\x07b@example.org\n")
    assert parsed.errors and "is not an e-mail address" in parsed.errors[0].message


def test_list_headers_are_plain_as_rfc_2369_and_2919_write_them(judge):
    """Issue 17.10: List-Id, List-Unsubscribe and List-Post on a real broadcast, unencoded."""
    import re

    from tests.judge.commands.conftest import create_game, fill_game

    create_game(judge)
    seats = fill_game(judge)
    france = seats["FRANCE"]
    last = judge.last_outbox_id()
    judge.send(france.address, f"{france.signon}\nBROADCAST\nHello all.\nENDPRESS\n")
    with judge.session() as session:
        rows = [row for row in session.execute(select(OutboxMessage).where(OutboxMessage.id > last)).scalars()
                if row.kind != "reply"]
    assert rows
    for row in rows:
        head = row.raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0].decode("ascii")
        assert "=?" not in "".join(line for line in head.splitlines() if line.startswith("List-"))
        fields = {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in head.splitlines()
                  if line.startswith("List-")}
        assert re.fullmatch(r"[^<>]*<[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+>", fields["List-Id"])  # RFC 2919
        for name in ("List-Unsubscribe", "List-Post"):  # RFC 2369: angle-bracketed URLs
            assert re.fullmatch(r"<mailto:[^<>\s]+>(\s*,\s*<[^<>\s]+>)*", fields[name]), fields[name]
