"""On SQLite the worker reads the waiting mails and has its hook prepare them before it
takes the write turn (judge.mailio.inbound.PreparingHook): the turn, which intake needs to
store mail, is held only while the mails are applied.  The commands' hook parses the mail
there; a mail prepared or not gets the same answer."""

from __future__ import annotations

import email
import threading
from dataclasses import replace
from datetime import datetime, timezone
from email.policy import default

from sqlalchemy import select

from judge.commands import MailCommands, process_mail
from judge.commands.registry import parse_text
from judge.config import JudgeSettings
from judge.daemon.worker import Worker
from judge.mailio.inbound import InboundMail, PreparingHook
from judge.store.inbound import store_inbound
from judge.store.models_mail import InboundMessage, OutboxMessage
from tests.judge.handlers import echo
from tests.judge.storage import make_mail

NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")


def put(store, subject: str, body: str = "hello\n") -> int:
    return store_inbound(store, make_mail(subject=subject, body=body), mail_from="anna@example.net",
                         rcpt_to=["judge@example.org"], source="smtp", now=NOW).inbound_id


def replies(store) -> dict[int, str]:
    with store.unit_of_work() as session:
        found = session.execute(select(OutboxMessage).order_by(OutboxMessage.id)).scalars().all()
        return {row.inbound_id: email.message_from_bytes(row.raw, policy=default).get_content() for row in found}


class Preparing:
    """An echo hook that prepares: ``prepare`` notes the subject, and whether another
    thread could store a mail meanwhile (it could not if the worker held the write turn)."""

    def __init__(self, store, fail_on: str = "") -> None:
        self.store = store
        self.fail_on = fail_on
        self.prepared: list[str] = []
        self.stored_meanwhile: list[bool] = []
        self.seen: list[object] = []

    def __call__(self, session, inbound: InboundMail, now: datetime):
        self.seen.append(inbound.prepared)
        return echo(session, inbound, now)

    def prepare(self, inbound: InboundMail) -> InboundMail:
        if self.fail_on and self.fail_on in inbound.subject:
            raise ValueError("cannot prepare this one")
        if not self.stored_meanwhile:  # once: the mail stored here joins a later batch
            other = threading.Thread(target=put, args=(self.store, "stored while preparing"))
            other.start()
            other.join(10)
            self.stored_meanwhile.append(not other.is_alive())
        self.prepared.append(inbound.subject)
        return replace(inbound, prepared=f"prepared {inbound.subject}")


def test_the_waiting_mails_are_prepared_outside_the_write_turn_and_the_hook_gets_them_prepared(store):
    hook = Preparing(store)
    assert isinstance(hook, PreparingHook) and isinstance(process_mail, PreparingHook)
    ids = [put(store, "one"), put(store, "two")]
    worker = Worker(store, JUDGE, hook, clock=lambda: NOW, batch_seconds=60)
    assert worker.process_batch() == 3
    assert hook.stored_meanwhile == [True]  # the turn was free while the mails were prepared
    assert hook.prepared == ["one", "two"]
    # The mail stored while the others were prepared joins the batch, read in the turn.
    assert hook.seen == ["prepared one", "prepared two", None]
    assert sorted(replies(store)) == [*ids, ids[-1] + 1]


def test_a_mail_that_cannot_be_prepared_is_processed_in_the_turn_as_before(store):
    hook = Preparing(store, fail_on="odd")
    ids = [put(store, "fine"), put(store, "odd one")]
    worker = Worker(store, JUDGE, hook, clock=lambda: NOW, batch_seconds=60)
    assert worker.process_batch() == 3  # with the one stored while preparing
    assert hook.seen[:2] == ["prepared fine", None]  # read in the turn, unprepared
    assert ids[1] in replies(store)


def test_a_prepared_mail_another_worker_took_is_forgotten(store):
    hook = Preparing(store)
    hook.stored_meanwhile.append(True)  # no mail stored from prepare here
    ids = [put(store, "one"), put(store, "two")]
    worker = Worker(store, JUDGE, hook, clock=lambda: NOW, batch_seconds=60)
    worker._prepare_waiting(8)
    assert sorted(worker._prepared) == ids
    other = Worker(store, JUDGE, echo, clock=lambda: NOW)
    assert other.process_next()  # another process's worker takes the first
    worker._prepare_waiting(8)
    assert sorted(worker._prepared) == ids[1:]
    assert worker.process_batch() == 1 and worker._prepared == {}
    assert hook.prepared == ["one", "two"]  # each prepared once


def test_the_commands_answer_a_prepared_mail_as_an_unprepared_one(store, tmp_path):
    """judge.commands parses the mail in ``prepare``; the reply is the same as without."""
    judge = replace(JUDGE, data_dir=str(tmp_path))
    mails = [("help", "HELP\n"), ("list", "LIST\n"), ("nonsense", "FROBNICATE now\n")]
    first = [put(store, subject, body) for subject, body in mails]
    assert Worker(store, judge, process_mail, clock=lambda: NOW, batch_seconds=60).process_batch() == 3
    second = [put(store, subject, body) for subject, body in mails]
    assert Worker(store, judge, process_mail, clock=lambda: NOW).process_pending() == 3  # one by one, unprepared
    answered = replies(store)
    assert [answered[i] for i in first] == [answered[i] for i in second]
    assert "FROBNICATE" in answered[first[2]]


def test_the_commands_run_what_prepare_parsed(store, tmp_path):
    judge = replace(JUDGE, data_dir=str(tmp_path))
    inbound_id = put(store, "orders", "HELP\n")
    with store.unit_of_work() as session:
        row = session.get(InboundMessage, inbound_id)
        from judge.daemon.worker import to_inbound_mail

        inbound = MailCommands.prepare(to_inbound_mail(row, judge))
        assert [type(c).__name__ for c in inbound.prepared.commands] == ["Help"]
        swapped = replace(inbound, prepared=parse_text("LIST\n"))
        [reply] = process_mail(session, swapped, NOW)
    assert "HELP" not in reply.body.upper().split("\n")[0] and "game" in reply.body.lower()
