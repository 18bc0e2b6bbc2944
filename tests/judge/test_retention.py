"""Raw mail is kept for [store] keep_raw_days, then emptied by the scheduler pass (issue 12.4)."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from sqlalchemy import select

from judge.config import Settings, StoreSettings
from judge.edge.scheduler import run_pass
from judge.store.inbound import store_inbound
from judge.store.models_mail import InboundMessage
from tests.judge.commands.harness import JUDGE, JudgeHarness
from tests.judge.storage import make_mail


def test_old_processed_mail_loses_its_bytes_and_nothing_else(tmp_path):
    judge = JudgeHarness(tmp_path)
    try:
        old = judge.send("a@example.net", "SIGNON france@g1 secretpw\n")
        assert old.reply
        judge.advance(days=31)
        judge.send("b@example.net", "LIST\n")  # recent: kept
        store_inbound(judge.store, make_mail(subject="waiting", sender="c@example.net"), mail_from="c@example.net",
                      rcpt_to=[JUDGE.address], source="smtp", now=judge.now)  # not processed: kept
        settings = dataclasses.replace(Settings(judge=JUDGE), store=StoreSettings(keep_raw_days=30))
        run_pass(judge.store, settings, judge.now)
        with judge.session() as session:
            rows = session.execute(select(InboundMessage).order_by(InboundMessage.id)).scalars().all()
            assert [bool(row.raw) for row in rows] == [False, True, True]
            assert b"secretpw" not in b"".join(row.raw for row in rows)
            assert rows[0].digest and rows[0].status == "processed"  # a redelivery is still recognised
        judge.advance(days=365)
        run_pass(judge.store, dataclasses.replace(settings, store=StoreSettings(keep_raw_days=0)), judge.now)
        with judge.session() as session:
            assert all(row.raw for row in session.execute(select(InboundMessage)).scalars().all()[1:])
    finally:
        judge.close()


def test_the_default_keeps_thirty_days():
    assert Settings().store.keep_raw_days == 30
    assert timedelta(days=Settings().store.keep_raw_days) == timedelta(days=30)
