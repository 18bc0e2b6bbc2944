"""Issue 24 items 4, 5, 7 and 8, each attack sent over SMTP into the real listener of an
in-process ``judge serve`` (tests/judge/smtp_doors.py): the attack fails, ordinary mail
keeps its latency meanwhile, and nothing is lost (every mail stored, processed once and
answered once)."""

from __future__ import annotations

import statistics
import threading
from dataclasses import replace
from datetime import timedelta
from typing import Iterator

import pytest
from sqlalchemy import func, select

from judge.store.models_game import Game, Membership
from judge.store.models_mail import InboundMessage, OutboxMessage
from judge.store.models_signon import SignonFailure
from tests.judge.smtp_doors import JUDGE_ADDRESS, SmtpJudge, wait_until
from tests.judge.storage import make_mail

MASTER = "gm@example.net"
GUESSER = "guesser@evil.example"


@pytest.fixture
def judge(tmp_path) -> Iterator[SmtpJudge]:
    harness = SmtpJudge(tmp_path)
    yield harness
    harness.close()


def start_game(judge: SmtpJudge, name: str = "g1") -> dict[str, tuple[str, str]]:
    """A started game of seven; power -> (address, password)."""
    assert "ERROR" not in judge.send(MASTER, f"CREATE {name} masterpw\nFORM\n").body
    for n in range(7):
        assert "ERROR" not in judge.send(f"player{n}@example.net", f"JOIN {name} pw{n}\n").body
    with judge.store.unit_of_work() as session:
        rows = session.execute(select(Membership).where(Membership.role == "player")).scalars().all()
        return {m.power: (m.address, "pw" + m.address[len("player")]) for m in rows}


def latency_during(judge: SmtpJudge, attack: list[tuple[str, bytes]], sender: str, body: str) -> tuple[float, float]:
    """(median seconds of three ordinary mails before the attack, the slowest of three
    sent while the attack's mails arrive on another connection)."""
    before = statistics.median(judge.send(sender, body).seconds for _ in range(3))
    thread = threading.Thread(target=judge.post_many, args=(attack,))
    thread.start()
    during = max(judge.send(sender, body).seconds for _ in range(3))
    thread.join()
    return before, during


def assert_kept_latency(before: float, during: float) -> None:
    # the goal is p99 < 1 s; on a loaded shared machine allow the baseline's own noise
    assert during < max(1.0, 3 * before), (before, during)


def replies_to(judge: SmtpJudge, attack: list[tuple[str, bytes]]):
    from tests.judge.smtp_doors import message_id

    return [judge.reply_to(message_id(raw)) for _, raw in attack]


# -- item 4: a forged From or Reply-To holds the guesser, never the owner -------------------
def test_forged_from_or_reply_to_holds_the_guesser_and_the_owner_signs_on(judge):
    seats = start_game(judge)
    owner, password = seats["ENGLAND"]
    forged_from = [(GUESSER, make_mail(body=f"SIGNON england@g1 guess{n}\n", sender=owner)) for n in range(6)]
    forged_reply_to = [(GUESSER, make_mail(body=f"SIGNON e@g1 other{n}\n", sender=GUESSER,
                                           extra={"Reply-To": owner})) for n in range(6)]
    attack = forged_from + forged_reply_to
    before, during = latency_during(judge, attack, "player5@example.net", "LIST g1\n")
    replies = replies_to(judge, attack)

    assert all(reply.to == owner for reply in replies)  # answered where the headers say: the judge cannot tell
    assert sum("wrong password" in r.body for r in replies) == 3
    held = [r.body for r in replies if "not tried" in r.body]
    assert len(held) == 9 and all(f"sign-ons from {GUESSER} were refused" in body for body in held)
    # the owner's right password, from the owner's own mail system, is read and works
    assert "signed on as ENGLAND" in judge.send(owner, f"SIGNON england@g1 {password}\n").body
    # the account stays guarded against every other sender
    other = judge.send("someone@else.example", "SIGNON england@g1 guess\n").body
    assert "not tried: 3 sign-ons for ENGLAND in game 'g1' were refused" in other
    assert_kept_latency(before, during)
    wait_until(judge.all_processed, "every mail processed and answered")
    with judge.store.unit_of_work() as session:
        assert set(session.scalars(select(SignonFailure.address))) == {GUESSER}
        assert set(session.scalars(select(InboundMessage.peer))) == {"127.0.0.1"}  # the client's address is kept


