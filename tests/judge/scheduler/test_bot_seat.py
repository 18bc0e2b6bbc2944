"""SEAT power BOT and SEAT BOT through the worker and the scheduler pass: the judge's bot
plays a seat the master gave it, its orders made by a bot job as soon as the seat is given
and stored as that power's own; the phase waits for nothing else of it."""

from __future__ import annotations

from sqlalchemy import select

import maps
from adjudicator import api
from bot.stand_in import game_seed, stand_in_lines
from judge.store.models_game import Membership, OrderSet, PhaseRecord
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.scheduler.driver import HOLDS
from tests.judge.commands.conftest import MASTER

STANDARD = maps.load("standard")
MASTER_SIGNON = "SIGNON master@g1 masterpw\n"


def _record(judge, phase: str) -> PhaseRecord:
    with judge.session() as session:
        return session.execute(select(PhaseRecord).where(PhaseRecord.phase == phase)).scalar_one()


def test_the_bot_plays_an_ejected_power_and_the_phase_does_not_wait_for_it(judge) -> None:
    create_game(judge)
    seats = fill_game(judge)
    reply = judge.send(MASTER, MASTER_SIGNON + "SEAT FRANCE BOT\n").reply.body
    assert "FRANCE has a player; EJECT FRANCE first" in reply
    out = judge.send(MASTER, MASTER_SIGNON + "EJECT FRANCE\nSEAT FRANCE BOT\n")
    assert "FRANCE is now played by the judge's bot; EJECT FRANCE takes it back" in out.reply.body
    assert "ERROR" not in out.reply.body
    told = out.to(seats["ENGLAND"].address, "power_changed")
    assert told and "FRANCE is now played by the judge's bot" in told[-1].body
    assert judge.bots() == 1  # a bot process makes FRANCE's moves at once ...
    expected = stand_in_lines(STANDARD, api.initial_position(STANDARD), "FRANCE", game_seed("g1"))
    with judge.session() as session:  # ... stored as FRANCE's orders, as a mail's are
        stored = session.scalars(select(OrderSet).where(OrderSet.power == "FRANCE")).one()
        assert sorted(stored.orders) == sorted(expected) and stored.phase == "S1901M"
    for power, seat in seats.items():
        if power != "FRANCE":
            judge.orders(seat, HOLDS[power])
    assert judge.game()["delay"] == 1  # every order is in (the bot's counted): the settle window
    assert judge.tick().mails == ()  # DELAY 1 -> 0
    results = judge.tick().of_kind("results")
    assert judge.game()["phase"] == "F1901M"  # processed long before the deadline
    assert _record(judge, "S1901M").orders["FRANCE"] == expected
    assert any(" - " in line for line in expected)
    assert "civil disorder" not in results[0].body.split("FRANCE", 1)[1].split("\n", 1)[0]


def test_seat_bot_fills_the_last_place_of_a_forming_game_and_it_starts(judge) -> None:
    create_game(judge)
    for index in range(6):
        judge.send(f"player{index}@example.net", f"JOIN g1 pw{index}\n")
    out = judge.send(MASTER, MASTER_SIGNON + "SEAT BOT\n")
    assert "the judge's bot joined game 'g1': 7 of 7 places taken" in out.reply.body
    assert "game 'g1' is full and has started" in out.reply.body
    with judge.session() as session:
        bots = session.scalars(select(Membership).where(Membership.address.like("judge-bot%"))).all()
        assert [m.power is not None for m in bots] == [True]
        assert bots[0].address.endswith("@machines.invalid")
    assert judge.game()["status"] == "active"
    assert not [m for m in out.mails if m.address.endswith("@machines.invalid")]


def test_seat_refusals_say_what_would_be_accepted(judge) -> None:
    create_game(judge)
    reply = judge.send(MASTER, MASTER_SIGNON + "SEAT FRANCE BOT\n").reply.body
    assert "SEAT FRANCE BOT: the powers of game 'g1' are dealt when it starts; SEAT BOT takes a free place" in reply
    reply = judge.send(MASTER, MASTER_SIGNON + "SEAT FRANCE HUMAN\n").reply.body
    assert "SEAT FRANCE HUMAN" in reply and "SEAT power BOT in a running game, SEAT BOT in a forming one" in reply
    fill_game(judge)
    reply = judge.send(MASTER, MASTER_SIGNON + "EJECT ITALY\nSEAT BOT\n").reply.body
    assert "game 'g1' is running: name the power, SEAT power BOT" in reply
    reply = judge.send("player1@example.net", "SEAT ITALY BOT\n").reply.body
    assert "ERROR" in reply and "ITALY is now played" not in reply
