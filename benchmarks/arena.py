"""The arena: a candidate player against a field of opponents, in process, through our adjudicator.

    python -m benchmarks.arena [--seeds N] [--first-seed S] [--seconds T] [--iterations I]
                               [--last-year Y] [--opponents random,dumbbot] [--candidate strategic|dumbbot]
                               [--baseline] [--map NAME] [--json PATH]

For every seed of a fixed list (``--first-seed`` .. ``--first-seed + --seeds - 1``) and every
power of the map, the candidate takes that power and the opponents (all of one kind, seeded
by the same seed) take the others; a game ends at a solo or after the winter of
``--last-year``.  Reported per field: games, the candidate's solos with a 95 % Wilson interval,
its mean centres at the end, how often it survived, and its mean seconds per game.
``--baseline`` plays the same games with a DumbBot in the candidate's seat, so that the
candidate's figures stand beside DumbBot's own in the same seats.

The strategic bot's search budget per movement phase is the bot's own by default
(``bot.player.DEFAULT_EVALUATIONS`` candidate evaluations, capped at ``SAFETY_SECONDS``),
or ``--iterations`` evaluations (alone: no time limit) and/or ``--seconds`` of wall time;
docs/benchmarks.md says which budget each recorded run used.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import maps
from adjudicator.types import Variant
from bot.dumbbot import DumbBot
from bot.game import play
from bot.budget_options import add_budget_options, budget_from, budget_text
from bot.player import Player
from bot.randombot import RandomBot
from bot.search import StrategicBot

OPPONENTS: dict[str, Callable[[int], Player]] = {"random": RandomBot, "dumbbot": DumbBot}


@dataclass(frozen=True)
class FieldResult:
    """The candidate's figures against one field of opponents."""

    candidate: str
    opponents: str
    games: int
    solos: int
    solo_low: float
    solo_high: float
    mean_centres: float
    survival: float
    opponent_solos: int
    mean_seconds: float  # candidate's time per game
    illegal_orders: int


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % for the default ``z``)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    margin = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - margin), min(1.0, centre + margin)


def run_field(variant: Variant, make_candidate: Callable[[int], Player], opponents: str, seeds: Sequence[int],
              last_year: int, progress: Callable[[str], None] | None = None) -> FieldResult:
    """Every seed x every seat: the candidate in the seat, ``opponents`` in the others."""
    powers = [p.name for p in variant.powers]
    centres: list[int] = []
    solos = survived = other_solos = illegal = 0
    seconds: list[float] = []
    name = ""
    for seed in seeds:
        for seat in powers:
            players = {p: OPPONENTS[opponents](seed) for p in powers}
            candidate = make_candidate(seed)
            name = candidate.name
            players[seat] = candidate
            record = play(variant, players, last_year)
            centres.append(record.centres(seat))
            solos += record.winner == seat
            other_solos += record.winner is not None and record.winner != seat
            survived += record.survived(seat)
            seconds.append(record.seconds[seat])
            illegal += record.illegal_orders
            if progress is not None:
                progress(f"{name} vs {opponents} seed {seed} {seat}: {record.centres(seat)} centres, "
                         f"winner {record.winner or '-'} at {record.position.phase}, {record.seconds[seat]:.1f} s")
    games = len(centres)
    low, high = wilson(solos, games)
    return FieldResult(name, opponents, games, solos, low, high, statistics.fmean(centres) if centres else 0.0,
                       survived / games if games else 0.0, other_solos,
                       statistics.fmean(seconds) if seconds else 0.0, illegal)


def table(results: Sequence[FieldResult]) -> str:
    """The results as a Markdown table."""
    lines = ["| candidate | opponents | games | solos | solo rate (95 % Wilson) | mean centres | survival | opponents' solos | s/game |",
             "|---|---|---:|---:|---|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r.candidate} | 6 x {r.opponents} | {r.games} | {r.solos} | "
                     f"{r.solos / r.games:.0%} ({r.solo_low:.0%}-{r.solo_high:.0%}) | {r.mean_centres:.2f} | "
                     f"{r.survival:.0%} | {r.opponent_solos} | {r.mean_seconds:.1f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A candidate bot against RandomBots and DumbBots, rotating through every seat.")
    parser.add_argument("--seeds", type=int, default=10, help="number of seeds; games = seeds x powers per field (default 10)")
    parser.add_argument("--first-seed", type=int, default=1, help="first seed of the fixed list (default 1)")
    add_budget_options(parser)
    parser.add_argument("--last-year", type=int, default=1910, help="play to a solo or the winter of this year (default 1910)")
    parser.add_argument("--opponents", default="random,dumbbot", help="comma-separated fields: random, dumbbot (default both)")
    parser.add_argument("--candidate", choices=("strategic", "dumbbot"), default="strategic", help="the player rotated through the seats")
    parser.add_argument("--baseline", action="store_true", help="also play the same games with a DumbBot in the candidate's seat")
    parser.add_argument("--map", default="standard", help="map name (default standard)")
    parser.add_argument("--json", help="also write the results to this file as JSON")
    parser.add_argument("--quiet", action="store_true", help="no line per game on stderr")
    args = parser.parse_args(argv)
    fields = [f.strip() for f in args.opponents.split(",") if f.strip()]
    unknown = [f for f in fields if f not in OPPONENTS]
    if unknown or not fields:
        parser.error(f"--opponents {args.opponents!r}: expected a comma-separated list of {', '.join(OPPONENTS)}")
    if args.seeds < 1:
        parser.error(f"--seeds {args.seeds}: expected 1 or more")
    budget = budget_from(parser, args)
    variant = maps.load(args.map)
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    candidates: list[Callable[[int], Player]] = [
        (lambda seed: StrategicBot(seed, budget)) if args.candidate == "strategic" else DumbBot]
    if args.baseline and args.candidate != "dumbbot":
        candidates.append(DumbBot)
    progress = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    started = time.perf_counter()
    results = [run_field(variant, make, opponents, seeds, args.last_year, progress)
               for opponents in fields for make in candidates]
    print(f"map {args.map}, seeds {seeds[0]}-{seeds[-1]}, to a solo or W{args.last_year}, "
          f"search budget {budget_text(budget)}, {time.perf_counter() - started:.0f} s in all")
    print(table(results))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump([asdict(r) for r in results], handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
