"""Issue 25.2: a command from a seat at another door (DAIDE) is a mail's command run through
the mail's dispatcher -- the same check of who may give it, the same handler and records."""

from __future__ import annotations

from sqlalchemy import select

from judge.commands.dispatch import run_at_seat
from judge.commands.draw import SetDraw, SetNoDraw
from judge.commands.settings import SetWait
from judge.store.models_game import Game, Membership, OrderSet
from mailcmds import OrderLines, SourceLine


def _at_seat(judge, power, command):
    with judge.session() as session:
        game = session.execute(select(Game)).scalar_one()
        member = session.execute(select(Membership).where(Membership.power == power)).scalar_one()
        return run_at_seat(session, judge.settings, judge.now, game, member, command)


def _member(judge, power):
    with judge.session() as session:
        member = session.execute(select(Membership).where(Membership.power == power)).scalar_one()
        return member.draw_vote, member.wait


def test_a_seat_s_draw_vote_is_recorded_as_set_draw_by_mail_records_it(judge, started):
    france = started["FRANCE"]
    assert "draw vote recorded" in judge.send(france.address, f"{france.signon}\nSET DRAW\n").reply.body
    assert _at_seat(judge, "GERMANY", SetDraw(None, source=SourceLine(0, "DRW"))) == (None, [])
    assert _member(judge, "GERMANY")[0] == _member(judge, "FRANCE")[0]
    assert _at_seat(judge, "GERMANY", SetNoDraw(source=SourceLine(0, "NOT (DRW)")))[0] is None
    assert _member(judge, "GERMANY")[0] != _member(judge, "FRANCE")[0]


def test_a_seat_s_refused_command_gets_the_mail_s_refusal_and_leaves_no_trace(judge, started):
    refusal, mails = _at_seat(judge, "GERMANY", SetDraw(("AUSTRIA", "ENGLAND"), source=SourceLine(0, "DRW")))
    assert "NO_DIAS" in refusal and mails == []
    assert _member(judge, "GERMANY")[0] is None


def test_a_seat_s_orders_and_gof_are_stored_as_a_mail_s(judge, started):
    refusal, _ = _at_seat(judge, "FRANCE", OrderLines((SourceLine(1, "A PAR - BUR"), SourceLine(2, "F BRE - MAO")),
                                                      source=SourceLine(1, "A PAR - BUR")))
    assert refusal is None
    with judge.session() as session:
        row = session.execute(select(OrderSet).where(OrderSet.power == "FRANCE")).scalar_one()
        assert sorted(row.orders) == ["A PAR - BUR", "F BRE - MAO"]
    refusal, _ = _at_seat(judge, "FRANCE", OrderLines((SourceLine(1, "A MUN - PAR"),), source=SourceLine(1, "A MUN - PAR")))
    assert refusal is not None  # not France's unit: the mail's check, the mail's words
    assert _at_seat(judge, "FRANCE", SetWait(True, source=SourceLine(0, "NOT (GOF)")))[0] is None
    assert _member(judge, "FRANCE")[1] is True
