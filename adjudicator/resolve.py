"""Movement resolution after L. B. Kruijswijk's "The Math of Adjudication".

Every move, matching support and matching convoy is a *decision* (does the move
succeed, is the support given, does the fleet keep convoying).  ``_resolve``
computes a decision from the decisions it depends on; when it meets a decision
that is being computed further up (a cycle) it works with a guess, tries both
guesses, and keeps the answer if both agree.  When they disagree or both are
consistent, a *backup rule* settles the cycle: circular movement succeeds, and a
convoy paradox is broken by the game's paradox rule (Szykman by default: the
convoys in the paradox fail).

All resolution state lives in the ``_Resolver`` object; positions stay frozen.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

from adjudicator.orders import Convoy, Move, Order, SupportHold, SupportMove
from adjudicator.tables import Tables
from adjudicator.types import Unit, UnitKind, coast_of, province_of
from adjudicator.values import made

# Optional rules (names a game may switch on).
PARADOX_SZYKMAN = "PARADOX_SZYKMAN"  # default: the convoys of a paradox fail, their armies stay
PARADOX_1982_DPJUDGE = "PARADOX_1982_DPJUDGE"  # a convoyed army never cuts support for/against its fleets' spaces
PARADOX_ALL_FAIL = "PARADOX_ALL_FAIL"  # every order caught in a paradox fails (all hold)
NO_BELEAGUERED_CONVOY = "NO_BELEAGUERED_CONVOY"  # a beleaguered fleet cannot convoy
PARADOX_RULES = frozenset({PARADOX_SZYKMAN, PARADOX_1982_DPJUDGE, PARADOX_ALL_FAIL})
RULES = frozenset(PARADOX_RULES | {NO_BELEAGUERED_CONVOY})

# Order kinds, as small ints for speed.
HOLD, MOVE, SUPPORT_HOLD, SUPPORT_MOVE, CONVOY = range(5)
_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2
_HOLDS, _MOVES = "holds", "moves"
_UNMATCHED_CONVOY = "no army makes that move by convoy"
_UNMATCHED_SUPPORT = "the supported unit was not ordered to do that"


class MovementResolution(NamedTuple):
    """Outcome of resolving one movement phase, indexed like the input units.

    An intermediate of ``api.adjudicate``, which reads it once and keeps none of it: its
    sequences are the resolver's own lists, handed over without a copy, and nothing
    writes to them afterwards.

    ``status[i]`` is one of the contract's result codes for unit ``i``'s order as
    the resolver saw it; ``reasons[i]`` explains failures that need it.
    ``dislodged_by[i]`` is the index of the unit that dislodged it, or -1.
    ``convoyed_attack[i]`` tells whether unit ``i`` arrived by convoy.
    ``dislodged`` and ``moved`` list the indexes of the dislodged units and of those that moved;
    ``arrivals[m]`` is the location unit ``moved[m]`` arrived at (a fleet's with its coast).
    """

    status: Sequence[str]
    reasons: Sequence[str | None]
    dislodged_by: Sequence[int]
    convoyed_attack: Sequence[bool]
    contested: frozenset[str]
    dislodged: Sequence[int] = ()
    moved: Sequence[int] = ()  # the indexes of the units that moved
    # the province of each unit after the moves (a dislodged unit's: its attacker's), so the
    # provinces holding a unit after the moves are the distinct values of ``where``
    where: Sequence[str] = ()
    arrivals: Sequence[str] = ()




def resolve_movement(
    tables: Tables,
    units: Sequence[Unit],
    orders: Sequence[Order | None],
    rules: frozenset[str] = frozenset(),
    provinces: Sequence[str] | None = None,
    index: Mapping[str, int] | None = None,
    powers: Sequence[str] | None = None,
    shapes: tuple[Sequence[int], Sequence[str]] | None = None,
) -> MovementResolution:
    """Resolve legal movement ``orders``: ``orders[i]`` is unit ``i``'s order, ``None`` for a hold.

    Callers that have them (a ``Board`` does) may pass ``provinces[i]`` (unit ``i``'s
    province), ``index`` (province -> unit index) and ``powers[i]`` (unit ``i``'s power);
    they are read, never modified; likewise ``shapes``, ``(kinds, targets)`` with
    ``order_shape`` of each unit's order (``(HOLD, "")`` for none), when the caller has them.
    """
    return _Resolver(tables, units, orders, rules, provinces, index, powers, shapes).run()


class Note(NamedTuple):
    """What the resolver needs first of a legal movement order, noted by the parser: the
    ordered unit's province, the order's kind code (HOLD, MOVE, ...) and its target province
    (``order_shape``).  A canonical line's ``forms.Form`` starts with the same three fields
    and serves as its note."""

    province: str
    shape: int
    target: str


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


class _Resolver:
    __slots__ = (
        "tables", "units", "orders", "n", "prov", "power", "kind", "dest", "at", "convoyed",
        "convoy_fleets", "h2h", "moves_into", "supporters", "support_at", "matched", "others", "crowded", "facing",
        "helpers", "state", "result", "deps", "paths", "all_fail", "dpjudge", "no_beleaguered", "moves",
    )

    def __init__(
        self,
        tables: Tables,
        units: Sequence[Unit],
        orders: Sequence[Order | None],
        rules: frozenset[str],
        provinces: Sequence[str] | None,
        index: Mapping[str, int] | None = None,
        powers: Sequence[str] | None = None,
        shapes: tuple[Sequence[int], Sequence[str]] | None = None,
    ) -> None:
        n = len(units)
        self.tables = tables
        self.units = units
        self.orders = orders
        self.n = n
        self.all_fail = PARADOX_ALL_FAIL in rules
        self.dpjudge = PARADOX_1982_DPJUDGE in rules
        self.no_beleaguered = NO_BELEAGUERED_CONVOY in rules
        prov_of = tables.prov_of
        prov = provinces if provinces is not None else [prov_of.get(u.location) or province_of(u.location) for u in units]
        self.prov = prov
        self.power = power = powers if powers is not None else [u.power for u in units]
        at = index if index is not None else {p: i for i, p in enumerate(prov)}
        self.at = at
        kind: Sequence[int]
        targets: Sequence[str]  # a move's destination province, or the province a support is given into
        if shapes is None:
            kinds = [HOLD] * n
            shaped_targets = [""] * n
            for i, order in enumerate(orders):
                if order is not None:
                    kinds[i], shaped_targets[i] = order_shape(order, prov_of)
            kind, targets = kinds, shaped_targets
        else:
            kind, targets = shapes
        dest = support_at = targets
        moves: list[int] = []  # the units of each kind of order, by index
        supports: list[int] = []
        convoys: list[int] = []
        for i, k in enumerate(kind):
            if k == MOVE:
                moves.append(i)
            elif k == CONVOY:
                convoys.append(i)
            elif k:  # not HOLD (0): a support
                supports.append(i)
        self.kind = kind
        self.dest = dest
        self.support_at = support_at
        self.moves = moves
        self.others = supports + convoys
        self.matched = matched = [False] * n

        convoyed = [False] * n
        convoy_fleets: list[tuple[int, ...]] = [()] * n
        self.convoyed = convoyed
        self.convoy_fleets = convoy_fleets
        army_adj = tables.army_adj
        army = UnitKind.ARMY
        candidates: dict[int, list[int]] = {}
        for f in convoys:
            order = orders[f]
            j = at.get(prov_of.get(order.army_from) or province_of(order.army_from))  # type: ignore[union-attr]
            if j is not None and kind[j] == MOVE and dest[j] == (prov_of.get(order.army_to) or province_of(order.army_to)):  # type: ignore[union-attr]
                candidates.setdefault(j, []).append(f)
        moves_into: dict[str, tuple[int, ...]] = {}  # tuples: nearly all hold one move, a tuple of one is cheapest
        facing = [-1] * n  # a move's index -> the index of the unit standing in its target, or -1
        self.facing = facing
        crowded: list[str] = []  # provinces two or more units move into
        self.crowded = crowded
        h2h = [-1] * n  # a move's index -> the unit it swaps places with, head to head, or -1
        carrying: list[int] = []  # the convoys matched to an army they carry
        for i in moves:
            target = dest[i]
            movers = moves_into.get(target)
            if movers is None:
                moves_into[target] = (i,)
            else:
                if len(movers) == 1:
                    crowded.append(target)
                moves_into[target] = movers + (i,)
            # An army not adjacent to its target goes by convoy or not at all; an adjacent one, by
            # convoy only if fleets are ordered to carry it and it prefers to.
            if candidates:
                if units[i].kind is army:
                    fleets = candidates.get(i)  # the fleets ordered to convoy it
                    if target not in army_adj[prov[i]] or (fleets and self._prefers_convoy(i, target, fleets)):
                        convoyed[i] = True
                        if fleets:
                            convoy_fleets[i] = tuple(fleets)
                            for f in fleets:
                                matched[f] = True
                            carrying += fleets
            elif target not in army_adj[prov[i]] and units[i].kind is army:  # no convoy orders at all
                convoyed[i] = True
            j = at.get(target)
            if j is not None:
                facing[i] = j
                # a head-to-head battle, seen from the second unit of the pair (the first one's
                # convoy decision is made by then): neither unit may go by convoy
                if j < i and kind[j] == MOVE and dest[j] == prov[i] and not convoyed[i] and not convoyed[j]:
                    h2h[i] = j
                    h2h[j] = i
        self.h2h = h2h
        self.moves_into = moves_into

        supporters: dict[int, tuple[int, ...]] = {}
        helpers: list[int] = []  # matched supports and convoys, by index
        for s in supports:
            if kind[s] == SUPPORT_HOLD:
                j = at.get(support_at[s])
                if j is None or kind[j] == MOVE:
                    continue
            else:
                order = orders[s]
                j = at.get(prov_of.get(order.supported.location) or province_of(order.supported.location))  # type: ignore[union-attr]
                if j is None or kind[j] != MOVE or dest[j] != support_at[s]:
                    continue
                wanted = coast_of(order.supported_to) if "/" in order.supported_to else None  # type: ignore[union-attr]
                if wanted is not None and units[j].kind is UnitKind.FLEET:
                    actual = coast_of(orders[j].destination)  # type: ignore[union-attr]
                    if actual is not None and actual != wanted:
                        continue  # DATC 6.B.9: a support naming the other coast does not match
            supporters[j] = supporters[j] + (s,) if j in supporters else (s,)
            matched[s] = True
            helpers.append(s)
        self.supporters = supporters
        self.helpers = sorted(helpers + carrying) if carrying else helpers
        self.state = [_UNRESOLVED] * n
        self.result = [False] * n
        self.deps: list[int] = []
        self.paths: dict[int, bool] = {}  # convoyed army -> has a path, once all its fleets are resolved

    def _prefers_convoy(self, i: int, target: str, fleets: list[int]) -> bool:
        """DATC 4.A.3: army ``i``, which could walk to ``target``, goes by convoy (the
        ``fleets`` ordered to convoy it) when asked to ("via convoy") or when its own power
        convoys it, if a convoy is possible at all."""
        order = self.orders[i]
        power = self.power
        if not (order.via_convoy or order.route or any(power[f] == power[i] for f in fleets)):  # type: ignore[union-attr]
            return False
        prov = self.prov
        return self.tables.sea_path_exists(prov[i], target, frozenset(prov[f] for f in fleets))

    # -- the guess / backtrack machinery ------------------------------------------------

    def _resolve(self, i: int) -> bool:
        states = self.state
        state = states[i]
        if state == _RESOLVED:
            return self.result[i]
        deps = self.deps
        if state == _GUESSING:
            if i not in deps:
                deps.append(i)
            return self.result[i]
        base = len(deps)
        self.result[i] = False
        states[i] = _GUESSING
        first = self._decide(i)
        if len(deps) == base:
            if states[i] != _RESOLVED:
                self.result[i] = first
                states[i] = _RESOLVED
            return self.result[i]
        if deps[base] != i:
            # Depends on a guess made further up: stay a guess, report upwards.
            deps.append(i)
            self.result[i] = first
            return first
        self._forget(base)
        self.result[i] = True
        self.state[i] = _GUESSING
        second = self._decide(i)
        if first == second or len(deps) == base:
            self._forget(base)
            self.result[i] = second
            self.state[i] = _RESOLVED
            return second
        self._backup_rule(base)
        return self._resolve(i)

    def _forget(self, base: int) -> None:
        deps = self.deps
        state = self.state
        for j in deps[base:]:
            state[j] = _UNRESOLVED
        del deps[base:]

    def _backup_rule(self, base: int) -> None:
        cycle = self.deps[base:]
        self._forget(base)
        kind = self.kind
        state = self.state
        result = self.result
        if any(kind[j] == CONVOY for j in cycle):
            # A convoy paradox.  Szykman (also the fallback of the 1982 rule): the
            # convoys caught in it fail, so their armies stay where they are.
            for j in cycle:
                if self.all_fail or kind[j] == CONVOY:
                    result[j] = False
                    state[j] = _RESOLVED
        else:
            # Circular movement: everybody moves.
            for j in cycle:
                if kind[j] == MOVE:
                    result[j] = True
                    state[j] = _RESOLVED

    def _decide(self, i: int) -> bool:
        kind = self.kind[i]
        if kind == MOVE:
            return self._move_succeeds(i)
        if kind == CONVOY:
            return self._convoy_stands(i)
        return self._support_given(i)

    # -- decisions ----------------------------------------------------------------------

    def _move_succeeds(self, i: int) -> bool:
        # The strengths of the Math of Adjudication (attack, hold, defend, prevent; see _attack
        # and _hold), worked out in line: this is the resolver's innermost decision.  A move's
        # prevent strength is 0 when it is convoyed without a path or beaten head to head,
        # else 1 plus its supports.
        convoyed = self.convoyed
        if convoyed[i] and not self._path(i):
            return False
        target = self.dest[i]
        kind = self.kind
        h2h = self.h2h
        supporters = self.supporters
        j = self.facing[i]
        if j < 0:
            attack = 1 + self._support_count(i) if i in supporters else 1
        elif kind[j] == MOVE and h2h[i] != j and self._resolve(j):
            attack = 1 + self._support_count(i) if i in supporters else 1  # the target empties
        else:
            defender = self.power[j]
            if defender == self.power[i]:
                return False  # no unit dislodges one of its own power
            attack = 1 + self._support_count(i, defender) if i in supporters else 1
            if kind[j] != MOVE or h2h[i] == j:  # the hold strength of a unit staying, or the defend strength
                if attack <= (1 + self._support_count(j) if j in supporters else 1):
                    return False
            elif attack == 1:  # a unit failing to leave holds with strength 1
                return False
        for k in self.moves_into[target]:
            if k == i or (convoyed[k] and not self._path(k)):
                continue  # a convoyed army without its convoy prevents nothing
            opponent = h2h[k]
            if opponent >= 0 and self._resolve(opponent):
                continue  # beaten in its head-to-head battle: prevents nothing
            if attack <= (1 + self._support_count(k) if k in supporters else 1):
                return False
        return True

    def _support_given(self, s: int) -> bool:
        attackers = self.moves_into.get(self.prov[s])
        if not attackers:
            return True
        power = self.power
        own = power[s]
        target = self.support_at[s]
        is_move_support = self.kind[s] == SUPPORT_MOVE
        for k in attackers:
            if power[k] == own:
                continue
            if self.convoyed[k]:
                if self.dpjudge and self._convoys_through(k, target):
                    continue  # DPjudge's amendment of the 1982 rule: never cut, not even by dislodging
                if not self._path(k):
                    continue
            if is_move_support and self.prov[k] == target:
                # The unit being attacked cannot cut the support against it, except by dislodging.
                if self._resolve(k):
                    return False
                continue
            return False
        return True

    def _convoy_stands(self, f: int) -> bool:
        here = self.prov[f]
        for k in self.moves_into.get(here, ()):
            if self._resolve(k):
                return False
        if self.no_beleaguered and self._beleaguered(here):
            return False
        return True

    # -- strengths ----------------------------------------------------------------------

    def _support_count(self, i: int, excluded_power: str | None = None) -> int:
        supporters = self.supporters.get(i)
        if not supporters:
            return 0
        count = 0
        power = self.power
        state = self.state
        result = self.result
        for s in supporters:
            if power[s] != excluded_power:
                if state[s] == _RESOLVED:
                    if result[s]:
                        count += 1
                elif self._resolve(s):
                    count += 1
        return count

    def _attack(self, i: int) -> int:
        if self.convoyed[i] and not self._path(i):
            return 0
        j = self.at.get(self.dest[i])
        if j is None or (self.kind[j] == MOVE and self.h2h[i] != j and self._resolve(j)):
            return 1 + self._support_count(i)
        defender = self.power[j]
        if defender == self.power[i]:
            return 0
        return 1 + self._support_count(i, defender)

    def _hold(self, province: str) -> int:
        j = self.at.get(province)
        if j is None:
            return 0
        if self.kind[j] == MOVE:
            return 0 if self._resolve(j) else 1
        return 1 + self._support_count(j)

    def _beleaguered(self, province: str) -> bool:
        """Attacked by two or more equally strong units that would each dislodge it."""
        attackers = self.moves_into.get(province, ())
        if len(attackers) < 2:
            return False
        strengths = [self._attack(k) for k in attackers]
        top = max(strengths)
        return strengths.count(top) >= 2 and top > self._hold(province)

    # -- convoy routes ------------------------------------------------------------------

    def _convoys_through(self, k: int, province: str) -> bool:
        prov = self.prov
        return any(prov[f] == province for f in self.convoy_fleets[k])

    def _path(self, i: int) -> bool:
        """Is there a chain of fleets, each still convoying, carrying army ``i``?"""
        known = self.paths.get(i)
        if known is not None:
            return known
        fleets = self.convoy_fleets[i]
        if not fleets:
            return False
        prov = self.prov
        state = self.state
        by_sea = {prov[f]: f for f in fleets}
        touching = self.tables.sea_touching
        goal = self.tables.sea_landing[self.dest[i]]
        frontier = [s for s in touching[prov[i]] if s in by_sea]
        seen = set(frontier)
        found = False
        while frontier:
            sea = frontier.pop()
            if not self._resolve(by_sea[sea]):
                continue
            if sea in goal:
                found = True
                break
            for nxt in touching[sea]:
                if nxt in by_sea and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        if min(map(state.__getitem__, fleets)) == _RESOLVED:  # the highest state: all resolved
            self.paths[i] = found  # settled: every fleet's decision is final
        return found

    # -- outcome ------------------------------------------------------------------------

    def _settle_plain_cases(self, helpers: list[int]) -> None:
        """Decide, without the guess machinery, the moves and the supports and convoys
        (``helpers``) whose decision follows from the orders alone or from decisions
        settled here before them; each gets what ``_resolve`` would give it (a test
        runs the resolver without this step and compares)."""
        kind = self.kind
        moves_into = self.moves_into
        facing = self.facing
        state = self.state
        result = self.result
        convoyed = self.convoyed
        supporters = self.supporters
        dest = self.dest
        power = self.power
        h2h = self.h2h
        moves = self.moves
        # Fast paths: moves decided without the machinery (each gives what _move_succeeds would).
        # A move into a province whose unit is moving away waits for that move to be decided;
        # a chain is settled from its free end, one pass per link.
        pending = moves
        while pending:
            waiting = []
            for i in pending:
                j = facing[i]
                if j >= 0 and (kind[j] != MOVE or h2h[i] == j):
                    # against a unit that stays, or head to head: an unsupported move is 1 against
                    # a hold or defend strength of at least 1 (or against its own power's unit)
                    if i not in supporters:
                        state[i] = _RESOLVED  # result[i] is False already
                    continue
                if j >= 0:  # into the province of a unit moving elsewhere
                    if state[j] != _RESOLVED:
                        waiting.append(i)
                        continue
                    if not result[j]:  # it stays, holding with strength 1
                        if i not in supporters or power[j] == power[i]:
                            state[i] = _RESOLVED
                        continue
                if convoyed[i]:
                    continue
                # the target is empty, or emptied: only the other moves into it can stop this one
                movers = moves_into[dest[i]]
                if len(movers) == 1:
                    result[i] = True
                    state[i] = _RESOLVED
                elif i not in supporters:
                    for k in movers:  # one that prevents with strength 1 or more stops an unsupported move
                        if k != i and not convoyed[k] and h2h[k] < 0:
                            state[i] = _RESOLVED
                            break
            if len(waiting) == len(pending):
                break  # a circle of moves: for the machinery
            pending = waiting
        prov = self.prov
        support_at = self.support_at
        for i in helpers:
            attackers = moves_into.get(prov[i])
            if attackers is None:
                # Supports and convoys nobody attacks stand.
                result[i] = True
                state[i] = _RESOLVED
            elif kind[i] != CONVOY:
                # A support attacked by another power's unit, neither convoyed nor coming from
                # where the support is given, is cut whatever happens (as _support_given finds).
                own = power[i]
                spared = support_at[i] if kind[i] == SUPPORT_MOVE else ""
                for k in attackers:
                    if power[k] != own and not convoyed[k] and prov[k] != spared:
                        state[i] = _RESOLVED  # result[i] is False already
                        break

    def run(self) -> MovementResolution:
        n = self.n
        kind = self.kind
        resolve = self._resolve
        moves = self.moves
        dest = self.dest
        moves_into = self.moves_into
        facing = self.facing
        state = self.state
        result = self.result
        convoyed = self.convoyed
        h2h = self.h2h
        helpers = self.helpers
        self._settle_plain_cases(helpers)
        for i in moves:
            if state[i] != _RESOLVED:
                resolve(i)
        for i in helpers:
            if state[i] != _RESOLVED:
                resolve(i)
        units = self.units
        prov = self.prov
        dislodged_by = [-1] * n
        where = list(prov)  # each unit's province after the moves
        status = [_HOLDS] * n  # holds hold; moves, supports and convoys below
        reasons: list[str | None] = [None] * n
        army = UnitKind.ARMY
        orders = self.orders
        beaten = []
        moved = []
        arrivals = []
        for k in moves:
            if result[k]:
                moved.append(k)
                status[k] = _MOVES
                target = where[k] = dest[k]
                arrivals.append(target if units[k].kind is army else orders[k].destination)  # type: ignore[union-attr]
                j = facing[k]
                if j >= 0 and not (kind[j] == MOVE and result[j]):
                    dislodged_by[j] = k
                    beaten.append(j)
            else:
                status[k] = "no_convoy" if convoyed[k] and not self._path(k) else "bounce"
        matched = self.matched
        for i in self.others:
            k = kind[i]
            if not matched[i]:
                status[i] = "void"
                reasons[i] = _UNMATCHED_CONVOY if k == CONVOY else _UNMATCHED_SUPPORT
            elif k == CONVOY:
                if result[i]:
                    status[i] = "convoys"
                else:
                    status[i], reasons[i] = "no_convoy", "the convoy was disrupted"
            else:
                status[i] = "supports" if result[i] else "cut"
        for j in beaten:
            status[j] = "dislodged"
            reasons[j] = None
        contested: frozenset[str] = frozenset()
        crowded = self.crowded
        if crowded:
            at = self.at
            standoffs = []
            for province in crowded:
                movers = moves_into[province]
                standing = at.get(province)
                if (standing is not None and not (kind[standing] == MOVE and result[standing])) or any(map(result.__getitem__, movers)):
                    continue  # its unit stays (or is dislodged, and its attacker stands there), or a move came in
                preventing = 0  # moves into it with a prevent strength above 0 (see _move_succeeds)
                for k in movers:
                    if (convoyed[k] and not self._path(k)) or (h2h[k] >= 0 and result[h2h[k]]):
                        continue
                    preventing += 1
                if preventing >= 2:
                    standoffs.append(province)
            contested = frozenset(standoffs)
        # the fields of MovementResolution, in order: the lists as they are (see its docstring)
        return made(MovementResolution, (status, reasons, dislodged_by, convoyed, contested, beaten, moved, where, arrivals))

