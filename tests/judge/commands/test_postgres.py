"""The commands on PostgreSQL: row locks, savepoints and JSON columns behave as on SQLite."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from judge.lifecycle import ACTIVE
from judge.store.models_game import Game, OrderSet
from tests.judge.commands.conftest import create_game, fill_game
from tests.judge.commands.harness import JudgeHarness

pytestmark = pytest.mark.postgres


def test_a_forming_game_on_postgresql(tmp_path, postgres_url):
    judge = JudgeHarness(tmp_path, url=postgres_url)
    try:
        create_game(judge, "RULE NO_PRESS")
        seats = fill_game(judge)
        france = seats["FRANCE"]
        reply = judge.send(france.address, f"{france.signon}\nA PAR - BUR\nA PAR - MUN\nPRESS TO G\nhi\nENDPRESS\n"
                                           "F BRE - MAO\n").reply.body
        assert "ERROR line 3: A PAR - MUN" in reply and "RULE NO_PRESS" in reply
        assert "Your orders for S1901M:\n  A PAR - BUR\n  F BRE - MAO\n" in reply
        with judge.session() as session:
            assert session.execute(select(Game.status)).scalar_one() == ACTIVE
            assert session.execute(select(OrderSet.orders)).scalar_one() == ["A PAR - BUR", "F BRE - MAO"]
    finally:
        judge.close()
