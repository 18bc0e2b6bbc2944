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

from adjudicator.board import Board
from adjudicator.results import Adjudication
from adjudicator.types import Season

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


def score(board: Board, outcome: Adjudication, values: Mapping[str, ValueMap], scoring: Scoring = DEFAULT_SCORING) -> dict[str, float]:
    """Each power's worth after ``outcome`` (the adjudication of a movement phase on ``board``)."""
    tables = board.tables
    prov_of = tables.prov_of
    position = board.position
    spring = position.phase.season is Season.SPRING
    units = outcome.position.units
    occupant = {prov_of[u.location]: u.power for u in units}
    worth = {power: 0.0 for power in values}
    centres = tables.supply_centers
    owner = {c: p for p, owned in position.centers.items() for c in owned}
    # reach[province][power]: units of power that could move there next
    reach: dict[str, dict[str, int]] = {}
    for unit in units:
        for province in tables.reach[unit.kind].get(unit.location, ()):
            counts = reach.setdefault(province, {})
            counts[unit.power] = counts.get(unit.power, 0) + 1
    claim = scoring.spring_claim if spring else 1.0
    for centre in centres:
        holder = owner.get(centre)
        there = occupant.get(centre)
        if holder in worth:
            worth[holder] += 1.0 if there is None or there == holder else 1.0 - claim
        if there is not None and there != holder and there in worth:
            worth[there] += claim
        counts = reach.get(centre)
        if not counts:
            continue
        keeper = there if there is not None else holder  # whose it will be if nobody moves
        for power in worth:
            mine = counts.get(power, 0) + (1 if there == power else 0)
            others = max((n + (1 if there == q else 0) for q, n in counts.items() if q != power), default=0)
            if there is not None and there != power and there not in counts:
                others = max(others, 1)  # the occupier holds
            if keeper == power:
                if others > mine:
                    worth[power] -= scoring.threat
            elif mine > others:
                worth[power] += scoring.chance
    for unit in units:
        value_map = values.get(unit.power)
        if value_map is not None:
            worth[unit.power] += scoring.place * value_map.relative(unit.kind, unit.location)
    for entry in outcome.dislodged:
        if entry.unit.power in worth:
            worth[entry.unit.power] -= scoring.dislodged if entry.retreats else scoring.destroyed
    return worth
