"""Civil disorder: the units removed when a power orders too few removals.

The rulebook's rule: remove the units farthest from the power's owned home
supply centres, distance counted in moves (an army may count through any
province, land or sea; a fleet only where a fleet may go, from either coast);
on equal distance fleets go before armies, then alphabetically by province name.
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


def disorder_removals(tables: Tables, units: Sequence[Unit], owned_homes: Collection[str], count: int) -> tuple[Unit, ...]:
    """The ``count`` units of one power to remove, farthest from ``owned_homes`` first.

    A power that owns none of its home centres is measured to all of them.
    """
    if count <= 0 or not units:
        return ()
    homes = set(owned_homes) or set(tables.homes.get(units[0].power, ()))

    def key(unit: Unit) -> tuple[int, int, str]:
        name = tables.province_names.get(unit.province, unit.province).lower()
        return (-distance_home(tables, unit, homes), 0 if unit.kind is UnitKind.FLEET else 1, name)

    return tuple(sorted(units, key=key)[:count])
