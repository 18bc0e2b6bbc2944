"""What a newcomer met playing a first game (issue 17, players and masters), each with the
mail the newcomer sent, through the real worker and scheduler passes:

2. a ready phase is processed right after the mail that made it ready, or the reply says
   when it will be (the settle window, a WAIT);
3. results show where every unit stands and who owns every centre, builds included;
4. the master's SUMMARY says whose orders are in and who is late; a player's only his own;
7. a reply from a mail client (a greeting, a signature, quoted press) costs no errors;
   a press mail says how to answer it;
8. a player without a power is told his number, which does not shift when another leaves;
9. the TIMING echo says in which zone times are read; HISTORY reads as the results.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from judge.store.queries import as_utc
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.scheduler.driver import HOLDS, TurnHarness
from tests.judge.commands.conftest import MASTER, Seat

MASTER_SIGNON = "SIGNON master@g1 masterpw\n"


@pytest.fixture
def started(judge: TurnHarness) -> dict[str, Seat]:
    create_game(judge)
    return fill_game(judge)


def orders(judge: TurnHarness, seat: Seat, *lines: str):
    return judge.send(seat.address, seat.signon + "\n" + "\n".join(lines) + "\n")


def past_deadline(judge: TurnHarness) -> None:
    judge.now = as_utc(judge.game()["deadline"]) + timedelta(hours=1)


# -- 2. processing right after the mail ------------------------------------------------------
def test_last_orders_after_the_deadline_are_processed_right_after_that_mail(judge, started):
    *first, last = sorted(started)
    for power in first:
        orders(judge, started[power], *HOLDS[power])
    past_deadline(judge)
    out = orders(judge, started[last], *HOLDS[last])
    assert "Processing: all orders are in: the phase is processed right after this mail" in out.reply.body
    results = out.of_kind("results")
    assert {m.address for m in results} >= {seat.address for seat in started.values()}
    assert results[0].subject == "g1 S1901M results"
    assert judge.game()["phase"] == "F1901M"
    assert judge.tick().mails == ()  # nothing left for the scheduler


def test_last_orders_before_the_deadline_say_when_the_settle_window_ends(judge, started):
    *first, last = sorted(started)
    for power in first:
        orders(judge, started[power], *HOLDS[power])
    out = orders(judge, started[last], *HOLDS[last])
    assert out.of_kind("results") == []
    assert ("the phase waits 1 scheduler pass (a settle window in which orders may still change) and is "
            "processed at the pass after, within 40 minutes") in out.reply.body
    assert judge.tick().of_kind("results") == [] and judge.last_report.count("waited") == 1
    assert judge.tick().of_kind("results") and judge.game()["phase"] == "F1901M"


def test_rule_no_settle_processes_last_orders_before_the_deadline_right_after_that_mail(judge):
    create_game(judge, "RULE NO_SETTLE")
    seats = fill_game(judge)
    *first, last = sorted(seats)
    for power in first:
        assert orders(judge, seats[power], *HOLDS[power]).of_kind("results") == []
    out = orders(judge, seats[last], *HOLDS[last])
    assert "Processing: all orders are in: the phase is processed right after this mail" in out.reply.body
    assert out.of_kind("results")[0].subject == "g1 S1901M results"
    assert judge.game()["phase"] == "F1901M"


def test_all_orders_in_with_a_wait_say_the_deadline(judge, started):
    *first, last = sorted(started)
    for power in first:
        orders(judge, started[power], *HOLDS[power])
    reply = orders(judge, started[last], *HOLDS[last], "SET WAIT").reply.body
    assert "Processing: all orders are in; the phase waits for its deadline (a player has set WAIT), " \
           "Sun 8 Mar 2026 12:00 UTC." in reply
    reply = orders(judge, started[last], "SET NOWAIT").reply.body
    assert "and is processed at the pass after, within 40 minutes" in reply


# -- 3. results show the position ------------------------------------------------------------
def test_results_show_where_every_unit_stands_and_who_owns_the_centres(judge, started):
    france = started["FRANCE"]
    orders(judge, france, "A PAR - BUR", "A MAR - SPA", "F BRE - MAO")
    results = judge.send(MASTER, MASTER_SIGNON + "PROCESS!\n").of_kind("results")
    body = results[0].body
    assert "The position now (units and supply centres):" in body
    assert "FRANCE   units: A BUR, F MAO, A SPA\n         centres (3): BRE, MAR, PAR" in body
    orders(judge, france, "A SPA H", "A BUR H", "F MAO - POR")
    body = judge.send(MASTER, MASTER_SIGNON + "PROCESS!\n").of_kind("results")[0].body
    assert "FRANCE   units: A BUR, F POR, A SPA\n         centres (5): BRE, MAR, PAR, POR, SPA" in body
    reply = orders(judge, france, "BUILD A PAR", "BUILD F BRE")
    body = judge.send(MASTER, MASTER_SIGNON + "PROCESS!\n").of_kind("results")[0].body
    assert "Results of game g1, Winter 1901 adjustments (W1901A)." in body
    assert "FRANCE   units: F BRE, A BUR, A PAR, F POR, A SPA\n         centres (5)" in body, reply


# -- 4. the master sees who has not ordered -----------------------------------------------------
def test_the_masters_summary_shows_who_has_not_ordered_and_who_is_late(judge, started):
    orders(judge, started["ITALY"], *HOLDS["ITALY"])
    orders(judge, started["FRANCE"], "A PAR - BUR", "SET WAIT")
    body = judge.send(MASTER, MASTER_SIGNON + "SUMMARY g1\n").reply.body
    assert "Orders for S1901M (powers the phase waits for):\n  AUSTRIA  no orders yet\n" in body
    assert "  FRANCE   orders incomplete, waits for the deadline (SET WAIT)\n" in body
    assert "  ITALY    orders in\n" in body
    italy = started["ITALY"]
    body = judge.send(italy.address, italy.signon + "\nSUMMARY g1\n").reply.body
    assert "Orders for S1901M:\n  ITALY    orders in\n" in body and "AUSTRIA  no orders" not in body
    past_deadline(judge)
    body = judge.send(MASTER, MASTER_SIGNON + "SUMMARY g1\n").reply.body
    assert "  AUSTRIA  LATE: no orders yet\n" in body and "  FRANCE   LATE: orders incomplete" in body
    assert "  ITALY    orders in\n" in body


# -- 7. replies from mail clients ------------------------------------------------------------
REPLY_TO_PRESS = """{signon}
A PAR - BUR
F BRE - MAO

