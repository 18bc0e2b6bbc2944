"""A master's RULE DATC_3 reaches the engine: a game's phase is adjudicated by the rules the
game was created with (the default: DATC 2.4 as the DPjudge plays it)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from judge.store.models_game import Game
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.commands.conftest import MASTER


@pytest.mark.parametrize(("rules", "removed", "kept"), [
    ((), "A ALB", "A PIE"),  # 2.4: Albania is farther from Italy's home centres
    (("RULE DATC_3",), "A PIE", "A ALB"),  # 2023 rulebook (DATC 3.0 6.J.10): farther from Naples, the one it owns
])
def test_civil_disorder_removals_follow_the_games_rules(judge, rules: tuple[str, ...], removed: str, kept: str) -> None:
    create_game(judge, *rules)
    fill_game(judge)
    with judge.session() as session:  # winter: Italy owns Naples alone and has two armies
        game = session.execute(select(Game)).scalar_one()
        position = dict(game.position)
        position["phase"] = "W1901A"
        position["units"] = {**position["units"], "ITALY": ["A ALB", "A PIE"]}
        position["centers"] = {**position["centers"], "ITALY": ["NAP"]}
        game.position, game.phase = position, "W1901A"
    out = judge.send(MASTER, "SIGNON master@g1 masterpw\nPROCESS!\n")
    body = out.of_kind("results")[0].body
    assert f"{removed} D" in body and "civil disorder" in body, body
    assert judge.game()["position"]["units"]["ITALY"] == [kept]
