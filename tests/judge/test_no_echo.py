"""Passwords never come back (issue 12.3): not in a reply's Subject, its quotes, the
lines it lists as not processed, the outbox, or the shunt listing."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from judge.store.models_mail import OutboxMessage
from judge.commands.registry import masked
from tests.judge.commands.conftest import create_game, fill_game  # noqa: F401
from tests.judge.commands.harness import JudgeHarness

SECRET = "hunter2secret"



def _outbox_bytes(judge: JudgeHarness) -> bytes:
    with judge.session() as session:
        return b"".join(row.raw for row in session.execute(select(OutboxMessage)).scalars())


@pytest.mark.parametrize("subject", [
    f"SIGNON france@rg {SECRET}",
    f"Re: SIGNON france@rg {SECRET}",
    f"ＳＩＧＮＯＮ france@rg {SECRET}",  # fullwidth letters
    f"\ufeffSIGNON france@rg {SECRET}",  # a byte-order mark first
    f"SIGNOM france@rg {SECRET}",  # misspelt
    f"JOIN rg {SECRET}",
])
def test_a_password_in_the_subject_is_not_in_the_reply_or_the_outbox(judge, subject):
    sent = judge.send("someone@example.net", "LIST\n", subject=subject)
    assert SECRET not in sent.reply.subject
    assert SECRET.encode() not in _outbox_bytes(judge)


@pytest.mark.parametrize("line", [
    f"ＳＩＧＮＯＮ france@g1 {SECRET}",
    f"\u200bSIGNON france@g1 {SECRET}",
    f"SIGNON france@g1 {SECRET} " + "x" * 1000,  # too long a line, quoted in the error
    f"SIGNOM france@g1 {SECRET}",
    f"Subject: SIGNON france@g1 {SECRET} =?utf-8?x?y?=",  # a forwarded header in a body (found by the fuzzer)
    f"Fwd: Subject: SIGNON france@g1 {SECRET}",
])
def test_a_password_in_a_command_line_is_masked_in_every_quote(judge, line):
    create_game(judge)
    fill_game(judge)
    reply = judge.send("someone@example.net", line + "\n").reply
    assert SECRET not in reply.body
    assert SECRET.encode() not in _outbox_bytes(judge)


def test_a_fullwidth_signon_is_read_as_a_signon(judge):
    create_game(judge)
    seats = fill_game(judge)
    france = seats["FRANCE"]
    body = judge.send(france.address, f"ＳＩＧＮＯＮ france@g1 {france.password}\nA PAR - BUR\n").reply.body
    assert "signed on as FRANCE" in body and "accepted: A PAR - BUR" in body


def test_lines_not_processed_after_signoff_are_masked(judge):
    reply = judge.send("someone@example.net", f"LIST\nSIGNOFF\nSIGNON france@g1 {SECRET}\n").reply
    assert "Lines not processed:" in reply.body and SECRET not in reply.body


def test_text_that_carries_no_password_is_left_as_written():
    for text in ("Re: my orders", "LIST g1", "Ｈello", "SIGNON france@g1"):
        assert masked(text) == text


def test_the_shunt_listing_masks_the_subject():
    from judge.cli.shunt import _summary
    from tests.judge.storage import make_mail

    raw = make_mail(subject=f"Re: SIGNON france@g1 {SECRET}", body="x\n", sender="a@example.net")
    sender, subject = _summary(raw)
    assert sender.endswith("a@example.net") and SECRET not in subject and "SIGNON france@g1" in subject
