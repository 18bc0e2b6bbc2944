"""The strategic bot: value the board, then search order sets for every power by Loeb's
Refined Evolutionary Search (RES, "Challenges in Gaming by Computers").

Movement phase:

1. Every power gets a value map (``bot.values``) and a seed order set: the best, against
   the others' first seeds, of a greedy set (each unit to its best place) and a few sets
   sampled from the values.  Intentions are coordinated into supports and convoys by
   ``bot.options.coordinate``.
2. RES: in turn (our power every other step, the others round-robin), one power's best
   set is mutated (a few units get a new intention, drawn from their values or
   uniformly), coordinated, and adjudicated by our own engine against the other powers'
   current best sets.  If the power's worth (``bot.evaluate``) improves, the mutation
   becomes its best set and every power's worth is updated.  The number of units mutated
   falls as the budget is used ("refined": wide changes first, single units at the end).
   Our own sets are judged against the others' current sets and a pool of others: by
   default six samples of what a DumbBot would play for them.  The others' current sets
   alone are pessimistic (each is the best answer to our set, as if they saw it) and make
   the bot too cautious to take centres from players that cannot see its orders; the
   samples stand for such players.  Optionally (``snapshot_every``) the pool also takes the
   others' earlier best sets.  The last quarter of the budget improves our set alone.
3. Our power's best set is the answer.

With ``Agreements`` (``bot.agreements``: allies, enemies, DMZs, promised and forbidden
moves) our units search only within them, on a value map that says the same; at the end
the best set outside them (the greedy set and the sampled seeds, without the agreements,
against the others' final sets) is taken instead only when it is worth ``break_margin``
more: an agreement is broken only when breaking it clearly pays.

Retreats and builds follow the value map (``bot.adjust``).  Deterministic for a seed when
the search ends by its count of iterations (the default budget's does, except on a very
slow or loaded machine, where its wall-time cap comes first).
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from adjudicator import api
from adjudicator.api import Board
from adjudicator.orders import Order
from adjudicator.results import ParsedOrders
from adjudicator.types import PhaseKind
from bot.adjust import orders_by_value
from bot.agreements import NO_AGREEMENTS, Agreements
from bot.dumbbot import DumbBot
from bot.evaluate import DEFAULT_SCORING, Scorer, Scoring
from bot.options import HOLD, Intent, UnitOptions, coordinate, unit_options
from bot.player import Budget, phase_rng
from bot.values import DEFAULT_WEIGHTS, ValueMap, Weights, value_map

DEFAULT_BUDGET = Budget()  # DEFAULT_EVALUATIONS evaluations, at most SAFETY_SECONDS of wall time


@dataclass(frozen=True)
class SearchReport:
    """What one search did (for logs and benchmarks)."""

    iterations: int
    improvements: int
    seconds: float
    worth: Mapping[str, float]
    broke: bool = False  # the answer breaks the agreements (it was clearly better)


@dataclass(frozen=True)
class StrategicBot:
    """The RES player.  ``budget`` limits the search of each movement phase."""

    seed: int = 0
    budget: Budget = DEFAULT_BUDGET
    weights: Weights = DEFAULT_WEIGHTS
    scoring: Scoring = DEFAULT_SCORING
    samples: int = 4  # sampled seed sets per power, besides the greedy one
    uniform: float = 0.3  # chance a mutated unit's new intention is drawn uniformly, not by value
    pool: int = 6  # other sets of the others that our sets are also judged against
    modelled: int = 6  # of which, at the start, sets a DumbBot would play for them
    snapshot_every: int | None = None  # iterations between two additions of the others' best sets to the pool
    break_margin: float = 1.5  # worth (about a centre and a half) by which breaking agreements must pay
    name: str = field(default="StrategicBot")
    # what the budget's seconds are measured on: wall time (a benchmark may count CPU time)
    clock: Callable[[], float] = field(default=time.perf_counter, compare=False, repr=False)

    def orders(self, board: Board, power: str, agreements: Agreements = NO_AGREEMENTS) -> list[Order]:
        """Retreats and builds follow the value map alone (agreements bind movement phases)."""
        if board.position.phase.kind is not PhaseKind.MOVEMENT:
            return orders_by_value(board, power, self.weights)
        return self.search(board, power, agreements)[0]

    def search(self, board: Board, power: str,
               agreements: Agreements = NO_AGREEMENTS) -> tuple[list[Order], SearchReport]:
        """Our orders for a movement phase within ``agreements``, and what the search did."""
        clock = self.clock
        started = clock()
        rng = phase_rng(self.seed, board, power, self.name)
        powers = sorted({u.power for u in board.position.units})
        if power not in powers:
            return [], SearchReport(0, 0, 0.0, {})
        values = {p: value_map(board, p, self.weights) for p in powers}
        options = {p: unit_options(board, p) for p in powers}
        free_options, free_values = options[power], values[power]
        if agreements:
            options[power] = agreements.restrict(board, free_options)
            values[power] = agreements.revalue(board, free_values)
        state = _State(board, values, self.scoring)
        # 1. seeds: greedy, then samples, each judged against the others' greedy sets
        raw = {p: _greedy(options[p], values[p]) for p in powers}
        orders = {p: coordinate(board, options[p], raw[p], rng) for p in powers}
        worth = state.worth(orders)
        for p in powers:
            for _ in range(self.samples):
                candidate = {o.province: _draw(o, values[p], rng, 0.0) for o in options[p]}
                trial_orders = coordinate(board, options[p], candidate, rng)
                trial = state.worth({**orders, p: trial_orders})
                if trial[p] > worth[p]:
                    raw[p], orders[p], worth = candidate, trial_orders, trial
        # 2. RES.  Our sets are judged against the others' current best sets and the pool
        # (DumbBot samples; optionally earlier best sets: pure strategies cycle, and an answer
        # to the last of a cycle alone is brittle).  The last quarter mutates our sets only.
        others = [p for p in powers if p != power]
        pool: deque[dict[str, list[Order]]] = deque(maxlen=self.pool)
        for _ in range(self.modelled):  # how a DumbBot would play the others
            model = DumbBot(rng.randrange(1 << 30))
            if model.weights == self.weights:  # the value maps it would compute: ours, computed once
                pool.append({q: model.movement_orders(board, q, values[q]) for q in others})
            else:
                pool.append({q: model.orders(board, q) for q in others})
        ours = self._ours(state, power, orders, pool)
        limit = self.budget.iterations
        deadline = None if self.budget.seconds is None else started + self.budget.seconds
        done = improved = 0
        while (limit is None or done < limit) and (deadline is None or clock() < deadline):
            progress = (done / limit) if limit else (clock() - started) / (self.budget.seconds or 1.0)
            if others and progress < 0.75 and done % 2:
                p = others[(done // 2) % len(others)]
            else:
                p = power
            if self.snapshot_every and done and done % self.snapshot_every == 0 and others:
                pool.append({q: orders[q] for q in others})
                ours = self._ours(state, power, orders, pool)
            mutated = self._mutate(raw[p], options[p], values[p], rng, progress)
            done += 1
            if mutated == raw[p]:
                continue  # drew the same intentions again
            trial_orders = coordinate(board, options[p], mutated, rng)
            if p == power:
                trial_ours = self._ours(state, power, {**orders, power: trial_orders}, pool, ours)
                if trial_ours > ours:
                    raw[p], orders[p], ours = mutated, trial_orders, trial_ours
                    improved += 1
                continue
            trial = state.worth({**orders, p: trial_orders})
            if trial[p] > worth[p]:
                raw[p], orders[p], worth = mutated, trial_orders, trial
                ours = self._ours(state, power, orders, pool)
        broke = False
        if agreements and (free_options != options[power] or free_values is not values[power]):
            # the best set outside the agreements, against the others' final sets, judged
            # on our own values (an ally's centre is worth its plain value again)
            plain = _State(board, {**values, power: free_values}, self.scoring)
            mine = plain.worth(orders)[power]
            candidates = [_greedy(free_options, free_values)]
            candidates += [{o.province: _draw(o, free_values, rng, 0.0) for o in free_options}
                           for _ in range(self.samples)]
            for candidate in candidates:
                trial_orders = coordinate(board, free_options, candidate, rng)
                outside = plain.worth({**orders, power: trial_orders})[power]
                if outside >= mine + self.break_margin:
                    orders[power], mine, broke = trial_orders, outside, True
        worth = {**state.worth(orders)}
        report = SearchReport(done, improved, clock() - started, worth, broke)
        return orders[power], report

    @staticmethod
    def _ours(state: _State, power: str, orders: Mapping[str, list[Order]], pool: Sequence[Mapping[str, list[Order]]],
              beat: float | None = None) -> float:
        """Our worth with ``orders``, averaged over the others' current sets and the pool's.
        With ``beat``: a set already ``_HOPELESS`` below it against the current sets is not
        judged against the pool (most mutations are; the pool would not save them)."""
        total = state.worth(orders)[power]
        if beat is not None and total < beat - _HOPELESS:
            return total
        for profile in pool:
            total += state.worth({**profile, power: orders[power]})[power]
        return total / (1 + len(pool))

    def _mutate(self, raw: Mapping[str, Intent], options: Sequence[UnitOptions], values: ValueMap,
                rng: random.Random, progress: float) -> dict[str, Intent]:
        """``raw`` with a few units' intentions drawn anew: most units early, one at the end."""
        mutated = dict(raw)
        if not options:
            return mutated
        count = max(1, math.ceil(len(options) * 0.5 * (1.0 - min(progress, 1.0)) ** 2))
        for chosen in rng.sample(list(options), min(count, len(options))):
            mutated[chosen.province] = _draw(chosen, values, rng, self.uniform)
        return mutated


