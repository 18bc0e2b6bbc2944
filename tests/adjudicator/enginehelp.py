"""Small helpers for engine tests: positions from contract-style dicts, orders from text."""

from __future__ import annotations

from typing import Mapping, Sequence

from adjudicator import api
from adjudicator.jsonio import position_from_json
from adjudicator.results import Adjudication, OrderResult
from adjudicator.types import Position, Variant


def position(
    variant: Variant,
    phase: str,
    units: Mapping[str, Sequence[str]],
    centers: Mapping[str, Sequence[str]] | None = None,
    dislodged: Mapping[str, Sequence[Mapping[str, object]]] | None = None,
) -> Position:
    doc: dict[str, object] = {"phase": phase, "units": {p: list(u) for p, u in units.items()}}
    if centers is not None:
        doc["centers"] = {p: list(c) for p, c in centers.items()}
    if dislodged is not None:
        doc["dislodged"] = {p: [dict(e) for e in entries] for p, entries in dislodged.items()}
    return position_from_json(variant, doc)


def play(
    variant: Variant, where: Position, orders: Mapping[str, Sequence[str]], rules: Sequence[str] = ()
) -> Adjudication:
    """Parse every line (all must parse and be legal) and adjudicate."""
    parsed = {}
    for power, lines in orders.items():
        result = api.parse_orders(api.prepare(variant, where), power, lines)
        assert not result.errors, result.errors
        parsed[power] = result.orders
    return api.adjudicate(api.prepare(variant, where), parsed, frozenset(rules))


def board(outcome: Adjudication) -> set[str]:
    """``{"ENGLAND F NTH", ...}``: the units of the next position."""
    return {f"{u.power} {u}" for u in outcome.position.units}


def result_of(outcome: Adjudication, order_text: str) -> OrderResult:
    found = [r for r in outcome.results if r.order == order_text]
    assert len(found) == 1, (order_text, outcome.results)
    return found[0]


def parse_errors(variant: Variant, where: Position, power: str, lines: Sequence[str]) -> list[str]:
    """The parser's complaints about ``lines`` (empty when every line is a legal order)."""
    return [str(e) for e in api.parse_orders(api.prepare(variant, where), power, lines).errors]


def moves_alone(variant: Variant, power: str, unit: str, target: str, phase: str = "S1902M") -> bool:
    """Does ``unit`` (``"F BLA"``), the only unit on the board, move to ``target``?"""
    outcome = play(variant, position(variant, phase, {power: [unit]}), {power: [f"{unit} - {target}"]})
    return f"{power} {unit.split()[0]} {target}" in board(outcome)
