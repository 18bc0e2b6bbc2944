"""The judge's bot as stored jobs (judge/phases/bot_moves.py, judge/daemon/bot_worker.py) on a real
SQLite store: a pass never thinks, it stores the jobs and waits; a job is claimed by one
process, finished once, given back when its process is gone, given up when it keeps
killing its process; the phase is processed once the moves are in."""

from __future__ import annotations


from sqlalchemy import func, select, update

from judge.daemon.bot_worker import BotWorker
from judge.edge.scheduler import run_pass
from judge.phases.bot_moves import claim_job, finish_job, job_waiting
from judge.store.leases import Owner, register
from judge.store.models_bots import BotJob
from judge.store.models_game import OrderSet, PhaseRecord
from judge.store.models_hosts import LeaseOwner
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.scheduler.driver import HOLDS, SETTINGS
from tests.judge.commands.conftest import MASTER

MASTER_SIGNON = "SIGNON master@g1 masterpw\n"


def jobs(judge) -> list[BotJob]:
    with judge.session() as session:
        rows = session.scalars(select(BotJob).order_by(BotJob.id)).all()
        session.expunge_all()
        return list(rows)


def records(judge) -> int:
    with judge.session() as session:
        return int(session.scalar(select(func.count()).select_from(PhaseRecord)) or 0)


def cd_bot_game_past_deadline(judge) -> None:
    create_game(judge, "TIMING GRACE 12H", "RULE CIVIL_DISORDER", "RULE CD_BOT")
    seats = fill_game(judge)
    for power, seat in seats.items():
        if power != "ENGLAND":
            judge.orders(seat, HOLDS[power])
    judge.advance(days=6, hours=13)  # past the deadline and the grace


def owner(judge) -> str:
    me = Owner.this_process()
    register(judge.store, me)
    return me.id


def test_a_pass_stores_the_bots_job_and_waits_then_the_moves_process_the_phase(judge) -> None:
    cd_bot_game_past_deadline(judge)
    report = run_pass(judge.store, SETTINGS, judge.now)  # the pass alone, no bot process
    assert report.count("waited") == 1 and report.count("processed") == 0
    assert judge.game()["phase"] == "S1901M" and records(judge) == 0
    [job] = jobs(judge)
    assert (job.power, job.phase, job.done_at, job.claimed_by) == ("ENGLAND", "S1901M", None, None)
    assert run_pass(judge.store, SETTINGS, judge.now).due == 0  # not due again until the moves are in

    out = judge.tick()  # the pass finds nothing due; the bot makes the moves, the phase is processed
    assert judge.game()["phase"] == "F1901M" and records(judge) == 1
    body = out.of_kind("results")[0].body
    assert "ENGLAND:  (no orders received: civil disorder, played by the bot (RULE CD_BOT))" in body
    notices = [mail.address for mail in out.of_kind("civil_disorder")]
    assert notices.count(MASTER) == 1 and len(notices) == len(set(notices))  # told once, when processed
    [job] = jobs(judge)
    assert job.done_at is not None and job.lines and job.attempts == 1
    judge.advance(days=8)
    judge.tick()
    assert "S1901M" not in {j.phase for j in jobs(judge)}  # forgotten a week after: its moves are in the record


def test_a_job_is_claimed_by_one_process_and_finished_once(judge) -> None:
    cd_bot_game_past_deadline(judge)
    run_pass(judge.store, SETTINGS, judge.now)
    first, second = owner(judge), owner(judge)
    with judge.store.reading() as connection:  # the bot process's look before it takes a write turn
        assert job_waiting(connection)
    with judge.store.unit_of_work(now=judge.now) as session:
        claimed = claim_job(session, first, judge.now, max_attempts=3)
    with judge.store.reading() as connection:
        assert not job_waiting(connection)
    with judge.store.unit_of_work(now=judge.now) as session:
        assert claim_job(session, second, judge.now, max_attempts=3).job is None  # nothing else waits
    assert claimed.job is not None and claimed.job.power == "ENGLAND"
    lines = ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"]
    with judge.store.unit_of_work(now=judge.now) as session:
        assert finish_job(session, claimed.job.id, lines, judge.now) == claimed.job.game_id
    with judge.store.unit_of_work(now=judge.now) as session:  # a process taken for dead finishes too
        assert finish_job(session, claimed.job.id, ["F LON H"], judge.now) is None
    [job] = jobs(judge)
    assert job.lines == lines and job.claimed_by is None
    assert judge.game()["next_due_at"] is not None  # due: the pass processes the phase
    body = judge.tick().of_kind("results")[0].body
    assert "F LON - NTH" in body and records(judge) == 1


