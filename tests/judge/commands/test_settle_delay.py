"""DELAY after orders comes from the scheduler's one rule (judge.phases.turnstate.after_orders):
only *active* powers count, so a power with units but no supply centre does not keep the
last active orders from opening the settle window, and is not "late" for press either."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from adjudicator.jsonio import position_to_json
from judge.store.queries import as_utc, position_of
from judge.store.models_game import Game
from tests.judge.scheduler.driver import HOLDS
from tests.judge.commands.conftest import Seat
from tests.judge.commands.harness import JudgeHarness

CENTRELESS = "TURKEY"  # keeps its three units, owns no supply centre: not waited for


def strip_centres(judge: JudgeHarness, power: str) -> None:
    """Rewrite the stored S1901M position so ``power`` owns nothing but still has units."""
    with judge.session() as session:
        game = session.execute(select(Game)).scalar_one()
        position = position_of(game)
        centres = {p: owned for p, owned in position.centers.items() if p != power}
        stripped = type(position)(position.phase, position.units, centres, position.dislodged)
        game.position = position_to_json(stripped, game.map_name)


def game_row(judge: JudgeHarness) -> Game:
    with judge.session() as session:
        return session.execute(select(Game)).scalar_one()


def send_orders(judge: JudgeHarness, seat: Seat) -> None:
    reply = judge.send(seat.address, seat.signon + "\n" + "\n".join(HOLDS[seat.power]) + "\n").reply.body
    assert "ERROR" not in reply, reply


def active_seats(started: dict[str, Seat]) -> list[Seat]:
    return [seat for power, seat in sorted(started.items()) if power != CENTRELESS]


def test_last_active_orders_before_the_deadline_open_the_settle_window(judge, started):
    strip_centres(judge, CENTRELESS)
    seats = active_seats(started)
    for seat in seats[:-1]:
        judge.advance(minutes=1)
        send_orders(judge, seat)
        assert game_row(judge).delay == 0, f"DELAY set before the last active power ({seat.power})"
    judge.advance(minutes=1)
    assert judge.now < as_utc(game_row(judge).deadline)
    send_orders(judge, seats[-1])
    game = game_row(judge)
    assert game.delay == 1
    assert as_utc(game.next_due_at) <= judge.now


def test_last_active_orders_after_the_deadline_clear_the_delay(judge, started):
    strip_centres(judge, CENTRELESS)
    seats = active_seats(started)
    for seat in seats[:-1]:
        send_orders(judge, seat)
    # Past the deadline, as after a late notice (which sets DELAY 24 at the scheduler's pass).
    deadline = as_utc(game_row(judge).deadline)
    judge.now = deadline + timedelta(hours=1)
    with judge.session() as session:
        session.execute(select(Game)).scalar_one().delay = 24
    send_orders(judge, seats[-1])
    assert game_row(judge).delay == 0


def test_a_power_without_centres_is_not_late_for_press(judge, started):
    strip_centres(judge, CENTRELESS)
    judge.now = as_utc(game_row(judge).deadline) + timedelta(hours=1)
    turkey, russia = started[CENTRELESS], started["RUSSIA"]
    reply = judge.send(turkey.address, f"{turkey.signon}\nPRESS TO R\nhello\nENDPRESS\n").reply.body
    assert "is late" not in reply and "ERROR" not in reply, reply
    # Russia owns centres and has no orders: it is late and may not send private press.
    reply = judge.send(russia.address, f"{russia.signon}\nPRESS TO T\nhello\nENDPRESS\n").reply.body
    assert "RUSSIA is late" in reply, reply


def test_missing_orders_is_the_turn_states_missing_and_late_powers_only_after_the_deadline(judge, started):
    """after_orders and late_powers ask ``missing_orders``, not the whole turn state: the
    two answers agree at every step (a centreless power and a dummy never missing)."""
    from judge.phases.turnstate import late_powers, missing_orders, turn_state

    strip_centres(judge, CENTRELESS)
    seats = active_seats(started)

    def answers(now) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        with judge.session() as session:
            game = session.execute(select(Game)).scalar_one()
            return missing_orders(session, game), turn_state(session, game, now).missing, late_powers(session, game, now)

    expected = {seat.power for seat in seats}
    for seat in seats:
        missing, state_missing, late = answers(judge.now)
        assert missing == state_missing == expected and late == frozenset()  # before the deadline: nobody late
        after = as_utc(game_row(judge).deadline) + timedelta(minutes=1)
        assert answers(after)[2] == expected
        send_orders(judge, seat)
        expected -= {seat.power}
    assert answers(judge.now)[:2] == (frozenset(), frozenset())
