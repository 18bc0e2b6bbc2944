"""judge.phases.requirements: the engine's requirements of a phase, remembered per position
object, the same answer as the engine's, read-only, and bounded."""

from __future__ import annotations

import dataclasses

import pytest

from adjudicator.api import initial_position, prepare, requirements
from judge.phases import requirements as remembered
from judge.phases.requirements import phase_requirements
from judge.store.queries import variant_named


def test_the_engines_answer_once_per_position_object(monkeypatch) -> None:
    variant = variant_named("standard")
    position = initial_position(variant)
    calls: list[int] = []
    engine = remembered.requirements
    monkeypatch.setattr(remembered, "requirements", lambda board: calls.append(1) or engine(board))
    first = phase_requirements(variant, position)
    assert dict(first) == dict(requirements(prepare(variant, position)))
    assert sorted(first) == ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
    assert phase_requirements(variant, position) is first and len(calls) == 1
    twin = dataclasses.replace(position)  # equal, another object: asked again
    assert phase_requirements(variant, twin) == first and len(calls) == 2
    with pytest.raises(TypeError):
        first["FRANCE"] = first["ENGLAND"]  # type: ignore[index]


def test_the_memory_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(remembered, "REMEMBERED", 3)
    variant = variant_named("standard")
    positions = [dataclasses.replace(initial_position(variant)) for _ in range(5)]
    for position in positions:
        phase_requirements(variant, position)
    assert len(remembered._remembered) == 3
    assert [entry[0] for entry in remembered._remembered.values()] == positions[2:]
