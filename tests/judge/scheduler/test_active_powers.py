"""Which powers a phase waits for (DPjudge's "active" players)."""

from __future__ import annotations

import maps
from adjudicator.types import Phase, PhaseKind, Position, Season, Unit, UnitKind
from judge.phases.turnstate import active_powers

VARIANT = maps.load("standard")


def _position(kind: PhaseKind, units: list[Unit], centers: dict[str, set[str]]) -> Position:
    season = Season.WINTER if kind is PhaseKind.ADJUSTMENT else Season.SPRING
    return Position(Phase(1905, season, kind), tuple(units), {p: frozenset(c) for p, c in centers.items()})


def test_movement_waits_only_for_powers_owning_a_centre() -> None:
    units = [Unit("PAR", UnitKind.ARMY, "FRANCE"), Unit("MUN", UnitKind.ARMY, "GERMANY")]
    position = _position(PhaseKind.MOVEMENT, units, {"FRANCE": {"PAR"}, "GERMANY": set()})
    assert active_powers(VARIANT, position) == {"FRANCE"}


def test_adjustment_does_not_wait_for_a_power_losing_every_unit() -> None:
    units = [
        Unit("PAR", UnitKind.ARMY, "FRANCE"),
        Unit("MAR", UnitKind.ARMY, "FRANCE"),
        Unit("BUR", UnitKind.ARMY, "FRANCE"),
        Unit("MUN", UnitKind.ARMY, "GERMANY"),
        Unit("RUH", UnitKind.ARMY, "GERMANY"),
    ]
    # France owns two centres for three units: must remove one of three (a choice).
    # Germany owns none: must remove both units, nothing to choose.
    position = _position(PhaseKind.ADJUSTMENT, units, {"FRANCE": {"PAR", "MAR"}, "GERMANY": set()})
    assert active_powers(VARIANT, position) == {"FRANCE"}


def test_dummies_are_never_waited_for() -> None:
    units = [Unit("PAR", UnitKind.ARMY, "FRANCE"), Unit("MUN", UnitKind.ARMY, "GERMANY")]
    position = _position(PhaseKind.MOVEMENT, units, {"FRANCE": {"PAR"}, "GERMANY": {"MUN"}})
    assert active_powers(VARIANT, position, frozenset({"GERMANY"})) == {"FRANCE"}
