"""TIMING lines in a CREATE mail and as the master's edits, end to end on a SQLite file.

The parser once refused NEXT, CLOCK, ZONE and several AT times inside TIMING; mailcmds now
reads the line with the judge's one grammar (judge.turns.timing), so every form the
grammar knows reaches the game and sets its deadlines.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import select

from judge.store.queries import as_utc
from judge.store.models_game import Game
from tests.judge.commands.conftest import MASTER, create_game, fill_game


def game_row(judge) -> Game:
    with judge.session() as session:
        return session.execute(select(Game)).scalar_one()


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


def test_next_several_at_times_and_zone_set_the_first_deadline(judge):
    # The harness starts on Monday 2 March 2026 12:00 UTC (13:00 in Paris).
    reply = judge.send(MASTER, "CREATE g1 masterpw\nTIMING NEXT 12H MOVE 1D AT 08:00,20:00 ZONE Europe/Paris\n"
                               "FORM\n").reply.body
    assert "ERROR" not in reply, reply
    assert "timing: MOVE 1D RETREAT 12H ADJUST 12H AT 08:00,20:00 WARN 4H ZONE Europe/Paris" in reply
    game = game_row(judge)
    assert game.zone == "Europe/Paris"
    fill_game(judge)
    # The first phase is twice MOVE 1D: Wed 4 Mar 13:00 Paris, snapped to the next AT time,
    # 20:00 Paris (CET, UTC+1); with AT 08:00 alone it would have been Thursday morning.
    assert as_utc(game_row(judge).deadline) == utc(2026, 3, 4, 19, 0)


def test_the_njudge_clock_block_sets_the_time_of_day(judge):
    create_game(judge, "TIMING MOVE CLOCK 1410 NEXT 72 RETREAT CLOCK 1410 NEXT 24")
    fill_game(judge)
    # 2 x 72 hours from Mon 2 Mar 12:00 UTC is Sun 8 Mar 12:00, snapped to 23:30 (minute 1410).
    assert as_utc(game_row(judge).deadline) == utc(2026, 3, 8, 23, 30)
    assert game_row(judge).timing["text"].startswith("MOVE 72H RETREAT 24H ADJUST 1D AT 23:30 ")


def test_a_master_edit_changes_only_what_it_names(judge):
    create_game(judge, "ZONE Asia/Tokyo", "TIMING MOVE 2D AT 09:00,21:00")
    reply = judge.send(MASTER, "SIGNON master@g1 masterpw\nTIMING GRACE 1D WARN 12H,2H\n").reply.body
    assert "ERROR" not in reply, reply
    stored = game_row(judge).timing["text"]
    assert stored == "MOVE 2D RETREAT 1D ADJUST 1D AT 09:00,21:00 GRACE 1D WARN 12H,2H ZONE Asia/Tokyo ABSENCE 2W"


def test_a_bad_timing_line_is_an_error_quoting_it_and_the_game_keeps_its_timing(judge):
    reply = judge.send(MASTER, "CREATE g1 masterpw\nTIMING MOVE 2D\nTIMING AT 20:00 ZONE Mars/Olympus\n"
                               "TIMING DAYS mtwtf\n").reply.body
    assert "ERROR line 3: TIMING AT 20:00 ZONE Mars/Olympus" in reply
    assert "unknown time zone 'Mars/Olympus'" in reply
    assert "ERROR line 4: TIMING DAYS mtwtf" in reply and "no day for movement deadlines" in reply
    game = game_row(judge)
    assert game.timing["text"].startswith("MOVE 2D RETREAT 1D ADJUST 1D WARN 4H ZONE UTC")
    assert game.zone == "UTC"
