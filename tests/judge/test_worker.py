from datetime import datetime, timezone

import pytest
from sqlalchemy import select

from judge.config import JudgeSettings
from judge.store.inbound import store_inbound
from judge.store.models_mail import InboundMessage, OutboxMessage, Shunt
from judge.daemon.worker import Worker
from tests.judge.handlers import echo
from tests.judge.storage import make_mail

NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")


def put(store, raw, mail_from="anna@example.net"):
    return store_inbound(store, raw, mail_from=mail_from, rcpt_to=["judge@example.org"],
                         source="smtp", now=NOW).inbound_id


def rows(store, model):
    with store.unit_of_work() as session:
        return session.execute(select(model).order_by(model.id)).scalars().all()


def test_each_message_processed_once_with_its_reply_queued(store):
    first = put(store, make_mail(subject="one", message_id="<m1@example.net>"))
    second = put(store, make_mail(subject="two"))
    worker = Worker(store, JUDGE, echo, clock=lambda: NOW)
    assert worker.process_pending() == 2
    assert worker.process_pending() == 0
    inbound = rows(store, InboundMessage)
    assert [(m.id, m.status, m.processed_at) for m in inbound] == [
        (first, "processed", NOW), (second, "processed", NOW)]
    outbox = rows(store, OutboxMessage)
    assert [(o.inbound_id, o.recipients, o.status) for o in outbox] == [
        (first, ["anna@example.net"], "queued"), (second, ["anna@example.net"], "queued")]
    assert b"In-Reply-To: <m1@example.net>" in outbox[0].raw
    assert f"processed #{first}".encode() in outbox[0].raw


def test_failure_is_shunted_with_traceback_and_the_worker_goes_on(store):
    bad = put(store, make_mail(subject="please CRASH"))
    good = put(store, make_mail(subject="fine"))
    worker = Worker(store, JUDGE, echo, clock=lambda: NOW)
    assert worker.process_pending() == 2
    statuses = {m.id: m.status for m in rows(store, InboundMessage)}
    assert statuses == {bad: "shunted", good: "processed"}
    [shunt] = rows(store, Shunt)
    assert shunt.inbound_id == bad and not shunt.retried
    assert "DeliberateFailure" in shunt.traceback and "CRASH" in shunt.traceback
    notice, reply = rows(store, OutboxMessage)
    assert (notice.inbound_id, reply.inbound_id) == (bad, good)
    assert b"Your mail could not be processed: the judge met an error" in notice.raw
    assert b"Nothing in it was done." in notice.raw and notice.recipients == ["anna@example.net"]


def test_failed_processing_leaves_no_partial_state(store):
    from judge.store.models_game import Game

    def writes_then_fails(session, inbound, now):
        session.add(Game(name="half", master_password_hash="x", created_at=now))
        session.flush()
        raise RuntimeError("after a write")

    put(store, make_mail())
    Worker(store, JUDGE, writes_then_fails, clock=lambda: NOW).process_pending()
    assert rows(store, Game) == []
    assert [m.status for m in rows(store, InboundMessage)] == ["shunted"]


@pytest.mark.parametrize("mail_from, extra", [
    ("", {}),
    ("anna@example.net", {"Auto-Submitted": "auto-replied", "Subject": "Out of office"}),
    ("owner-dip@lists.example.net", {"List-Id": "<dip.lists.example.net>", "Precedence": "list"}),
])
def test_robot_mail_is_processed_but_not_answered(store, mail_from, extra):
    subject = extra.pop("Subject", "robot")
    put(store, make_mail(subject=subject, extra=extra), mail_from=mail_from)
    seen = []

    def hook(session, inbound, now):
        seen.append(inbound.no_reply_reason)
        return echo(session, inbound, now)

    Worker(store, JUDGE, hook, clock=lambda: NOW).process_pending()
    [message] = rows(store, InboundMessage)
    assert message.status == "processed" and message.loop_reason
    assert seen == [message.loop_reason]
    assert rows(store, OutboxMessage) == []


def test_a_processing_hook_that_is_not_installed_is_refused_at_start():
    from judge.config import load_settings
    from judge.daemon.hooks import HookError
    from judge.daemon.hooks import default_process_hook

    settings = load_settings(None, environ={"JUDGE_WORKER_HANDLER": "tests.nowhere:process_mail"})
    with pytest.raises(HookError, match="tests.nowhere:process_mail"):
        default_process_hook(settings)

@pytest.mark.parametrize("error, words", [
    (MemoryError(), b"it needed more memory than the judge has for one mail"),
    (RecursionError("maximum recursion depth exceeded"), b"it is built too deeply for the judge to read"),
])
def test_a_mail_too_big_to_process_is_shunted_and_its_sender_told_why(store, error, words):
    put(store, make_mail(subject="huge"))

    def runs_out(session, inbound, now):
        raise error

    Worker(store, JUDGE, runs_out, clock=lambda: NOW).process_pending()
    [message] = rows(store, InboundMessage)
    assert (message.status, message.attempts) == ("shunted", 1)  # not started again
    [shunt] = rows(store, Shunt)
    assert type(error).__name__ in shunt.traceback.splitlines()[-1]
    [notice] = rows(store, OutboxMessage)
    assert words in notice.raw and notice.recipients == ["anna@example.net"]


def test_a_mail_found_started_too_often_is_shunted_unread_and_a_robot_is_not_told(store):
    put(store, make_mail(subject="poison", extra={"Auto-Submitted": "auto-generated"}))
    put(store, make_mail(subject="fine"))
    with store.unit_of_work() as session:  # as three starts that each died would leave it
        session.execute(select(InboundMessage).where(InboundMessage.id == 1)).scalar_one().attempts = 3
    seen = []

    def hook(session, inbound, now):
        seen.append(inbound.subject)
        return echo(session, inbound, now)

    assert Worker(store, JUDGE, hook, clock=lambda: NOW, max_attempts=3).process_pending() == 2
    assert seen == ["fine"]
    assert [(m.status, m.attempts) for m in rows(store, InboundMessage)] == [("shunted", 4), ("processed", 1)]
    assert "UnfinishedProcessing: started 3 times" in rows(store, Shunt)[0].traceback
    assert [o.inbound_id for o in rows(store, OutboxMessage)] == [2]  # no notice to a robot


def test_a_hook_in_the_judges_own_packages_must_be_a_built_in_one():
    from judge.daemon.hooks import HookError, resolve_hook

    from judge.commands import process_mail

    assert resolve_hook("judge.commands:process_mail") is process_mail
    assert resolve_hook("judge.edge.scheduler:run_pass").__name__ == "run_pass"
    with pytest.raises(HookError, match="judge.edge.scheduler:process_games.*the judge's own hooks are"):
        resolve_hook("judge.edge.scheduler:process_games")
    assert resolve_hook("tests.judge.handlers:echo").__name__ == "echo"
