"""Civil disorder: the units removed when a power orders too few removals.

The rulebook's rule: remove the units farthest from the power's home supply
centres; on equal distance fleets go before armies, then alphabetically by
province name.  Choices made where the rulebook is silent or needs a stand-in:

* **Home centres are all of them, owned or not.**  The rulebook says "home
  supply centres", not "owned" ones; the DPjudge and the ``diplomacy`` package
  measure to every home centre too, so games replayed from either agree.
* **Distance is counted in moves.**  An army counts through any province, land
  or sea: a step across water stands for a convoy, as if a fleet were there
  (the rulebook's route "including convoys" is not limited to the fleets on
  the board).  A fleet counts only fleet moves, from its coast, and reaches
  home in any coastal home centre; a fleet with no water route home (only
  inland homes) is as far as can be.
"""

from __future__ import annotations

from collections import deque
from typing import Collection, Sequence

from adjudicator.tables import Tables
from adjudicator.types import Unit, UnitKind, province_of

_FAR = 10**6  # no route home at all


def distance_home(tables: Tables, unit: Unit, homes: Collection[str]) -> int:
    """Fewest moves from ``unit`` to any province in ``homes`` (``_FAR`` if unreachable)."""
    if unit.kind is UnitKind.FLEET:
        start = unit.location
        neighbours = tables.fleet_adj
        at_home = lambda loc: province_of(loc) in homes  # noqa: E731
    else:
        start = unit.province
        neighbours = tables.any_adj
        at_home = lambda loc: loc in homes  # noqa: E731
    if at_home(start):
        return 0
    seen = {start}
    frontier = deque([(start, 0)])
    while frontier:
        here, steps = frontier.popleft()
        for nxt in neighbours.get(here, ()):
            if nxt in seen:
                continue
            if at_home(nxt):
                return steps + 1
            seen.add(nxt)
            frontier.append((nxt, steps + 1))
    return _FAR


def disorder_removals(
    tables: Tables, units: Sequence[Unit], count: int, owned: Collection[str] | None = None,
) -> tuple[Unit, ...]:
    """The ``count`` units to remove from ``units`` (all of one power), farthest first.

    Without ``owned``: distance to every home centre of the power, whether it still owns it
    or not (DATC 2.4, the DPjudge).  With ``owned``, the power's centres: the 2023 rulebook's
    order (rule ``CD_REMOVE_2023``, module docstring).
    """
    if count <= 0 or not units:
        return ()
    powers = {unit.power for unit in units}
    if len(powers) != 1:
        raise ValueError(f"civil disorder removes the units of one power, not of {sorted(powers)}")
    names = tables.province_names

    def tie_break(unit: Unit) -> tuple[int, str]:
        return 0 if unit.kind is UnitKind.FLEET else 1, names.get(unit.province, unit.province).lower()

    if owned is not None:
        centres = tables.supply_centers
        targets = frozenset(owned)

        def key_2023(unit: Unit) -> tuple[bool, int, int, str]:
            return (unit.province in centres, -_steps(tables, unit.province, targets), *tie_break(unit))

        return tuple(sorted(units, key=key_2023)[:count])
    homes = tables.homes.get(units[0].power, frozenset())

    def key(unit: Unit) -> tuple[int, int, str]:
        return (-distance_home(tables, unit, homes), *tie_break(unit))

    return tuple(sorted(units, key=key)[:count])


def _steps(tables: Tables, start: str, targets: Collection[str]) -> int:
    """Fewest steps between adjacent provinces (by land or sea, any unit) from ``start`` to
    any of ``targets`` (``_FAR`` if none is reachable)."""
    if start in targets:
        return 0
    seen = {start}
    frontier = deque([(start, 0)])
    neighbours = tables.any_adj
    while frontier:
        here, steps = frontier.popleft()
        for nxt in neighbours.get(here, ()):
            if nxt in targets:
                return steps + 1
            if nxt not in seen:
                seen.add(nxt)
                frontier.append((nxt, steps + 1))
    return _FAR
