"""queries.find_game: a game found by name is read once per transaction, and never
returned once it is no longer that game (renamed, deleted, rolled back) or locked."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from judge.refusal import CommandRefused
from judge.store.models_game import Game
from judge.store.queries import find_game


def _game_selects(judge) -> list[str]:
    seen: list[str] = []
    event.listen(judge.store.engine, "before_cursor_execute",
                 lambda _c, _cur, statement, *_rest: seen.append(statement)
                 if statement.startswith("SELECT game.") and "WHERE game.name" in statement else None)
    return seen


def test_a_game_is_looked_up_by_name_once_per_transaction(judge, started) -> None:
    selects = _game_selects(judge)
    with judge.session() as session:
        game = find_game(session, "g1")
        assert find_game(session, "G1") is game and len(selects) == 1
        assert find_game(session, "g1", lock=True) is game and len(selects) == 2  # a lock is always taken
    with judge.session() as session:  # another transaction reads afresh
        find_game(session, "g1")
        assert len(selects) == 3


def test_a_renamed_deleted_or_rolled_back_game_is_not_remembered(judge, started) -> None:
    with judge.session() as session:
        game = find_game(session, "g1")
        game.name = "g2"
        with pytest.raises(CommandRefused):
            find_game(session, "g1")
        assert find_game(session, "g2") is game
        savepoint = session.begin_nested()
        session.add(Game(name="g3", master_password_hash="x", created_at=judge.now))
        assert find_game(session, "g3").name == "g3"
        savepoint.rollback()
        with pytest.raises(CommandRefused):
            find_game(session, "g3")
        session.add(Game(name="g4", master_password_hash="x", created_at=judge.now))
        doomed = find_game(session, "g4")
        session.delete(doomed)
        session.flush()
        with pytest.raises(CommandRefused):
            find_game(session, "g4")
