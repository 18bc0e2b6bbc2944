"""Our engine driven from a corpus record, through the facade of docs/design.md.

Timed work (``OurPhase.run``): ``api.prepare`` (the phase's board), ``api.parse_orders`` for every power with orders
(lenient text -> typed orders, checked against the position) and
``api.adjudicate`` (resolution, next position with phases that need no orders
skipped, centres after Fall, winner).  ``jsonio.position_from_json`` (the
record -> ``Position``) and loading the map are setup, not timed, like
``Game()`` + ``set_state`` on the peer's side.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from benchmarks.outcome import Outcome
from benchmarks.positions import Record


def engine_available() -> str | None:
    """None when our engine can run; otherwise why not (it is being written alongside)."""
    try:
        from adjudicator import api, jsonio  # noqa: F401
        import maps  # noqa: F401
    except ImportError as error:
        return f"our engine is not importable yet: {error}"
    missing = [name for name in ("parse_orders", "adjudicate") if not hasattr(api, name)]
    missing += [f"jsonio.{name}" for name in ("position_from_json",) if not hasattr(jsonio, name)]
    if not hasattr(maps, "load"):
        missing.append("maps.load")
    return f"our engine lacks {', '.join(missing)}" if missing else None


@functools.cache
def load_variant() -> Any:
    """The standard map, loaded once: map loading is part of no phase, for either engine.
    Loading includes the map's derived tables (lookup tables, canonical order forms, the
    lenient parser's names: about 10 ms, once per map and process, as a judge builds them at its first phase), as the
    peer's map loading builds its own."""
    import maps
    from adjudicator import api
    from adjudicator.notation import parser_for

    variant = maps.load("standard")
    api.prepare(variant, api.initial_position(variant))  # builds the per-map tables and forms
    parser_for(variant)  # and the lenient parser's name tables
    return variant


@dataclass(frozen=True)
class OurPhase:
    """One corpus record as our engine takes it: a Position and the order texts per power."""

    position: Any
    orders: Mapping[str, Sequence[str]]
    rules: frozenset[str]

    @classmethod
    def from_record(cls, record: Record) -> "OurPhase":
        from adjudicator import jsonio

        position = jsonio.position_from_json(load_variant(), record)
        return cls(position, {p: tuple(lines) for p, lines in record["orders"].items()}, frozenset(record["rules"]))

    def run(self, variant: Any, clock: Callable[[], float] = time.perf_counter) -> tuple[float, Any]:
        """Parse, validate and adjudicate with our engine; (seconds spent, Adjudication)."""
        from adjudicator import api

        position = self.position
        start = clock()
        # One board per phase, as the judge's commands and turn path do (api.prepare is inside the timed region).
        board = api.prepare(variant, position)
        typed = {power: api.parse_orders(board, power, lines) for power, lines in self.orders.items()}
        adjudication = api.adjudicate(board, typed, self.rules)
        return clock() - start, adjudication


def outcome_of(adjudication: Any, phase: str) -> Outcome:
    """Our board after ``phase``.  A dislodged unit with nowhere to go (listed by
    ours with no retreats) is left out of ``dislodged``: the peer destroys it at
    once, and both boards already lack it."""
    position = adjudication.position
    units = frozenset((unit.power, str(unit)) for unit in position.units)
    dislodged = frozenset(
        (entry.unit.power, str(entry.unit), tuple(sorted(entry.retreats)))
        for entry in (adjudication.dislodged if phase.endswith("M") else ())
        if entry.retreats
    )
    centers = frozenset((power, center) for power, owned in position.centers.items() for center in owned)
    next_phase = "COMPLETED" if getattr(adjudication, "winner", None) else str(position.phase)
    return Outcome(units, dislodged, centers, next_phase)


def results_of(adjudication: Any) -> list[tuple[str, str, str]]:
    """(power, canonical order, result[: reason]) for every order adjudicated."""
    shown = []
    for result in adjudication.results:
        text = result.result + (f": {result.reason}" if getattr(result, "reason", None) else "")
        shown.append((result.power, result.order, text))
    return shown
