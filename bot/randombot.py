"""RandomBot: a uniformly random legal order for every unit (the weakest opponent there is).

Movement: hold, move to a neighbour, or support a neighbouring unit holding, equally likely
among the orders open to the unit.  Retreat: any allowed place or disband.  Builds on random
free home centres; removals of random units.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.api import Board, requirements
from adjudicator.orders import (
    Build,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
)
from adjudicator.types import PhaseKind, Terrain, UnitKind, province_of
from bot.adjust import free_homes
from bot.player import phase_rng


@dataclass(frozen=True)
class RandomBot:
    seed: int = 0
    name: str = "RandomBot"

    def orders(self, board: Board, power: str) -> list[Order]:
        rng = phase_rng(self.seed, board, power, self.name)
        kind = board.position.phase.kind
        tables = board.tables
        if kind is PhaseKind.MOVEMENT:
            orders: list[Order] = []
            for province in sorted(board.units):
                unit = board.units[province]
                if unit.power != power:
                    continue
                choices: list[Order] = [Hold(unit)]
                choices += [Move(unit, loc) for loc in sorted(tables.steps[unit.kind].get(unit.location, ()))]
                reach = tables.reach[unit.kind].get(unit.location, frozenset())
                choices += [SupportHold(unit, board.units[p]) for p in sorted(reach) if p in board.units]
                orders.append(choices[rng.randrange(len(choices))])
            return orders
        if kind is PhaseKind.RETREAT:
            found: list[Order] = []
            for entry in sorted(board.position.dislodged, key=lambda d: d.unit.location):
                if entry.unit.power == power:
                    places = [Retreat(entry.unit, loc) for loc in sorted(entry.retreats)] + [Disband(entry.unit)]
                    found.append(places[rng.randrange(len(places))])
            return found
        needed = requirements(board).get(power)
        if needed is None:
            return []
        if needed.removals:
            return [Remove(u) for u in rng.sample(list(needed.units), needed.removals)]
        centres = list(free_homes(board, power))
        rng.shuffle(centres)
        builds: list[Order] = []
        for centre in centres[: needed.builds]:
            spots = [(UnitKind.FLEET, loc) for loc in sorted(tables.fleet_locations) if province_of(loc) == centre]
            if board.variant.provinces[centre].terrain is not Terrain.SEA:
                spots.append((UnitKind.ARMY, centre))
            unit_kind, location = spots[rng.randrange(len(spots))]
            builds.append(Build(power, unit_kind, location))
        return builds
