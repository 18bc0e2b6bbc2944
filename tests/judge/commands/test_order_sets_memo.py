"""turnstate.stored_order_set: a power's order set is read once per transaction, and never
returned once it is no longer stored (deleted, bulk-deleted, rolled back) or the phase
moved on; a mail with orders and a signed-on reply gives the orders it stored."""

from __future__ import annotations

from sqlalchemy import delete

from judge.phases.turnstate import stored_order_set
from judge.store.models_game import OrderSet
from judge.store.queries import find_game
from tests.judge.commands.conftest import Seat, statements_seen


def _stored(judge, session, power: str, orders: list[str]) -> OrderSet:
    game = find_game(session, "g1")
    row = OrderSet(game_id=game.id, phase=game.phase, power=power, orders=orders, submitted_at=judge.now)
    session.add(row)
    return row


def test_an_order_set_is_read_once_per_transaction(judge, started: dict[str, Seat]) -> None:
    selects = statements_seen(judge, "SELECT order_set.id")
    with judge.session() as session:
        game = find_game(session, "g1")
        row = _stored(judge, session, "FRANCE", ["A PAR H"])
        assert stored_order_set(session, game, "FRANCE") is row and len(selects) == 1
        assert stored_order_set(session, game, "FRANCE") is row and len(selects) == 1
        assert stored_order_set(session, game, "ENGLAND") is None and len(selects) == 2
        assert stored_order_set(session, game, "ENGLAND") is None and len(selects) == 3  # "none" is not kept
    with judge.session() as session:  # another transaction reads afresh
        assert stored_order_set(session, find_game(session, "g1"), "FRANCE") is not None
        assert len(selects) == 4


def test_a_deleted_rolled_back_or_other_phase_set_is_not_remembered(judge, started: dict[str, Seat]) -> None:
    with judge.session() as session:
        game = find_game(session, "g1")
        savepoint = session.begin_nested()
        _stored(judge, session, "ITALY", ["A ROM H"])
        assert stored_order_set(session, game, "ITALY") is not None
        savepoint.rollback()
        assert stored_order_set(session, game, "ITALY") is None
        doomed = _stored(judge, session, "ITALY", ["A ROM H"])
        assert stored_order_set(session, game, "ITALY") is doomed
        session.delete(doomed)
        session.flush()
        assert stored_order_set(session, game, "ITALY") is None
        _stored(judge, session, "ITALY", ["A VEN H"])
        assert stored_order_set(session, game, "ITALY") is not None
        session.execute(delete(OrderSet).where(OrderSet.game_id == game.id))  # as a phase's processing does
        assert stored_order_set(session, game, "ITALY") is None
        kept = _stored(judge, session, "ITALY", ["A VEN H"])
        assert stored_order_set(session, game, "ITALY") is kept
        game.phase = "F1901M"
        assert stored_order_set(session, game, "ITALY") is None


def test_the_reply_shows_the_orders_the_mail_stored(judge, started: dict[str, Seat]) -> None:
    seat = started["FRANCE"]
    first = judge.send(seat.address, f"{seat.signon}\nA PAR - BUR\n").reply.body
    assert "accepted: A PAR - BUR" in first, first
    second = judge.send(seat.address, f"{seat.signon}\nA MAR - SPA\n").reply.body
    assert "A PAR - BUR" in second and "A MAR - SPA" in second, second
