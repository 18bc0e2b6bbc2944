"""RULE PREFERENCES reserves fill every dropped power, not only a resigned one: a power whose
player the master ejects, a dummy the master revives, a late player the scheduler dismisses
after grace.  A DUMMY is played by the master: no reserve takes it.

A judge on a SQLite file driven by mail, with scheduler passes at the harness clock.
"""

from __future__ import annotations

from sqlalchemy import select

from judge.store.models_game import Membership
from tests.judge.scheduler.conftest import create_game
from tests.judge.scheduler.driver import HOLDS
from tests.judge.commands.conftest import MASTER, Seat
from tests.judge.commands.harness import player

MASTER_SIGNON = "SIGNON master@g1 masterpw\n"
# Reserves (observers): eight wants Russia, ten wants England, nine takes anything.
RESERVES = (("eight", "%R"), ("nine", "%*"), ("ten", "%E"))


def reserve_address(name: str) -> str:
    return f"{name}@example.net"


def start_with_reserves(judge) -> dict[str, Seat]:
    create_game(judge, "RULE PREFERENCES", "RULE LOTTERY_SHA256", "TIMING GRACE 1D")
    for name, wanted in RESERVES:
        reply = judge.send(reserve_address(name), f"OBSERVE {name}@g1 rpw\nSET PREFERENCE {wanted}\n").reply
        assert "ERROR" not in reply.body, reply.body
    for index, letter in enumerate("AEFGIRT"):  # every first choice unopposed: no lottery
        reply = judge.send(player(index), f"JOIN g1 pw{index}\nSET PREFERENCE {letter}\n").reply
        assert "ERROR" not in reply.body, reply.body
    assert judge.game()["status"] == "active"
    return {power: Seat(power, player(index), f"pw{index}")
            for index, power in enumerate(("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"))}


def active_players(judge) -> dict[str, str]:
    with judge.session() as session:
        rows = session.execute(select(Membership).where(
            Membership.role == "player", Membership.status == "active")).scalars()
        return {m.power: m.address for m in rows}


def test_reserves_fill_ejected_revived_and_dismissed_powers_but_not_a_dummy(judge) -> None:
    seats = start_with_reserves(judge)

    out = judge.send(MASTER, MASTER_SIGNON + "EJECT RUSSIA\n")
    assert "ERROR" not in out.reply.body, out.reply.body
    assert any("RUSSIA is now played by the reserve R1" in m.body for m in out.of_kind("power_changed"))
    assert active_players(judge)["RUSSIA"] == reserve_address("eight")

    out = judge.send(MASTER, MASTER_SIGNON + "DUMMY ENGLAND\n")
    assert "ERROR" not in out.reply.body, out.reply.body
    assert not any("reserve" in m.body for m in out.mails)  # the master plays a dummy
    assert "ENGLAND" not in active_players(judge)

    # Everyone but Turkey orders (Russia by its reserve); Turkey is dismissed after grace.
    for power, seat in seats.items():
        if power in ("ENGLAND", "RUSSIA", "TURKEY"):
            continue
        assert "ERROR" not in judge.orders(seat, HOLDS[power]).reply.body
    russia = Seat("RUSSIA", reserve_address("eight"), "rpw")
    assert "ERROR" not in judge.orders(russia, HOLDS["RUSSIA"]).reply.body
    judge.advance(days=6, minutes=1)
    assert judge.tick().of_kind("late_notice")
    judge.advance(days=1)
    out = judge.tick()
    assert [m.address for m in out.of_kind("dismissal") if "dismissed from game" in m.body] == [seats["TURKEY"].address]
    # nobody listed Turkey: the reserve without preference takes it, so the master is not asked
    assert any("TURKEY is now played by the reserve R2" in m.body for m in out.of_kind("power_changed"))
    assert not out.of_kind("master_notice")
    assert active_players(judge)["TURKEY"] == reserve_address("nine")
    # seated past the deadline, the reserve gets a fresh deadline instead of being dismissed at once
    assert any("The deadline passed before the reserve came in" in m.body for m in out.of_kind("power_changed"))
    judge.advance(hours=1)
    assert not judge.tick().of_kind("dismissal")
    assert active_players(judge)["TURKEY"] == reserve_address("nine")

    out = judge.send(MASTER, MASTER_SIGNON + "REVIVE ENGLAND\n")
    assert any("ENGLAND is now played by the reserve R3" in m.body for m in out.of_kind("power_changed"))
    assert active_players(judge)["ENGLAND"] == reserve_address("ten")

    # the reserves order and the phase goes on
    for name, power in (("nine", "TURKEY"), ("ten", "ENGLAND")):
        assert "ERROR" not in judge.orders(Seat(power, reserve_address(name), "rpw"), HOLDS[power]).reply.body
    judge.tick()
    judge.tick()
    assert judge.game()["phase"] == "F1901M"
