"""Malformed mail must be stored and processed like any other, never stop the worker."""

from datetime import datetime, timezone

from sqlalchemy import select

from judge.config import JudgeSettings
from judge.store.inbound import store_inbound
from judge.store.models_mail import InboundMessage, OutboxMessage
from judge.daemon.worker import Worker
from tests.judge.handlers import echo

NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")

MALFORMED = {
    "no headers at all": b"just a body line\r\n",
    "no From": b"To: judge@example.org\r\nSubject: anonymous\r\n\r\nLIST\r\n",
    "broken encoded word": b"From: =?utf-8?q?Br=C3oken?= <b@example.net>\r\nSubject: =?x-unknown?b?!!!?=\r\n\r\nLIST\r\n",
    "raw 8-bit headers": "From: Jérôme <j@example.net>\r\nSubject: Grüße\r\n\r\nLIST\r\n".encode("latin-1"),
    "unterminated multipart": b"From: a@example.net\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=zz\r\n\r\n--zz\r\nContent-Type: text/plain\r\n\r\nLIST\r\n",
    "unknown charset": b"From: a@example.net\r\nContent-Type: text/plain; charset=x-klingon\r\n\r\nLIST\r\n",
    "bad base64": b"From: a@example.net\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64***\r\n",
    "address without domain": b"From: <<<@>>>\r\nReply-To: ,,,\r\nSubject: x\r\n\r\nLIST\r\n",
    "angle-less message id": b"From: a@example.net\r\nMessage-ID: no brackets here\r\n\r\nLIST\r\n",
    "NUL byte": b"From: a@example.net\r\nSubject: nul\x00byte\r\n\r\nLI\x00ST\r\n",
}


def test_malformed_mail_is_stored_and_processed(store):
    for raw in MALFORMED.values():
        assert store_inbound(store, raw, mail_from="a@example.net", rcpt_to=[], source="smtp", now=NOW).new
    assert Worker(store, JUDGE, echo, clock=lambda: NOW).process_pending() == len(MALFORMED)
    with store.unit_of_work() as session:
        statuses = session.execute(select(InboundMessage.status).order_by(InboundMessage.id)).scalars().all()
        replies = session.execute(select(OutboxMessage.recipients)).scalars().all()
    assert dict(zip(MALFORMED, statuses)) == {name: "processed" for name in MALFORMED}
    # Each got its reply (to From, or to the envelope sender when From is unusable).
    assert len(replies) == len(MALFORMED) and all(r and "@" in r[0] for r in replies)
