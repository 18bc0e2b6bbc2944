"""What a movement phase's orders say before anything is decided: who goes by convoy, who
meets whom, which supports and convoys match the orders they name.

Each question is answered here once, by one function, and the resolver (``resolve.py``)
reads the answers as they are:

* ``_convoy_plan``: which armies go by convoy and which fleets carry each (DATC 4.A.3,
  the optional rules ``CONVOY_NO_FALLBACK`` and ``CONVOY_NEEDED_ONLY``);
* ``_battles``: the moves into each province, the unit each move faces, the head-to-head
  pairs (neither unit convoyed) and the provinces two or more moves enter;
* ``_support_matches``: which supports name an order that was given (DATC 6.B.9 for coasts).
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

from adjudicator.orders import Convoy, Move, Order, SupportHold, SupportMove
from adjudicator.rulesets import CONVOY_NEEDED_ONLY, CONVOY_NO_FALLBACK
from adjudicator.tables import Tables
from adjudicator.types import Unit, UnitKind, coast_of, province_of

# Order kinds, as small ints for speed (order_shape).
HOLD, MOVE, SUPPORT_HOLD, SUPPORT_MOVE, CONVOY = range(5)

UNMATCHED_CONVOY = "no army makes that move by convoy"
UNMATCHED_SUPPORT = "the supported unit was not ordered to do that"
UNNEEDED_CONVOY = "no convoy route of that army needs this fleet (rule CONVOY_NEEDED_ONLY)"


class Matching(NamedTuple):
    """The phase's orders matched, indexed like the units (lists owned by the resolver).

    ``convoyed[i]``: move ``i`` is by convoy, carried by the fleets ``convoy_fleets[i]`` (maybe
    none: then it fails).  ``moves_into[p]``: the moves into province ``p``; ``facing[i]``: the
    unit standing where move ``i`` goes, or -1; ``h2h[i]``: the unit move ``i`` swaps places
    with head to head, or -1; ``crowded``: provinces two or more moves enter.
    ``supporters[i]``: the matched supports of unit ``i``'s order; ``helpers``: the matched
    supports and convoys, by index; ``matched[i]`` for any support or convoy, and ``unmatched``
    the reason of each unmatched one.
    """

    moves: list[int]
    others: list[int]  # supports and convoys, matched or not
    convoyed: list[bool]
    convoy_fleets: list[tuple[int, ...]]
    moves_into: dict[str, tuple[int, ...]]
    facing: list[int]
    h2h: list[int]
    crowded: list[str]
    supporters: dict[int, tuple[int, ...]]
    helpers: list[int]
    matched: list[bool]
    unmatched: dict[int, str]


class _Given(NamedTuple):
    """A movement phase's units and legal orders as the matching reads them, by unit index:
    each order's kind and target province (``order_shape``), each unit's province and power,
    and province -> unit index."""

    tables: Tables
    units: Sequence[Unit]
    orders: Sequence[Order | None]
    kind: Sequence[int]
    dest: Sequence[str]
    prov: Sequence[str]
    at: Mapping[str, int]
    power: Sequence[str]


def order_shape(order: Order, prov_of: Mapping[str, str]) -> tuple[int, str]:
    """What the resolver needs to know of a legal movement order at first: its kind (HOLD,
    MOVE, ...) and its target province (a move's destination, where a support is given)."""
    cls = type(order)
    if cls is Move:
        return MOVE, prov_of.get(order.destination) or province_of(order.destination)  # type: ignore[union-attr]
    if cls is SupportMove:
        return SUPPORT_MOVE, prov_of.get(order.supported_to) or province_of(order.supported_to)  # type: ignore[union-attr]
    if cls is SupportHold:
        return SUPPORT_HOLD, order.supported.province  # type: ignore[union-attr]
    if cls is Convoy:
        return CONVOY, ""
    return HOLD, ""


def match_orders(
    tables: Tables,
    units: Sequence[Unit],
    orders: Sequence[Order | None],
    rules: frozenset[str],
    kind: Sequence[int],
    dest: Sequence[str],
    prov: Sequence[str],
    at: Mapping[str, int],
    power: Sequence[str],
) -> Matching:
    """Match the orders of a movement phase (``kind``/``dest`` from ``order_shape``)."""
    n = len(units)
    moves: list[int] = []
    supports: list[int] = []
    convoys: list[int] = []
    for i, k in enumerate(kind):
        if k == MOVE:
            moves.append(i)
        elif k == CONVOY:
            convoys.append(i)
        elif k:  # not HOLD (0): a support
            supports.append(i)
    matched = [False] * n
    unmatched: dict[int, str] = {}
    given = _Given(tables, units, orders, kind, dest, prov, at, power)
    convoyed, convoy_fleets, carrying = _convoy_plan(given, rules, moves, convoys, matched, unmatched)
    moves_into, facing, h2h, crowded = _battles(n, moves, kind, dest, prov, at, convoyed)
    supporters, helpers = _support_matches(given, supports, matched, unmatched)
    for f in convoys:
        if not matched[f] and f not in unmatched:
            unmatched[f] = UNMATCHED_CONVOY
    if carrying:
        helpers = sorted(helpers + carrying)
    return Matching(moves, supports + convoys, convoyed, convoy_fleets, moves_into, facing, h2h, crowded,
                    supporters, helpers, matched, unmatched)


def _convoy_plan(
    given: _Given, rules: frozenset[str], moves: list[int], convoys: list[int], matched: list[bool],
    unmatched: dict[int, str],
) -> tuple[list[bool], list[tuple[int, ...]], list[int]]:
    """Which moves go by convoy, the fleets carrying each, and all the fleets that carry.

    An army not adjacent to its target goes by convoy or not at all.  An adjacent one goes
    by convoy (DATC 4.A.3) when it means to -- its order says VIA CONVOY (or names a route),
    or a fleet of its own power is ordered to convoy it -- and, unless ``CONVOY_NO_FALLBACK``,
    only if the fleets so ordered make a chain (else it walks)."""
    tables, units, orders, kind, dest, prov, at, power = given
    n = len(units)
    convoyed = [False] * n
    convoy_fleets: list[tuple[int, ...]] = [()] * n
    carrying: list[int] = []
    army_adj = tables.army_adj
    army = UnitKind.ARMY
    if not convoys:  # the common case: only armies that cannot walk go by convoy (with no fleet)
        for i in moves:
            if dest[i] not in army_adj[prov[i]] and units[i].kind is army:
                convoyed[i] = True
        if CONVOY_NO_FALLBACK in rules:
            for i in moves:
                if units[i].kind is army and (orders[i].via_convoy or orders[i].route):  # type: ignore[union-attr]
                    convoyed[i] = True
        return convoyed, convoy_fleets, carrying
    prov_of = tables.prov_of
    needed_only = CONVOY_NEEDED_ONLY in rules
    candidates: dict[int, list[int]] = {}  # army -> the fleets ordered to convoy its move
    needed: dict[int, frozenset[str]] = {}  # army -> the seas its routes need (CONVOY_NEEDED_ONLY)
    for f in convoys:
        order = orders[f]
        j = at.get(prov_of.get(order.army_from) or province_of(order.army_from))  # type: ignore[union-attr]
        if j is not None and kind[j] == MOVE and dest[j] == (prov_of.get(order.army_to) or province_of(order.army_to)):  # type: ignore[union-attr]
            if needed_only:
                if j not in needed:
                    needed[j] = _needed_seas(tables, units, prov[j], dest[j])
                if prov[f] not in needed[j]:
                    unmatched[f] = UNNEEDED_CONVOY
                    continue
            candidates.setdefault(j, []).append(f)
    no_fallback = CONVOY_NO_FALLBACK in rules
    for i in moves:
        if units[i].kind is not army:
            continue
        target = dest[i]
        fleets = candidates.get(i)
        if target in army_adj[prov[i]]:  # it could walk
            if not (fleets or no_fallback):
                continue
            order = orders[i]
            if not (order.via_convoy or order.route or (fleets and any(power[f] == power[i] for f in fleets))):  # type: ignore[union-attr]
                continue  # no intent to convoy
            if not no_fallback and not tables.sea_path_exists(prov[i], target, frozenset(prov[f] for f in fleets)):  # type: ignore[union-attr]
                continue  # no chain ordered: it walks
        convoyed[i] = True
        if fleets:
            convoy_fleets[i] = tuple(fleets)
            for f in fleets:
                matched[f] = True
            carrying += fleets
    return convoyed, convoy_fleets, carrying


def _needed_seas(tables: Tables, units: Sequence[Unit], origin: str, target: str) -> frozenset[str]:
    """The seas (holding a fleet) on some shortest-possible convoy route from ``origin`` to
    ``target``: a chain of fleets none of which could be left out (an induced path), the
    DATC 3.0 meaning of a fleet being needed for a convoy (6.G.19)."""
    convoy_seas = tables.convoy_seas
    fleets = {u.province for u in units if u.kind is UnitKind.FLEET and u.province in convoy_seas}
    touching = tables.sea_touching
    starts = touching[origin] & fleets
    ends = touching[target]
    needed: set[str] = set()
    budget = [_NEEDED_SEARCH_STEPS]

    def extend(path: list[str]) -> None:
        last = path[-1]
        if last in ends:
            needed.update(path)
            return
        for nxt in touching[last] & fleets:
            if nxt in starts or nxt in path or any(nxt in touching[s] for s in path[:-1]):
                continue  # a shortcut exists: this chain would not need every fleet
            budget[0] -= 1
            if budget[0] < 0:
                return
            path.append(nxt)
            extend(path)
            path.pop()

    for first in starts:
        extend([first])
    if budget[0] < 0:  # a sea crowded past reason: every fleet counts as needed (the order stays valid)
        return frozenset(fleets)
    return frozenset(needed)


# Chains a search for needed fleets may try (there are few on any real board; a bound keeps
# a pathological one, many fleets in a grid of seas, from costing more than a few ms).
_NEEDED_SEARCH_STEPS = 20_000


def _battles(
    n: int,
    moves: list[int],
    kind: Sequence[int],
    dest: Sequence[str],
    prov: Sequence[str],
    at: Mapping[str, int],
    convoyed: list[bool],
) -> tuple[dict[str, tuple[int, ...]], list[int], list[int], list[str]]:
    """Who meets whom: the moves into each province, the unit each move faces, the
    head-to-head pairs and the crowded provinces.  Two units moving into each other's
    provinces meet head to head unless either goes by convoy (then they swap, or not)."""
    moves_into: dict[str, tuple[int, ...]] = {}  # tuples: nearly all hold one move, a tuple of one is cheapest
    facing = [-1] * n
    h2h = [-1] * n
    crowded: list[str] = []
    for i in moves:
        target = dest[i]
        movers = moves_into.get(target)
        if movers is None:
            moves_into[target] = (i,)
        else:
            if len(movers) == 1:
                crowded.append(target)
            moves_into[target] = movers + (i,)
        j = at.get(target)
        if j is not None:
            facing[i] = j
            if j < i and kind[j] == MOVE and dest[j] == prov[i] and not convoyed[i] and not convoyed[j]:
                h2h[i] = j
                h2h[j] = i
    return moves_into, facing, h2h, crowded


def _support_matches(
    given: _Given, supports: list[int], matched: list[bool], unmatched: dict[int, str],
) -> tuple[dict[int, tuple[int, ...]], list[int]]:
    """The matched supports of each supported unit, and all matched supports in order.  A
    support to hold matches a unit that does not move; a support to move, the move it names
    (a support naming the other coast of the mover's destination does not, DATC 6.B.9; one
    naming no coast matches either, 6.B.15)."""
    tables, units, orders, kind, target, _, at, _ = given
    prov_of = tables.prov_of
    supporters: dict[int, tuple[int, ...]] = {}
    helpers: list[int] = []
    for s in supports:
        if kind[s] == SUPPORT_HOLD:
            j = at.get(target[s])
            if j is None or kind[j] == MOVE:
                unmatched[s] = UNMATCHED_SUPPORT
                continue
        else:
            order = orders[s]
            j = at.get(prov_of.get(order.supported.location) or province_of(order.supported.location))  # type: ignore[union-attr]
            if j is None or kind[j] != MOVE or target[j] != target[s]:
                unmatched[s] = UNMATCHED_SUPPORT
                continue
            wanted = coast_of(order.supported_to) if "/" in order.supported_to else None  # type: ignore[union-attr]
            if wanted is not None and units[j].kind is UnitKind.FLEET:
                actual = coast_of(orders[j].destination)  # type: ignore[union-attr]
                if actual is not None and actual != wanted:
                    unmatched[s] = UNMATCHED_SUPPORT
                    continue
        supporters[j] = supporters[j] + (s,) if j in supporters else (s,)
        matched[s] = True
        helpers.append(s)
    return supporters, helpers
