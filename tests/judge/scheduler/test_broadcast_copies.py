"""The copies of a broadcast are built once and readdressed (judge.mailio.outgoing.queue_all)."""

from __future__ import annotations

import email
from datetime import datetime, timezone
from email.policy import default as default_policy

from sqlalchemy import select

from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail, build_message, queue_all
from judge.publish.signing import compose
from judge.store.models_mail import OutboxMessage
from tests.judge.storage import migrated_store

JUDGE = JudgeSettings(address="judge@example.org", domain="example.org", name="Test Judge")
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
HEADERS = (("List-Id", "Diplomacy game g1 <g1.example.org>"),)


def parsed(raw: bytes):
    return email.message_from_bytes(raw, policy=default_policy)


def test_copies_differ_only_in_to_and_message_id(tmp_path):
    store = migrated_store(tmp_path)
    mime = compose("Results of game g1.\n" + "x" * 2000 + "\n")
    people = ["anna@example.net", "bob@example.net", "carl@example.net"]
    mails = [OutgoingMail((a,), "g1 S1901M results", "text", kind="results", headers=HEADERS, mime=mime)
             for a in people]
    mails.append(OutgoingMail(("dora@example.net",), "other", "plain text", kind="reply"))
    with store.unit_of_work() as session:
        queue_all(session, mails, JUDGE, NOW)
    with store.unit_of_work() as session:
        rows = session.execute(select(OutboxMessage).order_by(OutboxMessage.id)).scalars().all()
        raws = [r.raw for r in rows]
    store.dispose()
    messages = [parsed(raw) for raw in raws]
    assert [m["To"] for m in messages] == people + ["dora@example.net"]
    assert len({m["Message-ID"] for m in messages}) == 4
    reference = parsed(build_message(mails[0], JUDGE, NOW).as_bytes())
    for message in messages[:3]:
        assert message.get_body(("plain",)).get_content() == reference.get_body(("plain",)).get_content()
        assert message["Subject"] == "g1 S1901M results" and message["List-Id"] == HEADERS[0][1]
        assert message["Auto-Submitted"] == "auto-generated"
    # Apart from To and Message-ID the bytes are those of the first copy.
    def without(raw: bytes) -> list[bytes]:
        return [line for line in raw.split(b"\n") if not line.startswith((b"To: ", b"Message-ID: "))]
    assert without(raws[1]) == without(raws[0]) == without(raws[2])
    assert messages[3].get_body(("plain",)).get_content() == "plain text\n"
