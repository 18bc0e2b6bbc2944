"""CREATE with status lines, status edits, and the master's commands."""

from __future__ import annotations

from datetime import time

import pytest

from judge.commands.create import (
    Create,
    DeadlineStatus,
    DescStatus,
    ListStatus,
    MapStatus,
    PrivateStatus,
    RuleStatus,
    TimingStatus,
    WitnessStatus,
    ZoneStatus,
)
from judge.commands.master import (
    Dummy,
    Eject,
    Form,
    Pause,
    Preview,
    Process,
    Resume,
    Revive,
    Rollback,
    SetDeadline,
    Terminate,
)
from judge.commands.signon import Signon
from mailcmds import MASK, DateSpec
from judge.commands.registry import parse_text
from judge.turns.timing import Span, TimingChanges

CREATE_MAIL = """\
CREATE MyGame masterpw
MAP standard
RULE POWER_CHOICE
RULE GRACE_BUDGET 2
RULE !NO_PRESS
TIMING MOVE 3D RETREAT 1D ADJUST 1D AT 20:00 DAYS MTWTF GRACE 2D WARN 24H,4H

ZONE Europe/Paris   // the game's zone
DEADLINE 2025-03-01 20:00
PRIVATE clubword
DESC A friendly game for the club
LIST dip-list@lists.example.org
WITNESS witness@judge2.example.org
FORM
"""


def test_create_collects_its_status_lines():
    parsed = parse_text(CREATE_MAIL)
    assert parsed.errors == ()
    create, form = parsed.commands
    assert isinstance(create, Create) and isinstance(form, Form)
    assert (create.game, create.password) == ("mygame", "masterpw")
    assert create.source.text == f"CREATE MyGame {MASK}"
    kinds = [type(s) for s in create.status]
    assert kinds == [MapStatus, RuleStatus, RuleStatus, RuleStatus, TimingStatus, ZoneStatus, DeadlineStatus,
                     PrivateStatus, DescStatus, ListStatus, WitnessStatus]
    status = create.status
    assert status[0].name == "standard"
    assert (status[1].name, status[1].value, status[1].remove) == ("POWER_CHOICE", None, False)
    assert (status[2].name, status[2].value) == ("GRACE_BUDGET", "2")
    assert (status[3].name, status[3].remove) == ("NO_PRESS", True)
    assert status[4].text == "MOVE 3D RETREAT 1D ADJUST 1D AT 20:00 DAYS MTWTF GRACE 2D WARN 24H,4H"
    timing = status[4].changes.apply()
    assert (timing.movement, timing.retreat, timing.adjustment) == (Span(days=3), Span(days=1), Span(days=1))
    assert timing.at == (time(20, 0),) and timing.days == frozenset(range(5))
    assert timing.grace == Span(days=2) and timing.warn == (Span(seconds=24 * 3600), Span(seconds=4 * 3600))
    assert timing.reveal is None
    assert status[5].zone == "Europe/Paris"
    assert status[6].when == DateSpec(2025, 3, 1, time(20, 0))
    assert status[7].password == "clubword" and "clubword" not in status[7].source.text
    assert status[8].text == "A friendly game for the club"
    assert status[9].address == "dip-list@lists.example.org"
    assert status[10].address == "witness@judge2.example.org"
    assert status[7].source.number == 10


def test_bad_status_lines_are_errors_and_the_rest_is_kept():
    parsed = parse_text("CREATE g1 pw\nMAP standard\nTIMING MOVE 3X\nRULE bad-name\nRULE A B C\nLIST nobody\nDESC")
    create = parsed.commands[0]
    assert [type(s) for s in create.status] == [MapStatus]
    messages = [e.message for e in parsed.errors]
    assert "not a time span: '3X'" in messages[0] and "TIMING [NEXT 1D] [MOVE 3D]" in messages[0]
    assert "not a rule name" in messages[1]
    assert "unexpected 'C'" in messages[2]
    assert "not an e-mail address" in messages[3]
    assert "DESC needs a description" in messages[4]
    assert [e.line_no for e in parsed.errors] == [3, 4, 5, 6, 7]


def test_a_failed_create_sets_its_status_lines_aside():
    parsed = parse_text("CREATE bad!name pw\nMAP standard\nRULE NO_PRESS")
    assert parsed.commands == ()
    assert "not a game name" in parsed.errors[0].message and MASK in parsed.errors[0].text
    assert [l.text for l in parsed.unprocessed] == ["MAP standard", "RULE NO_PRESS"]


def test_create_with_a_variant_word_points_to_map():
    assert "MAP standard" in parse_text("CREATE g1 pw standard").errors[0].message


def test_status_edits_after_master_signon_are_standalone_commands():
    parsed = parse_text("SIGNON master@g1 pw\nRULE NO_PRESS\nDEADLINE 5 Mar 18:00\nLIST g1\nLIST l@x.org")
    assert parsed.errors == ()
    signon, rule, deadline, listing, list_edit = parsed.commands
    assert isinstance(signon, Signon) and isinstance(rule, RuleStatus) and rule.name == "NO_PRESS"
    assert deadline.when == DateSpec(None, 3, 5, time(18, 0))
    assert listing.game == "g1" and isinstance(list_edit, ListStatus)


