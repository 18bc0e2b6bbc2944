"""The peer engine (PyPI ``diplomacy`` 1.1.2) driven from a corpus record.

Timed work (``PeerPhase.run``): ``Game.set_orders`` for every power with orders
(the peer parses, expands and validates each order there) and ``Game.process``
(adjudication, results, phase advance, centre capture before an adjustment
phase, and the peer's own bookkeeping: state/order history).  Building the
``Game`` from the record (``Game()`` + ``set_state``) is setup, not timed, like
``position_from_json`` on our side.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from benchmarks.outcome import Outcome
from benchmarks.positions import Record, free_retreats, peer_order_text

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")


@dataclass(frozen=True)
class PeerPhase:
    """One corpus record in the peer's terms: a ``set_state`` document and its orders."""

    state: Mapping[str, Any]
    orders: Mapping[str, list[str]]

    @classmethod
    def from_record(cls, record: Record) -> "PeerPhase":
        units = {power: list(record["units"].get(power, [])) for power in POWERS}
        retreats: dict[str, dict[str, list[str]]] = {power: {} for power in POWERS}
        for power, entries in record.get("dislodged", {}).items():
            for entry in entries:
                units[power].append("*" + entry["unit"])
                retreats[power][entry["unit"]] = list(entry["retreats"])
        state = {
            "name": record["phase"],
            "units": units,
            "retreats": retreats,
            "centers": {power: list(record.get("centers", {}).get(power, [])) for power in POWERS},
        }
        orders = {power: [peer_order_text(line) for line in lines] for power, lines in record["orders"].items()}
        return cls(state, orders)

    def new_game(self) -> Any:
        """A fresh peer game set to this phase (setup: not timed)."""
        from diplomacy import Game

        game = Game()
        game.set_state(dict(self.state))
        return game

    def run(self, game: Any, clock: Callable[[], float] = time.perf_counter) -> float:
        """Parse, validate and adjudicate on the peer; seconds spent."""
        start = clock()
        for power, lines in self.orders.items():
            game.set_orders(power, lines)
        game.process()
        return clock() - start


def outcome_of(game: Any, phase: str) -> Outcome:
    """The peer's board after processing ``phase``.

    The peer's retreat lists still contain occupied provinces (it refuses them
    only when a retreat there is ordered); the contract's lists are net of them,
    so they are dropped here.  A dislodged unit left with nowhere to go is
    destroyed by ours at once; the peer destroys it at once only when its own
    list is empty, and otherwise stops at a retreat phase where the unit can
    only disband.  Such retreat phases are processed here, without orders, so
    that both engines report the next phase that needs orders.
    """
    dislodged: frozenset[tuple[str, str, tuple[str, ...]]] = frozenset()
    if phase.endswith("M"):
        dislodged = frozenset(
            (power, unit, tuple(sorted(free)))
            for power, by_unit in game.get_state()["retreats"].items()
            for unit, retreats in by_unit.items()
            if (free := free_retreats(game, retreats))
        )
    while game.get_current_phase().endswith("R") and not any(
        free_retreats(game, retreats) for power in game.powers.values() for retreats in power.retreats.values()
    ):
        game.process()
    state = game.get_state()
    units = frozenset(
        (power, unit) for power, power_units in state["units"].items() for unit in power_units if not unit.startswith("*")
    )
    centers = frozenset((power, center) for power, owned in state["centers"].items() for center in owned)
    return Outcome(units, dislodged, centers, game.get_current_phase())


def results_of(game: Any, phase: str) -> dict[str, str]:
    """The peer's per-unit results for ``phase`` (``{"A PAR": "bounce"}``; empty string: success)."""
    for key, results in game.result_history.items():
        if str(key) == phase:
            return {unit: ", ".join(str(code) for code in codes) for unit, codes in results.items()}
    return {}
