"""LIST without a game: every game with its count of active players, from column queries."""

from __future__ import annotations

from sqlalchemy import select

from judge.store.models_game import Membership
from tests.judge.commands.conftest import create_game


def test_list_counts_only_active_players_of_each_game(judge, started):
    create_game(judge, name="g2")
    judge.send("late@example.net", "JOIN g2 pw\n")
    with judge.session() as session:
        leaver = session.execute(
            select(Membership).where(Membership.power == "ITALY", Membership.role == "player")
        ).scalar_one()
        leaver.status = "resigned"
    body = judge.send("curious@example.net", "LIST\n").reply.body
    assert "active S1901M, 6/7 players" in body
    assert "forming, 1/7 players" in body
    assert body.index("g1") < body.index("g2")
    assert "2 games listed below" in body
