"""Issue 29 item 10: PRESS to a power the judge's bot plays gets the reply any press gets --
never "sent to nobody", never a word that the power is a machine -- and is recorded."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from daide.messages import to_text
from judge.press.machine_press import for_machines
from judge.store.models_game import Game, OrderSet, PressLog
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.commands.conftest import MASTER

MASTER_SIGNON = "SIGNON master@g1 masterpw\n"


def test_press_to_the_judges_bot_reads_like_press_to_anyone(judge) -> None:
    create_game(judge)
    seats = fill_game(judge)
    judge.send(MASTER, MASTER_SIGNON + "EJECT FRANCE\nSEAT FRANCE BOT\n")
    england = seats["ENGLAND"]
    body = judge.send(england.address, f"SIGNON england@g1 {england.password}\n"
                                       "PRESS TO F\nShall we split the Channel?\nENDPRESS\n").reply.body
    assert "press sent to FRANCE" in body
    for word in ("nobody", "machine", "bot", "DAIDE", "press level"):
        assert word not in body, body
    with judge.session() as session:
        logged = session.scalars(select(PressLog)).all()
    assert [(row.sender, row.recipients) for row in logged] == [("ENGLAND", ["FRANCE"])]


def _bot_press(judge, power: str = "FRANCE") -> list[tuple[str, list, list]]:
    with judge.session() as session:
        return [(r.sender, r.recipients, r.daide) for r in session.scalars(select(PressLog).order_by(PressLog.id))
                if r.sender == power]


@pytest.mark.parametrize("rules, proposals", [
    (("RULE PRESS_LEVEL 10",), [("AUSTRIA", ["ITALY"], ["PRP (PCE (AUS ITA))"])]),
    (("RULE NO_PRESS", "RULE PRESS_LEVEL 10"), []),
    ((), []),
])
def test_the_bots_seat_proposes_peace_at_the_opening_only_where_press_is_allowed(judge, rules, proposals) -> None:
    create_game(judge, *rules)
    fill_game(judge)
    judge.send(MASTER, MASTER_SIGNON + "EJECT AUSTRIA\nSEAT AUSTRIA BOT\n")
    assert judge.bots() == 1  # its moves, and at the opening its proposals: Italy's army can reach Trieste
    with judge.session() as session:
        assert session.scalars(select(OrderSet.orders).where(OrderSet.power == "AUSTRIA")).one()
    assert _bot_press(judge, "AUSTRIA") == proposals


def _orders_of(judge, power: str) -> list[str]:
    with judge.session() as session:
        return sorted(session.scalars(select(OrderSet.orders).where(OrderSet.power == power)).one())


def test_the_judges_bot_answers_press_in_a_bot_process_and_keeps_what_it_agreed(judge) -> None:
    create_game(judge, "RULE PRESS_LEVEL 20")
    seats = fill_game(judge)
    judge.send(MASTER, MASTER_SIGNON + "EJECT FRANCE\nSEAT FRANCE BOT\n")
    judge.bots()
    assert "A PAR - BUR" in _orders_of(judge, "FRANCE")
    england = seats["ENGLAND"]
    out = judge.send(england.address, f"SIGNON england@g1 {england.password}\n"
                                      "PRESS TO F\nPROPOSE PEACE\nPROPOSE DMZ BUR\nPROPOSE DMZ BRE\nENDPRESS\n")
    assert "press sent to FRANCE" in out.reply.body and "ERROR" not in out.reply.body
    assert _bot_press(judge) == []  # not in the mail's transaction: a job for a bot process
    assert judge.bots() == 1
    answers = _bot_press(judge)
    assert [(r, d) for _, r, d in answers] == [(["ENGLAND"], ["YES (PRP (PCE (ENG FRA)))"]),
                                               # at peace: the contested Channel offered at once
                                               (["ENGLAND"], ["PRP (DMZ (FRA ENG) (ECH))"]),
                                               (["ENGLAND"], ["YES (PRP (DMZ (ENG FRA) (BUR)))"]),
                                               (["ENGLAND"], ["REJ (PRP (DMZ (ENG FRA) (BRE)))"])]
    # The phase's orders made again within what it agreed: nothing into Burgundy now.
    assert not [line for line in _orders_of(judge, "FRANCE") if line.endswith("- BUR")]
    # Redelivered work changes nothing: no second job, no second answer.
    assert judge.bots() == 0 and _bot_press(judge) == answers


def test_the_bots_seat_press_is_relayed_to_daide_machines(judge) -> None:
    """What the DAIDE edge relays as FRM (machine_press.for_machines) includes the seat's press."""
    create_game(judge, "RULE MACHINES", "RULE PRESS_LEVEL 10")
    fill_game(judge)
    judge.send(MASTER, MASTER_SIGNON + "EJECT AUSTRIA\nSEAT AUSTRIA BOT\n")
    judge.bots()
    with judge.session() as session:
        game = session.scalars(select(Game)).one()
        relayed = [(sender, recipients, to_text(press)) for _, sender, recipients, press in for_machines(session, game, 0)]
    assert relayed == [("AUSTRIA", ("ITALY",), "PRP (PCE (AUS ITA))")]
