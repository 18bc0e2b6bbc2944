"""Issue 29 item 10: PRESS to a power the judge's bot plays gets the reply any press gets --
never "sent to nobody", never a word that the power is a machine -- and is recorded."""

from __future__ import annotations

from sqlalchemy import select

from judge.store.models_game import PressLog
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
