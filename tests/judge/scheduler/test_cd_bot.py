"""RULE CD_BOT through the real store: a power in civil disorder is played by the bot, its
orders are recorded with the phase, and the results say so."""

from __future__ import annotations

from sqlalchemy import select

import maps
from adjudicator import api
from bot.stand_in import game_seed, stand_in_lines
from judge.store.models_game import PhaseRecord
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.scheduler.driver import HOLDS
from tests.judge.commands.conftest import MASTER

STANDARD = maps.load("standard")


def start(judge, *status):
    create_game(judge, *status)
    seats = fill_game(judge)
    return seats


def record_of(judge, phase: str) -> PhaseRecord:
    with judge.session() as session:
        return session.execute(select(PhaseRecord).where(PhaseRecord.phase == phase)).scalar_one()


def test_a_power_in_civil_disorder_is_played_by_the_bot(judge):
    seats = start(judge, "TIMING GRACE 12H", "RULE CIVIL_DISORDER", "RULE CD_BOT")
    for power, seat in seats.items():
        if power != "ENGLAND":
            judge.orders(seat, HOLDS[power])
    judge.advance(days=6, hours=13)  # past the deadline and the grace
    out = judge.tick()
    assert judge.game()["phase"] == "F1901M"
    body = out.of_kind("results")[0].body
    assert "ENGLAND:  (no orders received: civil disorder, played by the bot (RULE CD_BOT))" in body
    expected = stand_in_lines(STANDARD, api.initial_position(STANDARD), "ENGLAND", game_seed("g1"))
    assert record_of(judge, "S1901M").orders["ENGLAND"] == expected
    assert any(" - " in line for line in expected)  # the bot moves; civil disorder alone would hold
    assert sorted(judge.game()["position"]["units"]["ENGLAND"]) != ["A LVP", "F EDI", "F LON"]


def test_a_players_own_orders_stand_and_the_bot_orders_the_rest(judge):
    seats = start(judge, "RULE CD_BOT")
    for power, seat in seats.items():
        if power not in ("TURKEY", "ITALY"):
            judge.orders(seat, HOLDS[power])
    judge.orders(seats["TURKEY"], ["A CON - BUL"])  # one unit of three
    out = judge.send(MASTER, "SIGNON master@g1 masterpw\nPROCESS!\n")
    # The mail is answered at once; the bot thinks in its own process, then the phase is processed.
    assert "S1901M is processed as soon as the judge's bot has made the moves of ITALY, TURKEY" in out.reply.body
    assert not out.of_kind("results") and judge.game()["phase"] == "S1901M"
    body = judge.tick().of_kind("results")[0].body
    assert judge.game()["phase"] == "F1901M"
    assert "TURKEY:  (orders incomplete: the bot ordered the rest (RULE CD_BOT))" in body
    assert "ITALY:  (no orders received: civil disorder, played by the bot (RULE CD_BOT))" in body
    turkey = record_of(judge, "S1901M").orders["TURKEY"]
    assert turkey[-1] == "A CON - BUL"  # the player's order comes last: it is the one that counts
    assert {line.split()[1] for line in turkey} == {"ANK", "CON", "SMY"}
    assert "A CON - BUL                  moves" in body


def test_without_the_rule_civil_disorder_holds(judge):
    seats = start(judge, "TIMING GRACE 12H", "RULE CIVIL_DISORDER")
    for power, seat in seats.items():
        if power != "ENGLAND":
            judge.orders(seat, HOLDS[power])
    judge.advance(days=6, hours=13)
    body = judge.tick().of_kind("results")[0].body
    assert "ENGLAND:  (no orders received: civil disorder, units hold)" in body
    assert "ENGLAND" not in record_of(judge, "S1901M").orders