# -- item 5: one account per power and one for the master, whatever the spelling -----------
def test_every_spelling_of_a_power_or_the_master_is_one_account(judge):
    start_game(judge)
    for n, spelling in enumerate(("F@g1", "FRANCE@g1", "Fg1")):
        assert "wrong password" in judge.send(f"bot{n}@evil.example", f"SIGNON {spelling} guess{n}\n").body
    for n, spelling in enumerate(("M@g1", "MASTER@g1", "Mg1")):
        assert "wrong password" in judge.send(f"gmbot{n}@evil.example", f"SIGNON {spelling} guess{n}\n").body
    for spelling in ("france@g1", "F@g1", "Fg1"):
        body = judge.send("late@evil.example", f"SIGNON {spelling} guess\n").body
        assert "not tried: 3 sign-ons for FRANCE in game 'g1'" in body, body
    for spelling in ("master@g1", "M@g1", "Mg1"):
        body = judge.send("late2@evil.example", f"SIGNON {spelling} guess\n").body
        assert "not tried: 3 sign-ons for MASTER in game 'g1'" in body, body
    # a swarm of senders, each spelling FRANCE its own way, gets no try at all
    swarm = [(f"swarm{n}@evil.example", make_mail(body=f"SIGNON {('F@g1', 'FRANCE@g1', 'Fg1')[n % 3]} s{n}\n",
                                                  sender=f"swarm{n}@evil.example")) for n in range(30)]
    before, during = latency_during(judge, swarm, "player5@example.net", "LIST g1\n")
    assert all("not tried: 3 sign-ons for FRANCE in game 'g1'" in r.body for r in replies_to(judge, swarm))
    assert_kept_latency(before, during)
    # and in one mail, a second spelling of the same account is not a second try
    body = judge.send("once@evil.example", "SIGNON i@g1 one\nSIGNON ITALY@g1 two\nSIGNON Ig1 three\n").body
    assert body.count("wrong password") == 1 and body.count("one sign-on attempt for ITALY") == 2
    assert "signed on as MASTER" in judge.send(MASTER, "SIGNON Mg1 masterpw\n").body
    with judge.store.unit_of_work() as session:
        assert set(session.scalars(select(SignonFailure.who))) == {"FRANCE", "MASTER", "ITALY"}
    wait_until(judge.all_processed, "every mail processed and answered")


# -- item 7: CREATE flood ---------------------------------------------------------------------
@pytest.fixture
def limited(tmp_path) -> Iterator[SmtpJudge]:
    from judge.config import JudgeSettings

    harness = SmtpJudge(tmp_path, JudgeSettings(address=JUDGE_ADDRESS, domain="example.org", create_per_day=3))
    yield harness
    harness.close()


def _games(judge: SmtpJudge) -> dict[str, str | None]:
    with judge.store.unit_of_work() as session:
        return dict(session.execute(select(Game.name, Game.created_by)).all())


def test_a_create_flood_gets_the_daily_allowance_and_a_reply_saying_so(limited):
    judge = limited
    flood = [("flood@example.net", make_mail(body="".join(f"CREATE f{m}x{n} pw\nFORM\n" for n in range(8)),
                                             sender="flood@example.net")) for m in range(5)]
    before, during = latency_during(judge, flood, "reader@example.net", "LIST\n")
    replies = replies_to(judge, flood)
    assert sorted(_games(judge)) == ["f0x0", "f0x1", "f0x2"]
    assert set(_games(judge).values()) == {"flood@example.net"}
    first = replies[0].body
    assert first.count("created with you as its master") == 3
    refusal = "not created: flood@example.net has created 3 games in the last day, the most this judge allows one sender"
    assert first.count(refusal) == 5 and "CREATE f0x3" in first  # the line quoted, and why
    assert "the next may be created from" in first
    assert all(r.body.count(refusal) == 8 for r in replies[1:])
    assert_kept_latency(before, during)
    # another sender is not held; the flooder may create again a day later
    assert "created with you as its master" in judge.send("other@example.net", "CREATE o1 pw\n").body
    judge.now += timedelta(days=1, minutes=1)
    assert "created with you as its master" in judge.send("flood@example.net", "CREATE later pw\n").body
    wait_until(judge.all_processed, "every mail processed and answered")


# -- item 8: picture amplification, results mail size, sent mail kept 30 days --------------
def _process(judge: SmtpJudge, game: str = "g1") -> None:
    body = judge.send(MASTER, f"SIGNON master@{game} masterpw\nPROCESS!\n").body
    assert "ERROR" not in body, body


