"""A player who TAKEOVERs a dismissed power after the grace end (without orders in the same
mail) gets a fresh deadline: the next scheduler pass must not dismiss them at once.

A judge on a SQLite file driven by mail, with scheduler passes at the harness clock.
"""

from __future__ import annotations

from datetime import timedelta, timezone

from sqlalchemy import select

from judge.store.models_game import Membership
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.scheduler.driver import HOLDS

NEWCOMER = "newcomer@example.net"


def russia_players(judge) -> list[tuple[str, str]]:
    with judge.session() as session:
        rows = session.execute(select(Membership).where(Membership.power == "RUSSIA")).scalars()
        return [(m.address, m.status) for m in rows]


def test_takeover_after_grace_gets_a_fresh_deadline_and_is_not_dismissed(judge) -> None:
    create_game(judge, "TIMING GRACE 1D")
    seats = fill_game(judge)
    for power, seat in seats.items():
        if power != "RUSSIA":
            assert "ERROR" not in judge.orders(seat, HOLDS[power]).reply.body
    judge.advance(days=6, minutes=1)
    judge.tick()
    judge.advance(days=1)
    out = judge.tick()
    assert [m.address for m in out.of_kind("dismissal") if "dismissed from game" in m.body] == [seats["RUSSIA"].address]
    old_deadline = judge.game()["deadline"]

    judge.advance(hours=2)
    out = judge.send(NEWCOMER, "TAKEOVER russia@g1 newpw\n")
    assert "you now play RUSSIA" in out.reply.body and "the deadline is now" in out.reply.body, out.reply.body
    deadline = judge.game()["deadline"].replace(tzinfo=timezone.utc)
    assert deadline > judge.now and deadline > old_deadline.replace(tzinfo=timezone.utc)
    # the list (not only the newcomer) is told the new deadline
    told = [m for m in out.of_kind("power_changed") if "The deadline passed before RUSSIA was taken over" in m.body]
    assert told and all(m.address != NEWCOMER for m in told)

    judge.advance(hours=1)
    out = judge.tick()
    assert not out.of_kind("dismissal")
    assert (NEWCOMER, "active") in russia_players(judge)
    assert judge.game()["phase"] == "S1901M"  # still waiting for the newcomer's orders

    # a fair chance, not an endless one: silent past the new deadline and its grace, dismissed again
    judge.now = deadline + timedelta(minutes=1)
    judge.tick()
    judge.now += timedelta(days=1)
    out = judge.tick()
    assert NEWCOMER in [m.address for m in out.of_kind("dismissal") if "dismissed from game" in m.body]
