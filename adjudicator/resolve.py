"""Movement resolution after L. B. Kruijswijk's "The Math of Adjudication".

Every move, matching support and matching convoy is a *decision* (does the move
succeed, is the support given, does the fleet keep convoying).  ``_resolve``
computes a decision from the decisions it depends on; when it meets a decision
that is being computed further up (a cycle) it works with a guess, tries both
guesses, and keeps the answer if both agree.  When they disagree or both are
consistent, a *backup rule* settles the cycle: circular movement succeeds, and a
convoy paradox is broken by the game's paradox rule (Szykman by default: the
convoys in the paradox fail).

The orders are matched first (``matching.py``: who goes by convoy, who meets whom head to
head, which supports and convoys match); then each rule is one method: the strengths
(``_attack``, ``_hold``, ``_defend``, ``_prevent``), support cut (``_cuts``), convoy
disruption (``_convoy_stands``, ``_path``), the backup rules (``_backup_rule``).  The plain
cases are settled first (``_settle_plain_cases``, checked against the machinery alone by a
property test); the rest goes through the machinery.

All resolution state lives in the ``_Resolver`` object; positions stay frozen.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

from adjudicator.matching import (
    CONVOY,
    HOLD,
    MOVE,
    SUPPORT_HOLD,
    SUPPORT_MOVE,
    match_orders,
    order_shape,
)
from adjudicator.orders import Order
from adjudicator.rulesets import NO_BELEAGUERED_CONVOY, PARADOX_1982_DPJUDGE, PARADOX_ALL_FAIL
from adjudicator.tables import Tables
from adjudicator.types import Unit, UnitKind, province_of
from adjudicator.values import made

__all__ = ["HOLD", "MOVE", "SUPPORT_HOLD", "SUPPORT_MOVE", "CONVOY", "MovementResolution", "Note", "order_shape",
           "resolve_movement"]

_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2
_HOLDS, _MOVES = "holds", "moves"


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
    ``rules`` are the rules in force (``rulesets.check_rules``: sets expanded).
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


class _Resolver:
    """One movement phase being resolved: the matched orders (``matching.Matching``, read as
    they are) and each decision's state and result, by unit index."""

    __slots__ = (
        "tables", "units", "orders", "n", "prov", "power", "kind", "dest", "support_at", "at", "convoyed",
        "convoy_fleets", "h2h", "moves_into", "supporters", "matched", "unmatched", "others", "crowded", "facing",
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
        power = powers if powers is not None else [u.power for u in units]
        at = index if index is not None else {p: i for i, p in enumerate(prov)}
        if shapes is None:
            kinds = [HOLD] * n
            targets = [""] * n
            for i, order in enumerate(orders):
                if order is not None:
                    kinds[i], targets[i] = order_shape(order, prov_of)
            shapes = kinds, targets
        kind, target = shapes
        self.prov, self.power, self.at, self.kind = prov, power, at, kind
        self.dest = self.support_at = target  # a move's destination; where a support is given
        (self.moves, self.others, self.convoyed, self.convoy_fleets, self.moves_into, self.facing, self.h2h,
         self.crowded, self.supporters, self.helpers, self.matched, self.unmatched) = match_orders(
            tables, units, orders, rules, kind, target, prov, at, power)
        self.state = [_UNRESOLVED] * n
        self.result = [False] * n
        self.deps: list[int] = []
        self.paths: dict[int, bool] = {}  # convoyed army -> has a path, once all its fleets are resolved

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
        """The Math of Adjudication's move decision: the attack beats what stands in the
        target (the defence of a head-to-head opponent, else the hold of the unit there) and
        every other move's prevent strength."""
        attack = self._attack(i)
        if not attack:
            return False
        j = self.facing[i]
        if j >= 0 and attack <= (self._defend(j) if self.h2h[i] == j else self._hold(j)):
            return False
        for k in self.moves_into[self.dest[i]]:
            if k != i and attack <= self._prevent(k):
                return False
        return True

    def _prevents(self, k: int) -> bool:
        """Does move ``k`` keep others out of its target (a prevent strength above 0)?  Not
        when it is convoyed without a path, nor when it lost its head-to-head battle."""
        if self.convoyed[k] and not self._path(k):
            return False
        opponent = self.h2h[k]
        return opponent < 0 or not self._resolve(opponent)

    def _support_given(self, s: int) -> bool:
        attackers = self.moves_into.get(self.prov[s])
        if attackers:
            for k in attackers:
                if self._cuts(k, s, True):
                    return False
        return True

    def _cuts(self, k: int, s: int, deciding: bool) -> bool | None:
        """Does the move ``k`` into the supporter's province cut support ``s``?  The rule of
        support cut, in one place: a move of another power cuts it, except that a convoyed
        move cuts only if its convoy arrives (and, under the 1982 DPjudge rule, never a
        support for or against a space its fleets convoy through), and the move from where
        the support is given cuts only by dislodging the supporter (DATC 6.D.15, 6.G.13).
        Without ``deciding``, ``None`` when that depends on a decision not taken yet."""
        power = self.power
        if power[k] == power[s]:
            return False
        target = self.support_at[s]
        if self.convoyed[k]:
            if self.dpjudge and self._convoys_through(k, target):
                return False
            if not deciding:
                return None
            if not self._path(k):
                return False
        if self.prov[k] == target and self.kind[s] == SUPPORT_MOVE:
            return self._resolve(k) if deciding else None
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
        """Move ``i``'s attack strength: 0 when convoyed without a path or against a unit of
        its own power that stays; else 1 plus its supports, less those of the power it
        would dislodge."""
        if self.convoyed[i] and not self._path(i):
            return 0
        j = self.facing[i]
        if j < 0 or (self.kind[j] == MOVE and self.h2h[i] != j and self._resolve(j)):
            return 1 + self._support_count(i) if i in self.supporters else 1  # the target is or falls empty
        defender = self.power[j]
        if defender == self.power[i]:
            return 0  # no unit dislodges one of its own power
        return 1 + self._support_count(i, defender) if i in self.supporters else 1

    def _hold(self, j: int) -> int:
        """The hold strength of unit ``j``'s province: 0 if it moves away, 1 if its move
        fails, else 1 plus its supports to hold."""
        if self.kind[j] == MOVE:
            return 0 if self._resolve(j) else 1
        return 1 + self._support_count(j) if j in self.supporters else 1

    def _defend(self, j: int) -> int:
        """Move ``j``'s strength against its head-to-head opponent: 1 plus its supports."""
        return 1 + self._support_count(j) if j in self.supporters else 1

    def _prevent(self, k: int) -> int:
        """Move ``k``'s prevent strength: 0 if it prevents nothing (``_prevents``), else 1
        plus its supports."""
        if not self._prevents(k):
            return 0
        return 1 + self._support_count(k) if k in self.supporters else 1

    def _beleaguered(self, province: str) -> bool:
        """Attacked by two or more equally strong units that would each dislodge it."""
        attackers = self.moves_into.get(province, ())
        if len(attackers) < 2:
            return False
        strengths = [self._attack(k) for k in attackers]
        top = max(strengths)
        j = self.at.get(province)
        return strengths.count(top) >= 2 and top > (0 if j is None else self._hold(j))

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
        for i in helpers:
            attackers = moves_into.get(prov[i])
            if attackers is None:
                # Supports and convoys nobody attacks stand.
                result[i] = True
                state[i] = _RESOLVED
            elif kind[i] != CONVOY:
                # A support some move cuts whatever is decided later is cut (_cuts).
                cuts = self._cuts
                for k in attackers:
                    if cuts(k, i, False):
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
                reasons[i] = self.unmatched[i]
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
                if sum(map(self._prevents, movers)) >= 2:
                    standoffs.append(province)
            contested = frozenset(standoffs)
        # the fields of MovementResolution, in order: the lists as they are (see its docstring)
        return made(MovementResolution, (status, reasons, dislodged_by, convoyed, contested, beaten, moved, where, arrivals))

