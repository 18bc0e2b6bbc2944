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
from adjudicator.results import DISLODGED, OrderResult
from adjudicator.types import Dislodged, Position, Unit, UnitKind, Variant, province_of
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


ResultLike = OrderResult | Mapping[str, Any]


def _fields(result: ResultLike) -> tuple[str, str, str | None]:
    if isinstance(result, Mapping):
        return str(result.get("power", "")).upper(), str(result.get("order", "")), result.get("result")
    return result.power, result.order, result.result


def _drawn(results: Iterable[tuple[str, str, str | None]]) -> tuple[DrawnOrder, ...]:
    drawn = (drawn_order(power, text, result) for power, text, result in results)
    return tuple(order for order in drawn if order is not None)


def scene_of_position(variant: Variant, position: Position, title: str | None = None) -> Scene:
    """A position with no orders (a game's start, or a phase still to be played)."""
    return Scene(title or f"{variant.name} {position.phase}", position.units, position.centers, position.dislodged)


def scene_after(variant: Variant, phase: str, after: Position, results: Iterable[ResultLike],
                title: str | None = None) -> Scene:
    """The board ``after`` adjudicating ``phase``, with that phase's ``results`` drawn
    (``OrderResult`` values or the contract's result objects).  The units the phase
    dislodged are those whose order reports ``dislodged`` (the contract reports every
    dislodged unit so), so a phase's record alone redraws its picture."""
    orders = _drawn(_fields(r) for r in results)
    dislodged = tuple(
        Dislodged(Unit(o.location, UnitKind(o.unit_kind), o.power), None, ())
        for o in orders if o.result == DISLODGED and o.unit_kind
    )
    return Scene(title or f"{variant.name} {phase}", after.units, after.centers, dislodged, orders)


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
    scene = scene_after(variant, str(doc.get("phase", "")), after, results)
    known = set(variant.provinces)
    for order in scene.orders:
        for place in (order.location, order.target, order.target_to):
            if place and province_of(place) not in known:
                raise ContractError(f"an order names {place!r}, a province the map {variant.name!r} lacks", place)
    return scene