_HOPELESS = 1.0  # a centre's worth


class _State:
    """Adjudicates joint order sets on one board and scores them (the board never changes).

    Three caches, none of which changes a worth: the worth of each joint set (the same ones
    come back often); each power's set checked once (``api.check_orders``: a mutation
    changes one power's set, the others' are adjudicated unchanged many times); and the
    worth of each outcome (different sets often end in the same units standing and falling).
    """

    def __init__(self, board: Board, values: Mapping[str, ValueMap], scoring: Scoring) -> None:
        self.board = board
        self.scorer = Scorer(board, values, scoring)
        self.seen: dict[tuple[int, ...], dict[str, float]] = {}  # by the sets' numbers, in power order
        self.checked: dict[tuple[str, tuple[Order, ...]], tuple[int, ParsedOrders]] = {}  # a set's number and checked form
        # The same list objects come back (the others' current and pool sets): found by
        # identity before by content, for an order hashes slowly.  The list is kept in the
        # entry, so its id is not reused; the search never changes a list once made.
        self.by_list: dict[int, tuple[list[Order], int, ParsedOrders]] = {}
        self.scored: dict[tuple, dict[str, float]] = {}

    def worth(self, orders: Mapping[str, list[Order]]) -> dict[str, float]:
        sets = [self._checked(p, orders[p]) for p in sorted(orders)]
        key = tuple([number for number, _ in sets])
        found = self.seen.get(key)
        if found is None:
            outcome = api.adjudicate(self.board, {checked.power: checked for _, checked in sets})
            # a unit compares by its location alone: its kind and power spelled out
            after = (tuple([(u.location, u.kind._value_, u.power) for u in outcome.position.units]),
                     tuple([(d.unit.power, bool(d.retreats)) for d in outcome.dislodged]))
            found = self.scored.get(after)
            if found is None:
                found = self.scored[after] = self.scorer(outcome)
            self.seen[key] = found
        return found

    def _checked(self, power: str, orders: list[Order]) -> tuple[int, ParsedOrders]:
        known = self.by_list.get(id(orders))
        if known is not None and known[0] is orders:
            return known[1], known[2]
        key = (power, tuple(orders))
        found = self.checked.get(key)
        if found is None:
            found = self.checked[key] = (len(self.checked), api.check_orders(self.board, power, orders))
        self.by_list[id(orders)] = (orders, *found)
        return found