Sounds good, let us talk about the Channel.

Thanks,
John
Sent from my iPhone

On Mon, 2 Mar 2026 at 12:00, Test Judge <judge@example.org> wrote:
> Press in game g1 from ENGLAND to FRANCE:
>
> Shall we talk?
"""


def test_a_reply_from_a_mail_client_costs_no_errors(judge, started):
    england, france = started["ENGLAND"], started["FRANCE"]
    press = judge.send(england.address, england.signon + "\nPRESS TO F\nShall we talk?\nENDPRESS\n")
    [to_france] = press.to(france.address, "press")
    assert ("To answer, reply to this mail (it goes to the judge) with your SIGNON line, then PRESS TO "
            "ENGLAND, your message and ENDPRESS") in to_france.body
    reply = judge.send(france.address, REPLY_TO_PRESS.format(signon=france.signon),
                       subject="Re: g1: press from ENGLAND").reply.body
    assert "ERROR" not in reply, reply
    assert reply.count("lines 5-9 after your last command or order read as words") == 1
    assert "Lines not processed:\n  line 5: Sounds good, let us talk about the Channel.\n  line 7: Thanks,\n" \
           "  line 8: John\n  line 9: Sent from my iPhone\n" in reply
    assert "Shall we talk" not in reply  # the quoted press is skipped
    assert "accepted: A PAR - BUR" in reply and "accepted: F BRE - MAO" in reply


def test_words_before_more_orders_are_still_errors(judge, started):
    france = started["FRANCE"]
    reply = orders(judge, france, "A PAR - BUR", "Thanks, John", "F BRE - MAO").reply.body
    assert "ERROR line 3: Thanks, John" in reply and "accepted: F BRE - MAO" in reply


# -- 8. P numbers ------------------------------------------------------------------------------
def test_p_numbers_are_told_and_do_not_shift_when_an_earlier_player_resigns(judge):
    judge.send(MASTER, "CREATE g1 masterpw\nFORM\n")
    replies = [judge.send(f"p{i}@example.net", f"JOIN g1 pw{i}\n").reply.body for i in range(3)]
    for number, reply in enumerate(replies, start=1):
        assert f"joined game 'g1' as player P{number}:" in reply
        assert f"== Game g1: player P{number} (until powers are assigned you sign on as SIGNON P{number}@g1 " in reply
    assert "you left game 'g1'" in judge.send("p0@example.net", "SIGNON P1@g1 pw0\nRESIGN\n").reply.body
    reply = judge.send("p1@example.net", "SIGNON P2@g1 pw1\n").reply.body
    assert "ERROR" not in reply and "signed on as player P2 (power not yet assigned)" in reply
    assert "as player P4:" in judge.send("p9@example.net", "JOIN g1 pw9\n").reply.body


# -- 9. TIMING and HISTORY ---------------------------------------------------------------------
def test_the_timing_echo_names_the_zone_times_are_read_in(judge):
    reply = judge.send(MASTER, "CREATE g1 masterpw\nSET ZONE Europe/Paris\nTIMING MOVE 2D AT 20:00\n").reply.body
    assert ("timing: MOVE 2D RETREAT 1D ADJUST 1D AT 20:00 WARN 4H ZONE UTC ABSENCE 2W (from the next deadline "
            "the judge sets); times of day are read in the game's zone, UTC, not in Europe/Paris, the zone you "
            "see deadlines in (SET ZONE); write ZONE Europe/Paris to make it the game's zone") in reply
    reply = judge.send(MASTER, MASTER_SIGNON + "ZONE Europe/Paris\nTIMING MOVE 3D\n").reply.body
    assert "ZONE Europe/Paris ABSENCE 2W (from the next deadline the judge sets)\n" in reply


def test_history_reads_as_the_results_mail(judge, started):
    for power in ("AUSTRIA", "ENGLAND", "ITALY", "RUSSIA", "TURKEY"):
        orders(judge, started[power], *HOLDS[power])
    orders(judge, started["FRANCE"], "A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO")
    orders(judge, started["GERMANY"], "A MUN - BUR", "A BER H", "F KIE H")
    results = judge.send(MASTER, MASTER_SIGNON + "PROCESS!\n").of_kind("results")[0].body
    history = judge.send("curious@example.net", "HISTORY g1\n").reply.body
    section = results[results.index("AUSTRIA:"):results.index("\n\nThe position now")]
    assert "GERMANY:\n  A BER H                      holds\n  F KIE H                      holds\n" \
           "  A MUN - BUR                  BOUNCED" in section
    assert "Spring 1901 movement (S1901M), processed Mon 2 Mar 2026 12:00 UTC:\n" in history
    assert section in history
