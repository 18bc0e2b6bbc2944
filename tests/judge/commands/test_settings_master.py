"""Player settings, RESIGN and TAKEOVER, and the master's commands."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import select

from judge.store.queries import as_utc
from judge.lifecycle import ACTIVE, ENDED, PAUSED
from judge.store.models_game import DUMMY, EJECTED, RESIGNED, Game, Membership
from tests.judge.commands.conftest import MASTER, create_game

MASTER_SIGNON = "SIGNON master@g1 masterpw"


def game_row(judge) -> Game:
    with judge.session() as session:
        return session.execute(select(Game)).scalar_one()


def member(judge, power: str) -> Membership:
    with judge.session() as session:
        return session.execute(
            select(Membership).where(Membership.power == power).order_by(Membership.id.desc()).limit(1)
        ).scalar_one()


def test_wait_zone_and_address(judge, started):
    france = started["FRANCE"]
    reply = judge.send(france.address, f"{france.signon}\nSET WAIT\nSET ZONE america/new_york\n"
                                       "SET ADDRESS new-france@example.net\n").reply.body
    assert "WAIT set" in reply
    assert "Deadline: Sun 8 Mar 2026 08:00 EDT" in reply
    row = member(judge, "FRANCE")
    assert (row.wait, row.zone, row.address) == (True, "America/New_York", "new-france@example.net")
    bad = judge.send(france.address, f"{france.signon}\nSET ZONE Mars/Olympus\n").reply.body
    assert "unknown time zone 'Mars/Olympus'" in bad


def test_password_change_takes_effect(judge, started):
    france = started["FRANCE"]
    reply = judge.send(france.address, f"{france.signon}\nSET PASSWORD n3wpass\n").reply.body
    assert "password changed for FRANCE" in reply and "n3wpass" not in reply
    assert "wrong password" in judge.send(france.address, f"{france.signon}\n").reply.body
    assert "signed on as FRANCE" in judge.send(france.address, "SIGNON france@g1 n3wpass\n").reply.body


def test_absence_within_the_limit_is_stored(judge, started):
    france = started["FRANCE"]
    reply = judge.send(france.address, f"{france.signon}\nSET ABSENCE 2026-03-10 TO 2026-03-12\n").reply.body
    assert "absence noted from Tue 10 Mar 2026 00:00 UTC to Thu 12 Mar 2026 23:59 UTC" in reply
    [absence] = member(judge, "FRANCE").absences
    assert datetime.fromisoformat(absence["start"]) == datetime(2026, 3, 10, tzinfo=timezone.utc)
    too_long = judge.send(france.address, f"{france.signon}\nSET ABSENCE 2026-04-01 TO 2026-05-01\n").reply.body
    assert "exceeds this game's limit" in too_long


def test_resign_is_refused_whole_when_the_mail_has_an_error(judge, started):
    france = started["FRANCE"]
    refused = judge.send(france.address, f"{france.signon}\nRESIGN\nA PAR - MUN\n").reply.body
    assert "RESIGN refused: this mail has errors" in refused
    assert member(judge, "FRANCE").status == "active"
    out = judge.send(france.address, f"{france.signon}\nRESIGN\n")
    assert "you resigned FRANCE" in out.reply.body
    assert member(judge, "FRANCE").status == RESIGNED
    notices = out.of_kind("power_changed")
    assert len(notices) == 7 and france.address not in {m.address for m in notices}
    taken = judge.send("newbie@example.net", "TAKEOVER france@g1 fresh\nA PAR - BUR\n").reply.body
    assert "you now play FRANCE" in taken and "accepted: A PAR - BUR" in taken
    assert member(judge, "FRANCE").address == "newbie@example.net"


def test_master_pause_resume_terminate(judge, started):
    out = judge.send(MASTER, f"{MASTER_SIGNON}\nPAUSE\n")
    assert game_row(judge).status == PAUSED and game_row(judge).next_due_at is None
    assert len(out.of_kind("game_paused")) == 7
    judge.advance(days=10)
    out = judge.send(MASTER, f"{MASTER_SIGNON}\nRESUME\n")
    game = game_row(judge)
    assert game.status == ACTIVE and as_utc(game.deadline) > judge.now
    assert len(out.of_kind("game_resumed")) == 7
    out = judge.send(MASTER, f"{MASTER_SIGNON}\nTERMINATE\n")
    game = game_row(judge)
    assert game.status == ENDED and game.outcome == {"kind": "terminated", "phase": "S1901M"}
    assert "terminated by the master" in out.of_kind("game_terminated")[0].body


def test_master_commands_need_the_master(judge, started):
    france = started["FRANCE"]
    body = judge.send(france.address, f"{france.signon}\nPAUSE\nEJECT G\n").reply.body
    assert body.count("only the master of game 'g1' can do this") == 2
    assert game_row(judge).status == ACTIVE


def test_set_deadline_in_the_game_zone_is_broadcast(judge, started):
    out = judge.send(MASTER, f"{MASTER_SIGNON}\nZONE Europe/Paris\nSET DEADLINE 2026-03-12 21:00\n")
    assert as_utc(game_row(judge).deadline) == datetime(2026, 3, 12, 20, 0, tzinfo=timezone.utc)
    notices = out.of_kind("deadline_changed")
    assert len(notices) == 7 and "Thu 12 Mar 2026 21:00 CET" in notices[0].body
    past = judge.send(MASTER, f"{MASTER_SIGNON}\nSET DEADLINE 2026-03-01 10:00\n").reply.body
    assert "has already passed" in past


def test_eject_dummy_revive(judge, started):
    judge.send(MASTER, f"{MASTER_SIGNON}\nEJECT germany\n")
    assert member(judge, "GERMANY").status == EJECTED
    judge.send(MASTER, f"{MASTER_SIGNON}\nDUMMY G\n")
    assert member(judge, "GERMANY").status == DUMMY
    refused = judge.send("x@example.net", "TAKEOVER germany@g1 pw\n").reply.body
    assert "its master must REVIVE GERMANY" in refused
    judge.send(MASTER, f"{MASTER_SIGNON}\nREVIVE G\n")
    assert "you now play GERMANY" in judge.send("x@example.net", "TAKEOVER germany@g1 pw\n").reply.body


def test_status_edits_after_master_signon(judge, started):
    body = judge.send(MASTER, f"{MASTER_SIGNON}\nRULE NO_PRESS\nRULE !NO_PRESS\nRULE GRACE_BUDGET 2\n"
                              "RULE PARADOX_ALL_FAIL\nRULE PARADOX_SZYKMAN\nMAP standard\n").reply.body
    assert "ERROR line 6: RULE PARADOX_SZYKMAN" in body and "at most one convoy-paradox rule" in body
    assert "ERROR line 7: MAP standard" in body and "only before anybody has joined" in body
    assert game_row(judge).rules == ["GRACE_BUDGET 2", "PARADOX_ALL_FAIL"]


def test_form_before_signing_on_says_how_a_master_signs_on(judge):
    """Issue 17.9: a newcomer's FORM without a sign-on is told the master's form."""
    create_game(judge, form=False)
    body = judge.send(MASTER, "FORM\n").reply.body
    assert "SIGNON master@game password (or SIGNON Mgame password)" in body