def test_master_commands():
    parsed = parse_text(
        "SIGNON Mg1 pw\nFORM\nPAUSE\nRESUME\nTERMINATE\nPROCESS\nPROCESS!\nPREVIEW\nROLLBACK s1902m\nROLLBACK\n"
        "SET DEADLINE 2025-01-14 20:00\nEJECT france\nDUMMY F\nREVIVE italy"
    )
    assert parsed.errors == ()
    commands = parsed.commands[1:]
    assert [type(c) for c in commands] == [Form, Pause, Resume, Terminate, Process, Process, Preview, Rollback,
                                           Rollback, SetDeadline, Eject, Dummy, Revive]
    assert (commands[4].force, commands[5].force) == (False, True)
    assert commands[7].phase == "S1902M" and commands[8].phase is None
    assert commands[9].when == DateSpec(2025, 1, 14, time(20, 0))
    assert (commands[10].power, commands[11].power, commands[12].power) == ("FRANCE", "F", "ITALY")


@pytest.mark.parametrize("line, fragment", [
    ("ROLLBACK spring", "not a phase"),
    ("SET DEADLINE", "needs a date"),
    ("SET DEADLINE tomorrow", "is not a date"),
    ("EJECT", "needs the power"),
    ("PROCESS now", "takes nothing"),
    ("TIMING", "at least one setting"),
    ("TIMING MOVE", "needs a value"),
    ("TIMING MOVE 1D MOVE 2D", "twice"),
    ("TIMING AT 25:00", "24-hour"),
    ("TIMING DAYS XYZ", "not a day or day range: 'XYZ'"),
    ("TIMING DAYS -------", "allows no day"),
    ("TIMING DAYS mtwtf", "no day for movement deadlines"),
    ("TIMING SPEED 3D", "unknown setting 'SPEED'"),
    ("TIMING ZONE Mars/Olympus", "unknown time zone 'Mars/Olympus'"),
    ("TIMING MOVE 0", "cannot be zero"),
    ("TIMING CLOCK 1440", "not a CLOCK value"),
    ("TIMING MOVE " + "9" * 400 + "D", "longer than a year"),
    ("RULE !NO_PRESS 1", "takes no value"),
    ("MAP two words", "'words' is not a phase"),  # MAP game phase: the picture of a phase
    ("PRIVATE", "privacy keyword"),
])
def test_master_and_status_errors(line, fragment):
    parsed = parse_text(f"SIGNON Mg1 pw\n{line}")
    assert len(parsed.errors) == 1 and fragment in parsed.errors[0].message, parsed.errors


def timing_line(text: str) -> TimingChanges:
    parsed = parse_text(f"SIGNON Mg1 pw\nTIMING {text}")
    assert parsed.errors == (), parsed.errors
    return parsed.commands[1].changes


# The TIMING line is read with judge.turns.timing, the judge's one grammar.  Where the
# narrower grammar mailcmds once had read DAYS differently, the shared one is the DPjudge's:
# seven letters are Sunday first when they fit (------S is Saturday, not Sunday) and
# lower-case letters keep their meaning (no movement deadline that day).
@pytest.mark.parametrize("text, days", [
    ("MTWTF", {0, 1, 2, 3, 4}),
    ("MTWTF--", {0, 1, 2, 3, 4}),
    ("M-W-F", {0, 2, 4}),
    ("-MTWTF-", {0, 1, 2, 3, 4}),
    ("SMTWTFS", set(range(7))),
    ("------S", {5}),
    ("MON-FRI", {0, 1, 2, 3, 4}),
    ("fri-mon", {4, 5, 6, 0}),
    ("SAT,SUN", {5, 6}),
    ("wednesday", {2}),
])
def test_days(text, days):
    assert timing_line(f"DAYS {text}").apply().days == frozenset(days)


def test_lower_case_days_allow_retreats_and_builds_only():
    timing = timing_line("DAYS SmTWTFs").apply()
    assert timing.days == frozenset(range(7)) and timing.movement_days == frozenset({6, 1, 2, 3, 4})  # not Mon, Sat


def test_the_full_grammar_reaches_the_status_line():
    changes = timing_line("NEXT 2D MOVE 3D AT 08:00,20:00 ZONE europe/paris ABSENCE 7D REVEAL 12H")
    assert changes.text == "NEXT 2D MOVE 3D AT 08:00,20:00 ZONE europe/paris ABSENCE 7D REVEAL 12H"
    timing = changes.apply()
    assert (timing.movement, timing.retreat, timing.adjustment) == (Span(days=3), Span(days=2), Span(days=2))
    assert timing.at == (time(8, 0), time(20, 0)) and timing.zone == "Europe/Paris"
    assert (timing.absence_limit, timing.reveal) == (Span(days=7), Span(seconds=12 * 3600))
    njudge = timing_line("MOVE CLOCK 1410 NEXT 72 GRACE 168 RETREAT NEXT 24").apply()
    assert njudge.at == (time(23, 30),) and njudge.movement == Span(seconds=72 * 3600)
    assert njudge.retreat == Span(seconds=24 * 3600) and njudge.grace == Span(seconds=168 * 3600)


def test_a_timing_line_changes_only_what_it_names():
    base = timing_line("MOVE 2D GRACE 1D ZONE Asia/Tokyo").apply()
    edited = timing_line("WARN 12H").apply(base)
    assert (edited.movement, edited.grace, edited.zone) == (Span(days=2), Span(days=1), "Asia/Tokyo")
    assert edited.warn == (Span(seconds=12 * 3600),)
