"""games.position_of: the stored document read as the engine's Position, parsed once per
distinct document, never stale after the document changes."""

from __future__ import annotations

import copy

from judge.store.queries import position_of
from judge.store.models_game import Game

START = {
    "map": "standard", "phase": "S1901M",
    "units": {"FRANCE": ["A PAR", "A MAR", "F BRE"], "ENGLAND": ["F LON", "F EDI", "A LVP"]},
    "centers": {"FRANCE": ["PAR", "MAR", "BRE"], "ENGLAND": ["LON", "EDI", "LVP"]},
}


def _game(position: dict) -> Game:
    return Game(name="g1", map_name="standard", position=position)


def test_the_same_document_gives_the_same_position_value() -> None:
    first = position_of(_game(copy.deepcopy(START)))
    again = position_of(_game(copy.deepcopy(START)))
    assert again is first  # parsed once
    assert str(first.phase) == "S1901M"
    assert {str(u) for u in first.units if u.power == "FRANCE"} == {"A PAR", "A MAR", "F BRE"}


def test_a_changed_document_is_read_afresh() -> None:
    game = _game(copy.deepcopy(START))
    before = position_of(game)
    moved = copy.deepcopy(START)
    moved["phase"] = "F1901M"
    moved["units"]["FRANCE"] = ["A BUR", "A SPA", "F MAO"]
    game.position = moved
    after = position_of(game)
    assert str(after.phase) == "F1901M"
    assert {str(u) for u in after.units if u.power == "FRANCE"} == {"A BUR", "A SPA", "F MAO"}
    assert {str(u) for u in before.units if u.power == "FRANCE"} == {"A PAR", "A MAR", "F BRE"}
    game.position["units"]["FRANCE"] = ["A PIC", "A SPA", "F MAO"]  # changed in place
    assert {str(u) for u in position_of(game).units if u.power == "FRANCE"} == {"A PIC", "A SPA", "F MAO"}
