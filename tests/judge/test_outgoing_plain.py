"""judge.mailio.outgoing.message_bytes: the plain case written directly is byte for byte what the
email package builds, and everything else is built by the email package."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.mailio import outgoing
from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail, _plain_bytes, build_message, message_bytes

FIXED_ID = "<17.42.99@example.org>"

words = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e), min_size=1, max_size=12)
subjects = st.one_of(
    st.lists(words, min_size=0, max_size=8).map(" ".join),
    st.text(max_size=90),  # anything: unicode, control characters, long
    st.sampled_from(["Re: orders", "=?utf-8?q?x?=", "a  b", " lead", "trail ", "x" * 80]),
)
addresses = st.one_of(
    st.sampled_from(["anna@example.net", "b.c+d@mail.example.org", "x_y-z@h-1.example"]),
    st.from_regex(r"[a-z0-9.\"() ]{1,8}@[a-z.]{1,8}", fullmatch=True),
)
bodies = st.one_of(
    st.text(max_size=300),
    st.lists(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=60), max_size=12)
    .map("\n".join),
    st.sampled_from(["", "\n", "a\r\nb\rc\n", "x" * 901, "trailing  \n\n", "From me\n.\n"]),
)
names = st.sampled_from(["Diplomacy Judge", "", "Judge O'Brien", "J. Judge", "Jürgen", "Judge  Two"])
moments = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1),
                       timezones=st.sampled_from([timezone.utc, timezone(timedelta(hours=-5, minutes=-30))]))
extra_headers = st.lists(st.tuples(st.sampled_from(["List-Id", "X-Game", "Subject", "Bad Name", "Precedence"]),
                                   words), max_size=2).map(tuple)


@pytest.fixture(autouse=True)
def fixed_message_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outgoing, "make_msgid", lambda domain=None: FIXED_ID)


def _full(mail: OutgoingMail, judge: JudgeSettings, now: datetime) -> bytes | Exception:
    try:
        return build_message(mail, judge, now).as_bytes()
    except Exception as problem:  # e.g. a second Subject header
        return problem


@settings(max_examples=400, deadline=None)
@given(subject=subjects, recipients=st.lists(addresses, min_size=1, max_size=3), body=bodies, name=names,
       now=moments, replying=st.booleans(), references=st.lists(addresses, max_size=3), headers=extra_headers,
       auto=st.sampled_from([None, "auto-generated", "no"]))
def test_the_plain_case_is_byte_for_byte_the_built_message(subject, recipients, body, name, now, replying,
                                                           references, headers, auto) -> None:
    judge = JudgeSettings(address="judge@example.org", domain="example.org", name=name)
    mail = OutgoingMail(recipients=tuple(recipients), subject=subject, body=body,
                        in_reply_to="orig.1@example.net" if replying else None, references=tuple(references),
                        headers=headers, auto_submitted=auto)
    plain = _plain_bytes(mail, judge, now)
    full = _full(mail, judge, now)
    if plain is not None:
        assert plain == full
    if not isinstance(full, Exception):
        assert message_bytes(mail, judge, now) == full


def test_a_typical_reply_takes_the_plain_path() -> None:
    judge = JudgeSettings(address="judge@example.org", domain="example.org")
    mail = OutgoingMail(recipients=("anna@example.net",), subject="Re: commands", body="SIGNON ok\nA PAR - BUR accepted\n",
                        in_reply_to="orig.1@example.net", references=("a@b.example",), game_id=3)
    now = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
    plain = _plain_bytes(mail, judge, now)
    assert plain is not None and plain == build_message(mail, judge, now).as_bytes()
