"""Is an understood order legal in a position?  Illegal orders are void: the unit holds.

``illegality`` returns ``None`` for a legal order and otherwise a reason a player
can act on.  The checks are the ones that need no knowledge of the other orders:
whether a move that needs a convoy is actually convoyed, or whether a support
matches, is decided by the resolver.
"""

from __future__ import annotations

from typing import Mapping

from adjudicator.adjustments import balance
from adjudicator.orders import (
    ADJUSTMENT_ORDERS,
    MOVEMENT_ORDERS,
    RETREAT_ORDERS,
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from adjudicator.tables import Tables
from adjudicator.types import NEUTRAL, Dislodged, PhaseKind, Position, Unit, UnitKind, coast_of, province_of


class IllegalOrder(ValueError):
    """An order that was understood but may not be given; ``reason`` says why, ``order`` is
    the order as understood (when the raiser had it)."""

    def __init__(self, text: str, reason: str, order: Order | None = None) -> None:
        super().__init__(f"{text!r}: {reason}")
        self.text = text
        self.reason = reason
        self.order = order


UnitsByProvince = Mapping[str, Unit]  # province -> the unit standing there (as in adjudicator.board.Board.units)



def board_of(position: Position) -> dict[str, Unit]:
    return {province_of(u.location): u for u in position.units}


def illegality(
    tables: Tables,
    position: Position,
    power: str,
    order: Order,
    board: UnitsByProvince | None = None,
    fleet_seas: frozenset[str] | None = None,
    surpluses: Mapping[str, int] | None = None,
) -> str | None:
    """``None`` if ``power`` may give ``order`` in ``position``, else the reason it may not.

    ``board``, ``fleet_seas`` (sea provinces holding a fleet) and, in an adjustment
    phase, ``surpluses`` (``adjustments.balances``) may be passed in by callers that
    check many orders against one position.
    """
    if power == NEUTRAL:
        return "neutral armies always hold: no one orders them"
    kind = position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        if not isinstance(order, MOVEMENT_ORDERS):
            return f"{_what(order)} orders are not allowed in a movement phase"
        if board is None:
            board = board_of(position)
        return _movement(tables, power, order, board, fleet_seas)
    if kind is PhaseKind.RETREAT:
        if not isinstance(order, RETREAT_ORDERS):
            return f"{_what(order)} orders are not allowed in a retreat phase (retreat or disband only)"
        return _retreat(power, order, position.dislodged)
    if not isinstance(order, ADJUSTMENT_ORDERS):
        return f"{_what(order)} orders are not allowed in an adjustment phase (build, remove or waive only)"
    if board is None:
        board = board_of(position)
    surplus = surpluses.get(power, 0) if surpluses is not None else balance(position, power)
    return _adjustment(tables, position, power, order, board, surplus)


def _what(order: Order) -> str:
    return type(order).__name__.lower()


def _own_unit(power: str, unit: Unit, board: UnitsByProvince) -> tuple[Unit | None, str | None]:
    location = unit.location
    standing = board.get(location if len(location) == 3 else province_of(location))
    if standing is None or standing.kind is not unit.kind:
        noun = "army" if unit.kind is UnitKind.ARMY else "fleet"
        return None, f"there is no {noun} in {province_of(unit.location)}"
    if standing.power != power:
        return None, f"the unit in {standing.province} belongs to {standing.power}, not {power}"
    return standing, None


def _movement(tables: Tables, power: str, order: Order, board: UnitsByProvince, fleet_seas: frozenset[str] | None) -> str | None:
    unit, problem = _own_unit(power, order.unit, board)  # type: ignore[union-attr]
    if unit is None:
        return problem
    cls = type(order)
    if cls is Move:
        if unit.kind is UnitKind.FLEET and (order.via_convoy or order.route):  # type: ignore[union-attr]
            return "only armies can be convoyed"
        return _move(tables, unit, order.destination, board, fleet_seas)  # type: ignore[union-attr]
    if cls is Hold:
        return None
    here = unit.province
    is_fleet = unit.kind is UnitKind.FLEET
    if isinstance(order, SupportHold):
        target = order.supported.province
        if target == here:
            return "a unit cannot support itself"
        if board.get(target) is None:
            return f"there is no unit in {target} to support"
        if target not in tables.reachable(unit.location, is_fleet):
            return f"{unit} cannot move to {target}, so it cannot support a unit there"
        return None
    if isinstance(order, SupportMove):
        origin = order.supported.province
        target = province_of(order.supported_to)
        if origin == here:
            return "a unit cannot support its own move"
        if board.get(origin) is None:
            return f"there is no unit in {origin} to support"
        if target == here:
            return "a unit cannot support a move into its own province"
        if target == origin:
            return "a unit cannot move to the province it is in"
        if target not in tables.reachable(unit.location, is_fleet):
            return f"{unit} cannot move to {target}, so it cannot support a move there"
        return None
    # Convoy
    assert isinstance(order, Convoy)
    if not is_fleet or here not in tables.convoy_seas:
        return "only a fleet at sea can convoy"
    army_from = province_of(order.army_from)
    army_to = province_of(order.army_to)
    army = board.get(army_from)
    if army is None or army.kind is not UnitKind.ARMY:
        return f"there is no army in {army_from} to convoy"
    if army_to == army_from:
        return "an army cannot be convoyed to the province it is in"
    if army_to not in tables.coastal or army_from not in tables.coastal:
        return f"an army can only be convoyed between coastal provinces ({army_from} - {army_to})"
    seas = fleet_seas if fleet_seas is not None else _fleet_seas(tables, board)
    if not tables.sea_path_exists(army_from, army_to, seas, through=here):
        return f"{unit} is on no chain of fleets from {army_from} to {army_to}"
    return None


def _fleet_seas(tables: Tables, board: UnitsByProvince) -> frozenset[str]:
    return frozenset(p for p, u in board.items() if u.kind is UnitKind.FLEET and p in tables.convoy_seas)


def _move(tables: Tables, unit: Unit, destination: str, board: UnitsByProvince, fleet_seas: frozenset[str] | None) -> str | None:
    if unit.kind is UnitKind.FLEET:
        if destination in tables.fleet_adj.get(unit.location, ()):
            return None  # the common case first: adjacent, and never the fleet's own province
    elif destination in tables.army_adj.get(unit.location, ()):
        return None
    here = unit.province
    target = province_of(destination)
    if target not in tables.variant.provinces:
        return f"{target} is not a province of this map"
    if target == here:
        return "a unit cannot move to the province it is in"
    if unit.kind is UnitKind.FLEET:
        if target in tables.fleet_reach.get(unit.location, ()):
            coasts = tables.variant.provinces[target].coasts
            if coast_of(destination) is None and coasts:
                return f"say which coast of {target} ({', '.join(target + '/' + c for c in coasts)})"
            return f"{unit} cannot reach {destination} (coast)"
        if target not in tables.sea and target not in tables.coastal:
            return f"a fleet cannot move inland ({target})"
        return f"{unit} is not adjacent to {target}"
    if target in tables.sea:
        return f"an army cannot move to a sea ({target})"
    if target in tables.army_adj.get(here, ()):
        return None
    if here in tables.coastal and target in tables.coastal:
        seas = fleet_seas if fleet_seas is not None else _fleet_seas(tables, board)
        if tables.sea_path_exists(here, target, seas):
            return None
        return f"{unit} is not adjacent to {target} and no chain of fleets could convoy it there"
    return f"{unit} is not adjacent to {target}"


def _retreat(power: str, order: Order, dislodged: tuple[Dislodged, ...]) -> str | None:
    province = province_of(order.unit.location)  # type: ignore[union-attr]
    entry = next((d for d in dislodged if d.unit.province == province), None)
    if entry is None:
        return f"no dislodged unit in {province}"
    if entry.unit.power != power:
        return f"the dislodged unit in {province} belongs to {entry.unit.power}, not {power}"
    if entry.unit.kind is not order.unit.kind:  # type: ignore[union-attr]
        return f"the dislodged unit in {province} is {entry.unit}"
    if isinstance(order, Disband):
        return None
    assert isinstance(order, Retreat)
    if retreat_location(entry, order.destination) is None:
        allowed = ", ".join(entry.retreats) or "none: it must disband"
        return f"{entry.unit} cannot retreat to {order.destination} (it may retreat to: {allowed})"
    return None


def retreat_location(entry: Dislodged, destination: str) -> str | None:
    """The retreat location ``destination`` names for ``entry``, or ``None`` if not allowed."""
    if destination in entry.retreats:
        return destination
    if coast_of(destination) is None:
        matches = [loc for loc in entry.retreats if province_of(loc) == destination]
        if len(matches) == 1:
            return matches[0]
    return None


def _adjustment(
    tables: Tables, position: Position, power: str, order: Order, board: UnitsByProvince, surplus: int
) -> str | None:
    if isinstance(order, Remove):
        unit, problem = _own_unit(power, order.unit, board)
        if unit is None:
            return problem
        if surplus >= 0:
            return f"{power} has no units to remove"
        return None
    if surplus <= 0:
        return f"{power} has no builds"
    if isinstance(order, Waive):
        return None
    assert isinstance(order, Build)
    if order.power != power:
        return f"{power} cannot build for {order.power}"
    location = order.location
    province = province_of(location)
    if tables.variant.builds_anywhere:
        if province not in tables.supply_centers:
            return f"{province} is not a supply centre"
    elif province not in tables.build_homes.get(power, ()):
        return f"{province} is not a home supply centre of {power}"
    if province not in position.centers.get(power, ()):
        return f"{power} does not own {province}"
    if province in board:
        return f"{province} is occupied"
    if order.kind is UnitKind.FLEET:
        if location not in tables.fleet_locations:
            coasts = tables.variant.provinces[province].coasts
            if coasts and coast_of(location) is None:
                return f"say which coast of {province} ({', '.join(province + '/' + c for c in coasts)})"
            return f"a fleet cannot be built in {location}"
        return None
    if province in tables.sea:
        return f"an army cannot be built at sea ({province})"
    if coast_of(location) is not None:
        return f"an army cannot be built on a coast ({location})"
    return None