def _intent_value(option: UnitOptions, intent: Intent, values: ValueMap) -> float:
    """How good an intention looks on the value map alone: the value of where the unit goes
    (a support or hold: where it stands)."""
    unit = option.unit
    if intent[0] == "M":
        return values.relative(unit.kind, intent[1])
    if intent[0] == "V":
        return values.relative(unit.kind, intent[1])
    return values.relative(unit.kind, unit.location) * (0.9 if intent[0] != "H" else 1.0)


def _greedy(options: Sequence[UnitOptions], values: ValueMap) -> dict[str, Intent]:
    """Each unit's best-valued hold or move (ties: the first in the options' fixed order)."""
    found: dict[str, Intent] = {}
    for option in options:
        simple = [i for i in option.intents if i[0] in ("H", "M")]
        found[option.province] = max(simple, key=lambda i: _intent_value(option, i, values)) if simple else HOLD
    return found


def _draw(option: UnitOptions, values: ValueMap, rng: random.Random, uniform: float) -> Intent:
    """A new intention for one unit: uniformly with chance ``uniform``, else weighted by the
    square of its value (so the good places are tried most)."""
    intents = option.intents
    if rng.random() < uniform:
        return intents[rng.randrange(len(intents))]
    weights = [(_intent_value(option, i, values) + 0.02) ** 2 for i in intents]
    return rng.choices(intents, weights)[0]


__all__ = ["StrategicBot", "SearchReport", "DEFAULT_BUDGET"]
