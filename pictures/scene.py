"""What one picture shows: the board after a phase and the phase's orders with results.

Built from the engine's values (``scene_after``: what the judge has after adjudicating)
or from a contract document (``scene_from_document``: input or output of
``judge adjudicate``).  Pure; a Scene names locations only, the geometry places them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from adjudicator import api
from adjudicator.jsonio import ContractError, order_texts_from_json, position_from_json
from adjudicator.results import OrderResult
from adjudicator.types import Dislodged, Position, Unit, Variant, province_of
from pictures.orders import DrawnOrder, drawn_order


@dataclass(frozen=True, slots=True)
class Scene:
    """``units`` and ``centers`` are the board drawn; ``dislodged`` are units dislodged
    (drawn beside their province); ``orders`` are drawn with their results (None: not
    adjudicated)."""

    title: str
    units: tuple[Unit, ...]
    centers: Mapping[str, frozenset[str]] = field(default_factory=lambda: MappingProxyType({}))
    dislodged: tuple[Dislodged, ...] = ()
    orders: tuple[DrawnOrder, ...] = ()


def _drawn(results: Iterable[tuple[str, str, str | None]]) -> tuple[DrawnOrder, ...]:
    drawn = (drawn_order(power, text, result) for power, text, result in results)
    return tuple(order for order in drawn if order is not None)


def scene_of_position(variant: Variant, position: Position) -> Scene:
    """A position with no orders (a game's start, or a phase still to be played)."""
    return Scene(f"{variant.name} {position.phase}", position.units, position.centers, position.dislodged)


def scene_after(variant: Variant, phase: str, after: Position, results: Iterable[OrderResult],
                dislodged: Iterable[Dislodged] = ()) -> Scene:
    """The board ``after`` adjudicating ``phase``, with that phase's ``results`` drawn and the
    units it dislodged (``Adjudication.dislodged``)."""
    return Scene(
        f"{variant.name} {phase}",
        after.units,
        after.centers,
        tuple(dislodged),
        _drawn((r.power, r.order, r.result) for r in results),
    )


def _unit(text: Any, power: str) -> Unit:
    return position_from_json({"phase": "S1901M", "units": {power: [text]}}).units[0]


def scene_from_document(variant: Variant, doc: Mapping[str, Any]) -> Scene:
    """The scene of a contract document; raises ContractError when it is neither kind.

    An output document (it has ``results``) draws the board after the phase with the
    results.  An input document draws its position with its orders, read as the engine
    reads them, not adjudicated."""
    if not isinstance(doc, Mapping):
        raise ContractError("a contract document is a JSON object", doc)
    if "results" in doc:
        return _scene_of_output(variant, doc)
    position = position_from_json(variant, doc)
    board = api.prepare(variant, position)
    orders: list[DrawnOrder] = []
    for power, lines in order_texts_from_json(variant, doc).items():
        parsed = api.parse_orders(board, power, list(lines))
        orders.extend(_drawn((power, order.canonical(), None) for order in parsed.orders))
    return Scene(f"{variant.name} {position.phase}", position.units, position.centers, position.dislodged, tuple(orders))


def _scene_of_output(variant: Variant, doc: Mapping[str, Any]) -> Scene:
    after = position_from_json(variant, {"phase": doc.get("next_phase") or doc.get("phase", ""),
                                         "units": doc.get("units", {}), "centers": doc.get("centers", {})})
    results = doc["results"]
    if not isinstance(results, list) or not all(isinstance(r, Mapping) for r in results):
        raise ContractError("'results' must be a list of {power, order, result} objects", results)
    dislodged = []
    for entry in doc.get("dislodged") or []:
        if not isinstance(entry, Mapping) or "unit" not in entry or "power" not in entry:
            raise ContractError("each 'dislodged' entry of an output document has power and unit", entry)
        unit = _unit(entry["unit"], str(entry["power"]).upper())
        dislodged.append(Dislodged(unit, entry.get("attacker_from"), tuple(entry.get("retreats") or ())))
    orders = _drawn((str(r.get("power", "")).upper(), str(r.get("order", "")), r.get("result")) for r in results)
    known = set(variant.provinces)
    unplaced = [o for o in orders if province_of(o.location) not in known and o.kind != "waive"]
    if unplaced:
        raise ContractError(f"order {unplaced[0].location!r} names a province the map {variant.name!r} lacks", None)
    return Scene(f"{variant.name} {doc.get('phase', '')}", after.units, after.centers, tuple(dislodged), orders)
