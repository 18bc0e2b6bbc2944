"""The worth to each power of the board after a movement phase: what the search maximises.

In supply-centre units: the centres a power holds once the phase is over (after an autumn
move, an occupied centre changes hands; after a spring one, occupation counts half, as
a claim on the autumn), plus each of its units' place on its value map, less the units
dislodged (more when they have nowhere to retreat), less its centres left open to more
enemy units than it has next to them, plus others' centres it could take next with more
units next to them than anyone else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from adjudicator.api import Board
from adjudicator.results import Adjudication
from adjudicator.types import Season, UnitKind
from bot.values import ValueMap


@dataclass(frozen=True)
class Scoring:
    """The weights of ``score`` (centre = 1)."""

    spring_claim: float = 0.5  # a centre occupied in spring, as part of a centre
    place: float = 0.4  # a unit on the best place of its value map
    dislodged: float = 0.5  # a unit dislodged that may retreat
    destroyed: float = 1.2  # a unit dislodged with nowhere to go
    threat: float = 0.35  # one of our centres that more enemies than friends can reach
    chance: float = 0.25  # someone else's centre we can reach with more units than anyone


DEFAULT_SCORING = Scoring()


class Scorer:
    """``scorer(outcome)``: each power's worth after ``outcome``, an adjudication of a movement
    phase on ``board``.  What depends on the board alone is worked out once, here."""

    def __init__(self, board: Board, values: Mapping[str, ValueMap], scoring: Scoring = DEFAULT_SCORING) -> None:
        tables = board.tables
        self.values = values
        self.scoring = scoring
        self.prov_of = tables.prov_of
        # reach by kind, looked up by ``is`` (an enum hashes slowly, in Python)
        self.army_reach, self.fleet_reach = tables.reach[UnitKind.ARMY], tables.reach[UnitKind.FLEET]
        self.centres = tuple(sorted(tables.supply_centers))
        self.owner = {c: p for p, owned in board.position.centers.items() for c in owned}
        self.claim = scoring.spring_claim if board.position.phase.season is Season.SPRING else 1.0
        # a unit's place value, per (location, is an army) and power: looked up, not recomputed
        self.place: dict[str, dict[tuple[str, bool], float]] = {p: {} for p in values}

    def __call__(self, outcome: Adjudication) -> dict[str, float]:
        scoring, claim, owner = self.scoring, self.claim, self.owner
        units = outcome.position.units
        prov_of, army_reach, fleet_reach, army = self.prov_of, self.army_reach, self.fleet_reach, UnitKind.ARMY
        occupant = {prov_of[u.location]: u.power for u in units}
        worth = dict.fromkeys(self.values, 0.0)
        near: dict[str, dict[str, int]] = {}  # province -> power -> its units that could move there
        for unit in units:
            for province in (army_reach if unit.kind is army else fleet_reach).get(unit.location, ()):
                counts = near.get(province)
                if counts is None:
                    near[province] = {unit.power: 1}
                else:
                    counts[unit.power] = counts.get(unit.power, 0) + 1
        for centre in self.centres:
            holder = owner.get(centre)
            there = occupant.get(centre)
            if holder in worth:
                worth[holder] += 1.0 if there is None or there == holder else 1.0 - claim
            if there is not None and there != holder and there in worth:
                worth[there] += claim
            counts = near.get(centre)
            if not counts:
                continue
            if there is not None:  # the occupier's own unit defends it too
                counts = dict(counts)
                counts[there] = counts.get(there, 0) + 1
            first_power, first, second = None, 0, 0
            for power, number in counts.items():
                if number > first:
                    first_power, first, second = power, number, first
                elif number > second:
                    second = number
            keeper = there if there is not None else holder  # whose it will be if nobody moves
            for power, mine in counts.items():
                others = second if power == first_power else first
                if power == keeper:
                    if others > mine:
                        worth[power] -= scoring.threat
                elif mine > others and power in worth:
                    worth[power] += scoring.chance
            if keeper in worth and keeper not in counts:
                worth[keeper] -= scoring.threat  # open to others, nobody of ours near
        place, values = self.place, self.values
        for unit in units:
            table = place.get(unit.power)
            if table is None:
                continue
            key = (unit.location, unit.kind is army)
            found = table.get(key)
            if found is None:
                found = table[key] = scoring.place * values[unit.power].relative(unit.kind, unit.location)
            worth[unit.power] += found
        for entry in outcome.dislodged:
            if entry.unit.power in worth:
                worth[entry.unit.power] -= scoring.dislodged if entry.retreats else scoring.destroyed
        return worth


def score(board: Board, outcome: Adjudication, values: Mapping[str, ValueMap], scoring: Scoring = DEFAULT_SCORING) -> dict[str, float]:
    """Each power's worth after ``outcome`` (the adjudication of a movement phase on ``board``)."""
    return Scorer(board, values, scoring)(outcome)