def test_the_jobs_of_a_process_that_is_gone_wait_again_and_are_done_after_a_restart(judge) -> None:
    cd_bot_game_past_deadline(judge)
    run_pass(judge.store, SETTINGS, judge.now)
    holder = owner(judge)  # a live process (this one) holds the job
    with judge.store.unit_of_work(now=judge.now) as session:
        assert claim_job(session, holder, judge.now, max_attempts=3).job is not None
    assert jobs(judge)[0].claimed_by == holder
    assert judge.bots() == 0  # nobody else takes it while its holder lives
    with judge.store.unit_of_work() as session:  # the holder dies: its pid names no process any more
        session.execute(update(LeaseOwner).where(LeaseOwner.id == holder).values(pid=2 ** 22 + 12345))
    assert judge.bots() == 1  # a bot process starting gives back the jobs of the dead, and does them
    assert judge.game()["phase"] == "F1901M"
    assert jobs(judge)[0].attempts == 2


def test_a_job_that_keeps_killing_its_process_is_given_up_and_the_power_holds(judge, caplog) -> None:
    cd_bot_game_past_deadline(judge)
    run_pass(judge.store, SETTINGS, judge.now)
    with judge.store.unit_of_work() as session:
        session.execute(update(BotJob).values(attempts=3))  # three starts, none finished
    assert judge.bots() == 1  # settled, not thought about
    [job] = jobs(judge)
    assert job.done_at is not None and job.lines is None
    assert "given up" in caplog.text
    assert judge.game()["phase"] == "F1901M"
    assert sorted(judge.game()["position"]["units"]["ENGLAND"]) == ["A LVP", "F EDI", "F LON"]


def test_the_masters_process_is_answered_at_once_and_done_when_the_moves_are_in(judge) -> None:
    create_game(judge)
    seats = fill_game(judge)
    out = judge.send(MASTER, MASTER_SIGNON + "EJECT FRANCE\nSEAT FRANCE BOT\n")
    assert "ERROR" not in out.reply.body
    [job] = jobs(judge)
    assert job.power == "FRANCE" and job.done_at is None  # asked for at once: it thinks while players do
    preview = judge.send(MASTER, MASTER_SIGNON + "PREVIEW\n").reply.body
    assert "The judge's bot has not made the moves of FRANCE yet" in preview
    for power, seat in seats.items():
        if power != "FRANCE":
            judge.orders(seat, HOLDS[power])
    reply = judge.send(MASTER, MASTER_SIGNON + "PROCESS\n").reply.body
    assert "S1901M is processed as soon as the judge's bot has made the moves of FRANCE" in reply
    assert judge.game()["phase"] == "S1901M"
    # FRANCE's S1901M moves; the phase processed, its F1901M moves are asked for and made.
    assert judge.bots() == 2
    assert judge.game()["phase"] == "F1901M" and records(judge) == 1
    [job] = [j for j in jobs(judge) if j.phase == "S1901M"]
    with judge.session() as session:
        [record] = session.scalars(select(PhaseRecord)).all()
        assert record.orders["FRANCE"] == job.lines
        [fall] = session.scalars(select(OrderSet)).all()  # the seat's F1901M orders, stored as a mail's
        assert (fall.power, fall.phase) == ("FRANCE", "F1901M")
    assert [(j.phase, j.done_at is not None) for j in jobs(judge)] == [("S1901M", True), ("F1901M", True)]


def test_a_job_of_a_game_that_moved_on_is_dropped_unthought(judge) -> None:
    create_game(judge)
    seats = fill_game(judge)
    judge.send(MASTER, MASTER_SIGNON + "EJECT FRANCE\nSEAT FRANCE BOT\n")
    with judge.store.unit_of_work() as session:  # as if the phase had moved on meanwhile
        session.execute(update(BotJob).values(phase="S1900M"))
    worker = BotWorker(judge.store, SETTINGS, clock=lambda: judge.now)
    worker.start()
    try:
        assert worker.work_one() is True and worker.work_one() is False
    finally:
        worker.stop()
    assert jobs(judge) == [] and seats
