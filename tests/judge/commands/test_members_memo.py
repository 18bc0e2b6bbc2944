"""games.members / game_members: a game's membership rows read once per session, never
stale after a membership changes, a statement writes or a savepoint rolls back."""

from __future__ import annotations

from sqlalchemy import select, update

from judge.store.queries import find_game, game_members, members, players, variant_of
from judge.phases.turnstate import seats
from judge.store.models_game import PLAYER, Membership
from tests.judge.commands.conftest import MASTER, statements_seen


def _membership_selects(judge) -> list[str]:
    return statements_seen(judge, "SELECT membership.")


def test_one_query_serves_every_reading_until_a_membership_changes(judge, started) -> None:
    selects = _membership_selects(judge)
    with judge.session() as session:
        game = find_game(session, "g1")
        active = players(session, game)
        placed = seats(session, game, variant_of(game))
        masters = members(session, game, role="master")
        assert len(selects) == 1
        assert sorted(m.power for m in active) == sorted(placed.players)
        assert [m.address for m in masters] == [MASTER]
        newcomer = Membership(game_id=game.id, role="observer", name="WATCHER", address="w@example.net", password_hash="x", joined_at=judge.now,
                              status="active")
        session.add(newcomer)
        assert newcomer in members(session, game, role="observer")  # flushed first, then read again
        assert len(selects) == 2
        active[0].status = "resigned"
        assert active[0] not in players(session, game)
        assert active[0].power in seats(session, game, variant_of(game)).vacant


def test_a_rolled_back_savepoint_or_a_statement_is_not_remembered(judge, started) -> None:
    with judge.session() as session:
        game = find_game(session, "g1")
        before = game_members(session, game)
        savepoint = session.begin_nested()
        session.add(Membership(game_id=game.id, role="observer", name="GONE", address="g@example.net", password_hash="x", joined_at=judge.now,
                               status="active"))
        assert len(game_members(session, game)) == len(before) + 1
        savepoint.rollback()
        assert [m.id for m in game_members(session, game)] == [m.id for m in before]
        session.execute(update(Membership).where(Membership.game_id == game.id, Membership.role == PLAYER)
                        .values(status="dismissed"))
        session.expire_all()
        assert players(session, game) == []
        stored = session.execute(select(Membership.status).where(Membership.role == PLAYER)).scalars().all()
        assert set(stored) == {"dismissed"}
