"""Games run by themselves: scheduler passes over a judge driven by mail (in-process).

The judge is the commands' harness on a SQLite file; ``judge.tick()`` is one scheduler
pass at the harness clock.  Default TIMING: MOVE 3D (the first phase twice as long),
RETREAT/ADJUST 1D, WARN 4H.  The game starts on Mon 2 Mar 2026 12:00 UTC, so the first
deadline is Sun 8 Mar 12:00 UTC.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from judge.store.models_game import Membership, PhaseRecord
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.scheduler.driver import HOLDS
from tests.judge.commands.conftest import MASTER


def start(judge, *status):
    create_game(judge, *status)
    return fill_game(judge)


def order_all(judge, seats, orders=HOLDS, skip=()):
    for power, seat in seats.items():
        if power not in skip:
            reply = judge.orders(seat, orders[power]).reply.body
            assert "ERROR" not in reply, reply


def test_last_orders_give_one_settle_pass_then_results_go_to_everyone(judge):
    seats = start(judge)
    moves = dict(HOLDS, FRANCE=["A PAR - BUR", "A MAR - BUR", "F BRE - MAO"],
                 GERMANY=["A MUN - BUR", "A BER - KIE", "F KIE - DEN"])
    order_all(judge, seats, moves)
    assert judge.game()["delay"] == 1
    assert judge.tick().mails == ()  # the settle window: DELAY 1 -> 0
    assert judge.game()["phase"] == "S1901M"
    out = judge.tick()
    assert judge.game()["phase"] == "F1901M"
    results = out.of_kind("results")
    assert {m.address for m in results} == {s.address for s in seats.values()} | {MASTER}
    body = results[0].body
    assert results[0].subject == "g1 S1901M results"
    assert "A PAR - BUR                  BOUNCED" in body
    assert "A MUN - BUR                  BOUNCED" in body
    assert "F KIE - DEN                  moves" in body
    assert "Next phase: Fall 1901 movement (F1901M), deadline Thu 5 Mar 2026 12:00 UTC" in body
    with judge.session() as session:
        record = session.execute(select(PhaseRecord)).scalar_one()
        assert record.phase == "S1901M" and record.orders["FRANCE"] == ["A MAR - BUR", "A PAR - BUR", "F BRE - MAO"]
        assert record.position_after["phase"] == "F1901M"


def test_reminder_once_at_warn_then_late_notice_and_delay(judge):
    seats = start(judge)
    order_all(judge, seats, skip=("ITALY", "TURKEY"))
    judge.advance(days=5, hours=19)  # 5 hours before the deadline: no reminder yet
    assert judge.tick().mails == ()
    judge.advance(hours=1, minutes=1)  # inside WARN 4H
    reminders = judge.tick().of_kind("reminder")
    assert sorted(m.address for m in reminders) == sorted([seats["ITALY"].address, seats["TURKEY"].address])
    assert "no orders from ITALY" in " ".join(m.body for m in reminders)
    judge.advance(hours=1)
    assert judge.tick().mails == ()  # each WARN offset is sent once per phase
    judge.advance(hours=3)  # past the deadline
    late = judge.tick().of_kind("late_notice")
    assert len(late) == 8 and "Orders are still missing from: ITALY, TURKEY." in late[0].body
    assert judge.game()["delay"] == 24
    assert judge.tick().mails == () and judge.game()["delay"] == 23  # DELAY counts down
    judge.orders(seats["ITALY"], HOLDS["ITALY"])
    judge.orders(seats["TURKEY"], HOLDS["TURKEY"])  # the last orders, late: DELAY 0
    assert judge.game()["delay"] == 0
    judge.tick()
    assert judge.game()["phase"] == "F1901M"


def test_after_grace_late_players_are_dismissed_and_process_bang_defaults(judge):
    seats = start(judge, "TIMING GRACE 1D")
    order_all(judge, seats, skip=("RUSSIA",))
    judge.advance(days=6, minutes=1)
    assert judge.tick().of_kind("late_notice")
    judge.advance(days=1)
    out = judge.tick()
    assert [m.address for m in out.of_kind("dismissal") if "dismissed from game" in m.body] == [seats["RUSSIA"].address]
    assert out.to(MASTER, "master_notice")
    with judge.session() as session:
        russia = session.execute(select(Membership).where(Membership.power == "RUSSIA")).scalar_one()
        assert russia.status == "dismissed"
    assert judge.game()["next_due_at"] is None  # only the master or a TAKEOVER can move it now
    refused = judge.send(MASTER, "SIGNON master@g1 masterpw\nPROCESS\n").reply.body
    assert "orders are missing from RUSSIA" in refused and judge.game()["phase"] == "S1901M"
    out = judge.send(MASTER, "SIGNON master@g1 masterpw\nPROCESS!\n")
    assert judge.game()["phase"] == "F1901M"
    assert "RUSSIA:  (no orders received: civil disorder, units hold)" in out.of_kind("results")[0].body


def test_civil_disorder_rule_processes_at_grace_end(judge):
    seats = start(judge, "TIMING GRACE 12H", "RULE CIVIL_DISORDER")
    order_all(judge, seats, skip=("ENGLAND",))
    judge.advance(days=6, hours=11)
    judge.tick()
    assert judge.game()["phase"] == "S1901M"
    judge.advance(hours=2)
    out = judge.tick()
    assert judge.game()["phase"] == "F1901M"
    assert "ENGLAND is in civil disorder" in out.of_kind("civil_disorder")[0].body


def test_civil_preview_sends_the_master_a_preview_and_waits(judge):
    seats = start(judge, "RULE CIVIL_PREVIEW")
    order_all(judge, seats, skip=("ENGLAND",))
    judge.advance(days=6, minutes=1)
    out = judge.tick()
    previews = out.of_kind("preview")
    assert [m.address for m in previews] == [MASTER]
    assert "PREVIEW of game g1" in previews[0].body and "ENGLAND:  (no orders received" in previews[0].body
    assert judge.game()["phase"] == "S1901M"
    assert judge.tick().mails == ()  # no daily repeat before DELAY 72 runs out


def test_grace_budget_is_charged_and_announced(judge):
    seats = start(judge, "TIMING GRACE 1D", "RULE GRACE_BUDGET 1", "RULE CIVIL_DISORDER")
    order_all(judge, seats, skip=("ITALY",))
    judge.advance(days=6, minutes=1)
    late = judge.tick().of_kind("late_notice")[0].body
    assert "ITALY (1 of 1 used)" in late
    with judge.session() as session:
        assert session.execute(select(Membership.grace_used).where(Membership.power == "ITALY")).scalar_one() == 1
    judge.advance(days=1)
    judge.tick()
    assert judge.game()["phase"] == "F1901M"  # civil disorder after the grace
    order_all(judge, seats, skip=("ITALY",))
    judge.advance(days=3, minutes=1)  # budget used up: civil disorder at the deadline
    judge.tick()
    assert judge.game()["phase"] in ("W1901A", "S1902M")


def test_process_preview_and_rollback_by_the_master(judge):
    seats = start(judge)
    master = "SIGNON master@g1 masterpw\n"
    order_all(judge, seats, dict(HOLDS, FRANCE=["A PAR - PIC", "A MAR H", "F BRE H"]))
    before = judge.game()["position"]
    preview = judge.send(MASTER, master + "PREVIEW\n").reply.body
    assert "PREVIEW of game g1" in preview and "A PAR - PIC                  moves" in preview
    assert judge.game()["phase"] == "S1901M"
    judge.send(MASTER, master + "PROCESS\n")
    assert judge.game()["phase"] == "F1901M"
    order_all(judge, seats, dict(HOLDS, FRANCE=["A PIC H", "A MAR H", "F BRE H"]))
    judge.send(MASTER, master + "PROCESS\n")
    assert judge.game()["phase"] in ("W1901A", "S1902M")
    bad = judge.send(MASTER, master + "ROLLBACK F1905M\n").reply.body
    assert "no processed phase F1905M (processed phases: S1901M, F1901M)" in bad
    out = judge.send(MASTER, master + "ROLLBACK S1901M\n")
    assert "rolled back from" in out.reply.body and out.of_kind("rollback")
    state = judge.game()
    assert state["phase"] == "S1901M" and state["position"] == before
    with judge.session() as session:
        assert session.execute(select(PhaseRecord)).scalars().all() == []


def test_dias_draw_is_secret_until_it_passes(judge):
    seats = start(judge)
    voters = list(seats.values())
    for seat in voters[:-1]:
        reply = judge.send(seat.address, f"{seat.signon}\nSET DRAW\n")
        assert "draw vote recorded" in reply.reply.body and not reply.of_kind("game_end")
    holdout = voters[-1]
    reply = judge.send(holdout.address, f"{holdout.signon}\nSET NO DRAW\n").reply.body
    assert "SET DRAW" not in reply.replace("SET NO DRAW", "")  # nothing about others' votes
    # Votes stand from phase to phase until withdrawn (as the DPjudge keeps them): after
    # processing, the holdout's vote alone completes the draw.
    order_all(judge, seats)
    judge.tick(), judge.tick()
    assert judge.game()["phase"] == "F1901M" and judge.game()["status"] == "active"
    out = judge.send(holdout.address, f"{holdout.signon}\nSET DRAW\n")
    end = out.of_kind("game_end")
    assert judge.game()["status"] == "ended" and judge.game()["outcome"]["result"] == "draw"
    assert end[0].subject == "g1: game over, draw (7-way)"
    assert "Supply centres by year:\n         start\nAUSTRIA      3\n" in end[0].body
    assert "The votes, secret until now:\n  AUSTRIA  draw with all survivors" in end[0].body
    assert holdout.address in end[0].body  # the players are revealed


def test_no_dias_draw_passes_on_the_shared_powers(judge):
    seats = start(judge, "RULE NO_DIAS")
    everyone = "AEFGIRT"
    for power, seat in seats.items():
        judge.send(seat.address, f"{seat.signon}\nSET DRAW {everyone}\n")
    assert judge.game()["status"] == "ended" and len(judge.game()["outcome"]["powers"]) == 7


def test_concession_ends_the_game(judge):
    seats = start(judge)
    for power, seat in seats.items():
        if power != "FRANCE":
            judge.send(seat.address, f"{seat.signon}\nSET CONCEDE FRANCE\n")
    state = judge.game()
    assert state["status"] == "ended" and state["outcome"] == {"result": "concession", "powers": ["FRANCE"],
                                                                 "phase": "S1901M"}


def test_idle_games_are_not_loaded(judge):
    start(judge)
    judge.tick()  # computes the next due time: the WARN reminder, days ahead
    judge.advance(hours=1)
    judge.tick()
    assert judge.last_report.due == 0


def test_an_absence_over_the_deadline_extends_it_and_everyone_is_told(judge):
    seats = start(judge)
    order_all(judge, seats, skip=("AUSTRIA",))
    austria = seats["AUSTRIA"]
    # The deadline is Sun 8 Mar 12:00 UTC; Austria is away from the 7th to the 10th.
    reply = judge.send(austria.address, f"{austria.signon}\nSET ABSENCE 2026-03-07 TO 2026-03-10\n").reply.body
    assert "absence noted" in reply, reply
    out = judge.tick()
    extended = out.of_kind("deadline_changed")
    assert len(extended) == 8 and "extended to\nTue 10 Mar 2026 23:59 UTC" in extended[0].body  # the absence's end
    assert judge.game()["deadline"] == datetime(2026, 3, 10, 23, 59, tzinfo=timezone.utc)
    assert judge.tick().mails == ()  # extended once


def test_incomplete_orders_are_named_as_such_in_the_results(judge):
    seats = start(judge)
    order_all(judge, seats, skip=("TURKEY", "ITALY"))
    judge.orders(seats["TURKEY"], ["A CON - BUL"])  # one unit of three
    out = judge.send(MASTER, "SIGNON master@g1 masterpw\nPROCESS!\n")
    body = out.of_kind("results")[0].body
    assert "TURKEY:  (orders incomplete: units without orders hold)" in body
    assert "ITALY:  (no orders received: civil disorder, units hold)" in body
    assert "  A SMY H                      holds" in body


def test_draw_votes_stand_until_withdrawn_and_a_rollback_clears_them(judge):
    seats = start(judge)
    voters = list(seats.values())
    for seat in voters[:-2]:
        reply = judge.send(seat.address, f"{seat.signon}\nSET DRAW\n").reply.body
        assert "yours stands, phase after phase, until you change it" in reply
    withdrawn = voters[-2]
    judge.send(withdrawn.address, f"{withdrawn.signon}\nSET DRAW\n")
    judge.send(withdrawn.address, f"{withdrawn.signon}\nSET NO DRAW\n")
    order_all(judge, seats)
    judge.tick(), judge.tick()
    assert judge.game()["phase"] == "F1901M"
    judge.send(MASTER, "SIGNON master@g1 masterpw\nROLLBACK S1901M\n")  # votes go with the rollback
    assert judge.game()["phase"] == "S1901M"
    last = voters[-1]
    judge.send(last.address, f"{last.signon}\nSET DRAW\n")
    judge.send(withdrawn.address, f"{withdrawn.signon}\nSET DRAW\n")
    assert judge.game()["status"] == "active"  # the first five must vote again
    for seat in voters[:-2]:
        judge.send(seat.address, f"{seat.signon}\nSET DRAW\n")
    assert judge.game()["status"] == "ended" and judge.game()["outcome"]["result"] == "draw"


def test_a_power_that_ordered_some_units_only_is_late_and_the_notice_says_why(judge):
    seats = start(judge)
    order_all(judge, seats, dict(HOLDS, ITALY=["A ROM H", "A VEN H"]))  # F NAP forgotten
    assert judge.game()["delay"] == 0  # not all in: no settle window, no early processing
    judge.tick()
    assert judge.game()["phase"] == "S1901M"
    judge.advance(days=5, hours=20, minutes=1)  # inside WARN 4H
    [reminder] = judge.tick().of_kind("reminder")
    assert reminder.address == seats["ITALY"].address
    assert "has orders from ITALY for Spring 1901 movement (S1901M), but not for\nevery unit: F NAP" in reminder.body
    judge.advance(hours=4)
    late = judge.tick().of_kind("late_notice")
    assert "Orders are still missing from: ITALY." in late[0].body
    assert "A power is late until every unit it must order has an order" in late[0].body


def test_repeated_late_notices_go_to_the_late_players_and_the_master_only(judge):
    seats = start(judge)
    order_all(judge, seats, skip=("ITALY", "TURKEY"))
    judge.advance(days=6, minutes=1)
    first = judge.tick().of_kind("late_notice")
    assert len(first) == 8  # everyone: the seven players and the master
    for _ in range(24):  # DELAY 24 counts down, one pass each
        judge.advance(minutes=20)
        assert judge.tick().of_kind("late_notice") == []
    judge.advance(minutes=20)
    again = judge.tick().of_kind("late_notice")
    assert sorted(m.address for m in again) == sorted([seats["ITALY"].address, seats["TURKEY"].address, MASTER])
    assert "the first late notice went to everyone" in again[0].body
    judge.orders(seats["ITALY"], HOLDS["ITALY"])
    judge.orders(seats["TURKEY"], HOLDS["TURKEY"])
    judge.tick()
    assert judge.game()["phase"] == "F1901M"
    order_all(judge, seats, skip=("FRANCE",))
    judge.advance(days=3, minutes=1)
    assert len(judge.tick().of_kind("late_notice")) == 8  # a new phase: the first goes to everyone again


def test_resume_gives_back_the_time_paused(judge):
    seats = start(judge)
    master = "SIGNON master@g1 masterpw\n"
    order_all(judge, seats, skip=("ENGLAND",))
    before = judge.game()["deadline"]
    judge.advance(days=4)  # two days left
    paused = judge.send(MASTER, master + "PAUSE\n")
    assert "which gives the time paused back" in paused.reply.body
    assert "the deadline moves on by the time the game was paused" in paused.of_kind("game_paused")[0].body
    judge.advance(days=3)  # the old deadline passes while paused: nothing happens
    assert judge.tick().mails == () and judge.game()["phase"] == "S1901M"
    resumed = judge.send(MASTER, master + "RESUME\n")
    after = judge.game()["deadline"]
    assert after - before == timedelta(days=3)  # still two days left
    assert "Deadline for S1901M: Wed 11 Mar 2026 12:00 UTC" in resumed.of_kind("game_resumed")[0].body
    judge.advance(days=1, hours=23)
    assert judge.tick().of_kind("late_notice") == []
    judge.advance(hours=1, minutes=1)
    assert judge.tick().of_kind("late_notice")  # late only at the moved deadline
