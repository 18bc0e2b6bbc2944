"""What a negotiator agreed, as the strategic core takes it (the reference's inputs: the
powers divided into allies and enemies, demilitarised zones, moves promised or forbidden).

``restrict`` narrows our units' options to what the agreements allow: no move or convoy
into a DMZ province, a province an ally's unit holds or a centre an ally owns; no
forbidden move; a promised intention is the unit's only one (when it is still open to
it); a unit standing in a DMZ may not hold there when it can leave.  ``revalue`` makes the
value map say the same: an ally's centres are worth nothing to us, an enemy's count
``enemy_weight`` times.  The search (``bot.search.StrategicBot``) plays inside the
agreements and breaks them only when the best set outside them is clearly better
(``StrategicBot.break_margin``).  Pure and frozen.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping, Sequence

from adjudicator.api import Board
from adjudicator.types import province_of
from bot.options import HOLD, Intent, UnitOptions
from bot.values import ValueMap


@dataclass(frozen=True)
class Agreements:
    """One power's agreements.  ``promised``: unit province -> the intention promised
    (``("H",)`` or ``("M", location)``); ``forbidden``: (unit province, target province)
    moves promised not to be made."""

    allies: frozenset[str] = frozenset()
    enemies: frozenset[str] = frozenset()
    dmz: frozenset[str] = frozenset()
    promised: Mapping[str, Intent] = field(default_factory=lambda: MappingProxyType({}))
    forbidden: frozenset[tuple[str, str]] = frozenset()
    enemy_weight: float = 1.5

    def __bool__(self) -> bool:
        return bool(self.allies or self.enemies or self.dmz or self.promised or self.forbidden)

    def closed(self, board: Board) -> frozenset[str]:
        """Provinces our units may not enter: DMZs, allies' units and allies' centres."""
        position = board.position
        held = {u.province for u in position.units if u.power in self.allies}
        owned = {c for power in self.allies for c in position.centers.get(power, ())}
        return frozenset(self.dmz | held | owned)

    def restrict(self, board: Board, options: Sequence[UnitOptions]) -> tuple[UnitOptions, ...]:
        """Our units' options within the agreements (each unit keeps at least one)."""
        closed = self.closed(board)
        kept = []
        for option in options:
            allowed = tuple(i for i in option.intents if self._allows(option.province, i, closed))
            promise = self.promised.get(option.province)
            if promise is not None and promise in option.intents:
                allowed = (promise,)
            elif option.province in self.dmz:
                leaving = tuple(i for i in allowed if i[0] in ("M", "V"))
                allowed = leaving or allowed
            kept.append(replace(option, intents=allowed or (HOLD,)))
        return tuple(kept)

    def _allows(self, province: str, intent: Intent, closed: frozenset[str]) -> bool:
        if intent[0] not in ("M", "V"):
            return True
        target = province_of(intent[1])
        return target not in closed and (province, target) not in self.forbidden

    def revalue(self, board: Board, values: ValueMap) -> ValueMap:
        """``values`` with allies' centres worth nothing and enemies' worth more."""
        position = board.position
        factor: dict[str, float] = {}
        for power, centres in position.centers.items():
            weight = 0.0 if power in self.allies else self.enemy_weight if power in self.enemies else None
            if weight is not None:
                factor.update({c: weight for c in centres})
        if not factor:
            return values
        changed = {node: value * factor.get(province_of(node[1]), 1.0) if value > 0 else value
                   for node, value in values.values.items()}
        scale = max((abs(v) for v in changed.values()), default=0.0)
        return ValueMap(values.power, MappingProxyType(changed), scale)


NO_AGREEMENTS = Agreements()

__all__ = ["Agreements", "NO_AGREEMENTS"]