def test_map_lines_get_one_picture_and_a_refusal_not_a_megabyte(judge, monkeypatch):
    import judge.phases.pictures as mail_pictures

    start_game(judge)
    phases = []
    for _ in range(4):  # S1901M, F1901M, S1902M, F1902M (holds: no winter)
        _process(judge)
    with judge.store.unit_of_work() as session:
        from judge.store.models_game import PhaseRecord

        phases = list(session.scalars(select(PhaseRecord.phase).order_by(PhaseRecord.id)))
    assert len(phases) == 4
    drawn: list[str] = []
    real_draw = mail_pictures.draw_tree
    monkeypatch.setattr(mail_pictures, "draw_tree", lambda *args: drawn.append("x") or real_draw(*args))
    mail_pictures._drawing.cache_clear()
    judge.send("someone@example.net", f"MAP g1 {phases[0]}\n")  # the one picture a mail may get, drawn
    assert len(drawn) == 1
    drawn.clear()

    mail = "".join(f"MAP g1 {phase}\n" for phase in phases * 10)
    flood = [("mapper@example.net", make_mail(body=mail, sender="mapper@example.net")) for _ in range(3)]
    before, during = latency_during(judge, flood, "reader@example.net", "LIST g1\n")
    replies = replies_to(judge, flood)
    assert_kept_latency(before, during)
    asked = len(flood[0][1])
    first = phases[0]
    for reply in replies:
        assert set(reply.files()) == {f"g1-{first}.png", f"g1-{first}.svg"}  # the first picture whatever its size
        assert reply.body.count("not attached: a reply's files may weigh at most 20 times the mail asking") == 3
        assert "the same information was asked for more than once; it is answered once" in reply.body
        assert f"MAP g1 {phases[1]}" in reply.body
        files = sum(len(data) for data in reply.files().values())
        assert reply.size < 1_000_000 and reply.size < files * 4 // 3 + 40_000, (reply.size, asked)
    assert drawn == []  # the refused lines were not drawn (the first picture was already)

    # a mail big enough for more gets more: the limit is proportional, not a ban
    padded = mail + "SIGNOFF\n" + "".join(f"note {n:05d} {'x' * 60}\n" for n in range(400))  # not read
    both = judge.send("someone@example.net", padded)
    assert {f"g1-{first}.png", f"g1-{phases[1]}.png"} <= set(both.files())
    assert both.size <= 20 * len(make_mail(body=padded, sender="someone@example.net")) + 40_000
    wait_until(judge.all_processed, "every mail processed and answered")


def test_results_mail_is_small_and_sent_bodies_are_emptied_after_keep_sent_days(judge):
    start_game(judge)
    _process(judge)
    wait_until(judge.all_processed, "the results sent")
    results = [(m, size) for m, size in judge.sent_files() if str(m["Subject"]).endswith("S1901M results")]
    assert len(results) == 8
    assert all(size <= 120_000 for _, size in results), [size for _, size in results]
    assert all(any(p.get_filename() == "g1-S1901M.png" for p in m.walk()) for m, _ in results)

    with judge.store.unit_of_work() as session:
        before = {row.id: (row.raw, list(row.recipients), row.kind)
                  for row in session.execute(select(OutboxMessage)).scalars()}
    judge.now += timedelta(days=31)
    judge.scheduler_pass()
    with judge.store.unit_of_work() as session:
        rows = {row.id: row for row in session.execute(select(OutboxMessage)).scalars()}
        for row_id, (raw, recipients, kind) in before.items():
            row = rows[row_id]
            assert (list(row.recipients), row.kind, row.status) == (recipients, kind, "sent")
            head = raw[: raw.index(b"\r\n\r\n") + 4] if b"\r\n\r\n" in raw else raw[: raw.index(b"\n\n") + 2]
            assert row.raw == head and row.emptied_at is not None  # who, when, what: the headers
        assert b"Subject: " in rows[min(before)].raw
        total = session.scalar(select(func.sum(func.length(OutboxMessage.raw))).where(OutboxMessage.id.in_(before)))
    assert total < sum(len(raw) for raw, _, _ in before.values()) // 20


def test_keep_sent_days_zero_keeps_every_body(tmp_path):
    from judge.config import StoreSettings
    from judge.store.retention import purge_sent

    judge = SmtpJudge(tmp_path)
    try:
        judge.send("someone@example.net", "HELP\n")
        wait_until(judge.all_processed, "the reply sent")
        assert purge_sent(judge.store, judge.now + timedelta(days=400), 0) == 0
        assert purge_sent(judge.store, judge.now + timedelta(days=29), 30) == 0
        assert purge_sent(judge.store, judge.now + timedelta(days=31), StoreSettings().keep_sent_days) == 1
        assert purge_sent(judge.store, judge.now + timedelta(days=32), 30) == 0  # once
    finally:
        judge.close()


def test_a_judge_settings_default_allows_ten_games_a_day():
    from judge.config import Settings

    assert replace(Settings().judge).create_per_day == 10 and Settings().store.keep_sent_days == 30
