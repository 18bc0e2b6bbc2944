"""Scenes from contract documents: an output document draws what the engine's values draw."""

from __future__ import annotations

import pytest

import maps
from adjudicator.jsonio import ContractError
from judge.cli.adjudicate import Adjudicator
from pictures.scene import scene_from_document
from tests.pictures.scenes import ADJUSTMENT, MOVEMENT, RETREAT, adjudicated


@pytest.mark.parametrize("doc", [MOVEMENT, RETREAT, ADJUSTMENT], ids=["movement", "retreat", "adjustment"])
def test_an_output_document_gives_the_scene_of_the_adjudication(doc: dict) -> None:
    variant = maps.load("standard")
    from_engine, _ = adjudicated(variant, doc)
    from_document = scene_from_document(variant, Adjudicator().answer(doc))
    assert from_document.units == from_engine.units
    assert dict(from_document.centers) == {p: c for p, c in from_engine.centers.items() if c}
    assert [str(d.unit) for d in from_document.dislodged] == [str(d.unit) for d in from_engine.dislodged]
    # (the unit of a void order gets a default hold from parse_orders, none from the CLI's parse)
    moving = lambda orders: sorted((o for o in orders if o.kind != "hold"), key=repr)  # noqa: E731
    assert moving(from_document.orders) == moving(from_engine.orders)
    assert len(from_document.orders) >= len(doc["orders"])


def test_an_input_document_draws_its_position_with_its_orders_not_adjudicated() -> None:
    variant = maps.load("standard")
    scene = scene_from_document(variant, {**MOVEMENT, "orders": {"FRANCE": ["army paris to burgundy"]}})
    assert len(scene.units) == 12 and scene.title == "standard S1901M"
    (order,) = scene.orders
    assert (order.kind, order.location, order.target, order.result, order.failed) == ("move", "PAR", "BUR", None, False)


def test_a_retreat_input_shows_the_dislodged_units() -> None:
    scene = scene_from_document(maps.load("standard"), RETREAT)
    assert sorted(str(d.unit) for d in scene.dislodged) == ["A MUN", "A PIE"]


@pytest.mark.parametrize(("doc", "problem"), [
    ([], "a contract document is a JSON object"),
    ({"phase": "S1901M", "units": {"FRANCE": ["A XYZ"]}}, "unknown province 'XYZ'"),
    ({"phase": "S1901M", "results": {"power": "FRANCE"}, "units": {}}, "'results' must be a list"),
    ({"phase": "S1901M", "results": [{"power": "FRANCE", "order": "A XYZ - PAR", "result": "moves"}], "units": {}},
     "names 'XYZ', a province the map 'standard' lacks"),
])
def test_a_bad_document_is_refused_quoting_the_problem(doc: object, problem: str) -> None:
    with pytest.raises(ContractError, match=problem):
        scene_from_document(maps.load("standard"), doc)  # type: ignore[arg-type]
