"""Does talking gain centres?  Two strategic bots among five DumbBots, in process, the same
games played in each mode: ``talking`` (judge.negotiation.negotiator at press level 30: peace,
alliances and DMZs proposed), ``peace`` (the same negotiator proposing peace only; it still
answers every offer) and ``silent``.

    python -m benchmarks.negotiation_arena [--games N] [--first N] [--iterations N] [--last-year Y]
                                           [--modes talking,peace,silent] [--json PATH]
    python -m benchmarks.negotiation_arena --combine PART.json PART.json ...

``--first`` and ``--combine`` split a long run into parts run side by side (each part's
``--json``) and report them as one.

Game ``i`` seats the two bots in the ``i``-th pair of ``PAIRS`` (neighbours, so that they
meet; the pairs rotate) with seed ``i``; the five DumbBots (``bot.dumbbot``, seeded the same)
ignore press, as the classic binary does.  Each movement phase, before anyone orders, the
talking bots propose (the negotiator's policy) and answer one another until nothing is left
to say; their orders then keep what they agreed (``StrategicBot.orders(...,
agreements)``) unless breaking it clearly pays.  Reported per mode: games, the two bots'
mean centres at the end (together), their solos, the DumbBots' solos, the messages
exchanged; and the paired differences between the modes with a 95 % interval.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from typing import Mapping, Sequence

import maps
from adjudicator import api
from adjudicator.types import Variant
from bot.dumbbot import DumbBot
from bot.player import Budget, Player
from bot.search import StrategicBot
from daide.tokens import TokenTable
from judge.negotiation.negotiator import OFFERS, Negotiator

PAIRS: tuple[tuple[str, str], ...] = (
    ("ENGLAND", "FRANCE"), ("AUSTRIA", "ITALY"), ("RUSSIA", "TURKEY"), ("FRANCE", "GERMANY"),
    ("AUSTRIA", "RUSSIA"), ("ITALY", "TURKEY"), ("ENGLAND", "GERMANY"),
)
LEVEL = 30
MODES: Mapping[str, frozenset[str] | None] = {"talking": OFFERS, "peace": frozenset({"PCE"}), "silent": None}


def exchange(negotiators: Mapping[str, Negotiator], board: api.Board) -> int:
    """One movement phase's talk: proposals, then answers delivered until none is left;
    press to powers that do not talk is dropped (a DumbBot reads none).  Messages sent."""
    queue = [(power, out) for power in sorted(negotiators) for out in negotiators[power].proposals(board)]
    sent = 0
    while queue:
        sender, (recipients, press) = queue.pop(0)
        sent += 1
        for power in recipients:
            if power in negotiators:
                queue.extend((power, answer) for answer in negotiators[power].heard(sender, recipients, press, board))
    return sent


def one_game(variant: Variant, pair: tuple[str, str], seed: int, budget: Budget, last_year: int,
             mode: str) -> dict[str, object]:
    table = TokenTable.for_variant(variant)
    strategic = StrategicBot(seed, budget)
    players: dict[str, Player] = {p.name: DumbBot(seed) for p in variant.powers}
    offers = MODES[mode]
    negotiators = {power: Negotiator(power, table, LEVEL, proposing=offers) for power in pair} \
        if offers is not None else {}
    position = api.initial_position(variant)
    winner, messages = None, 0
    while position.phase.year <= last_year and winner is None:
        board = api.prepare(variant, position)
        if negotiators and position.phase.kind.name == "MOVEMENT":
            messages += exchange(negotiators, board)
        orders = {}
        for power in api.requirements(board):
            if power in pair:
                agreements = negotiators[power].agreements() if power in negotiators else None
                given = strategic.orders(board, power, agreements) if agreements is not None \
                    else strategic.orders(board, power)
            else:
                given = players[power].orders(board, power)
            orders[power] = api.parse_orders(board, power, [order.canonical() for order in given])
        outcome = api.adjudicate(board, orders)
        position, winner = outcome.position, outcome.winner
    centres = {p: len(position.centers.get(p, ())) for p in pair}
    first = negotiators.get(pair[0])
    agreed = {"peace": sorted(first.peace), "allies": sorted(first.allies), "enemies": sorted(first.enemies),
              "dmz": sorted(first.dmz)} if first is not None else {}
    return {"pair": list(pair), "seed": seed, "mode": mode, "talking": offers is not None, "centres": centres,
            "winner": winner, "messages": messages, "ended": str(position.phase), "first_agreed": agreed}


def interval(differences: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95 % normal interval of paired differences."""
    mean = statistics.fmean(differences)
    if len(differences) < 2:
        return mean, mean, mean
    half = 1.96 * statistics.stdev(differences) / math.sqrt(len(differences))
    return mean, mean - half, mean + half


def summary(games: Sequence[dict]) -> dict[str, float | int]:
    if not games:
        return {"games": 0}
    both = [sum(g["centres"].values()) for g in games]
    return {"games": len(games), "mean_centres_of_the_two": statistics.fmean(both),
            "solos_by_the_two": sum(g["winner"] in g["pair"] for g in games),
            "solos_by_dumbbots": sum(g["winner"] is not None and g["winner"] not in g["pair"] for g in games),
            "mean_messages": statistics.fmean(g["messages"] for g in games)}


def report_of(played: Mapping[str, Sequence[dict]], iterations: int, last_year: int,
              seconds: float) -> dict[str, object]:
    """Each mode's figures and the paired differences between modes (games matched by seed)."""
    report: dict[str, object] = {mode: summary(games) for mode, games in played.items()}
    modes = [m for m in MODES if played.get(m)]
    for index, one in enumerate(modes):
        for other in modes[index + 1:]:
            by_seed = {g["seed"]: g for g in played[other]}
            differences = [sum(g["centres"].values()) - sum(by_seed[g["seed"]]["centres"].values())
                           for g in played[one] if g["seed"] in by_seed]
            mean, low, high = interval(differences) if differences else (0.0, 0.0, 0.0)
            report[f"difference_{one}_minus_{other}"] = {"games": len(differences), "mean": mean, "low95": low,
                                                         "high95": high}
    return {**report, "iterations": iterations, "last_year": last_year, "seconds": seconds}


def mode_of(game: dict) -> str:
    """A game's mode (a part written before the modes: talking or silent)."""
    return str(game.get("mode") or ("talking" if game["talking"] else "silent"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Two negotiating bots among five DumbBots against the same "
                                                 "seats with two silent bots.")
    parser.add_argument("--games", type=int, default=70, help="games per mode (default 70)")
    parser.add_argument("--iterations", type=int, default=300,
                        help="search evaluations per movement phase (deterministic; default 300)")
    parser.add_argument("--last-year", type=int, default=1908, help="play to a solo or this year's winter (default 1908)")
    parser.add_argument("--first", type=int, default=1, help="number of the first game (default 1)")
    parser.add_argument("--modes", default="talking,silent",
                        help="comma-separated modes to play each game in: talking, peace, silent "
                             "(default talking,silent)")
    parser.add_argument("--json", help="also write every game to this file as JSON")
    parser.add_argument("--combine", nargs="+", metavar="PART", help="report the games of these --json files as one run")
    args = parser.parse_args(argv)
    if args.combine:
        parts = [json.load(open(path, encoding="utf-8")) for path in args.combine]
        unique = {(g["seed"], mode_of(g)): g for part in reversed(parts) for g in part["games"]}  # parts may overlap
        by_mode: dict[str, list[dict]] = {}
        for (_, mode), game in sorted(unique.items()):
            by_mode.setdefault(mode, []).append(game)
        everywhere = set.intersection(*({g["seed"] for g in games} for games in by_mode.values()))
        matched = {mode: [g for g in games if g["seed"] in everywhere] for mode, games in by_mode.items()}
        print(json.dumps(report_of(matched, parts[0]["iterations"], parts[0]["last_year"],
                                   sum(part["seconds"] for part in parts)), indent=2))
        return 0
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if args.games < 1 or args.iterations < 1:
        parser.error("--games and --iterations: expected 1 or more")
    if not modes or any(m not in MODES for m in modes):
        parser.error(f"--modes: expected some of {', '.join(MODES)}, got {args.modes!r}")
    variant = maps.load("standard")
    budget = Budget(iterations=args.iterations, seconds=None)
    started = time.perf_counter()
    played: dict[str, list[dict]] = {mode: [] for mode in modes}
    for index in range(args.first - 1, args.first - 1 + args.games):
        pair = PAIRS[index % len(PAIRS)]
        for mode in modes:  # side by side: the same load on every mode
            game = one_game(variant, pair, index + 1, budget, args.last_year, mode)
            played[mode].append(game)
            print(f"game {index + 1} {'/'.join(pair)} {mode}: {game['centres']} "
                  f"winner {game['winner'] or '-'}, {game['messages']} messages", file=sys.stderr, flush=True)
            if args.json:  # after every game: a part stopped early keeps what it played
                write(args.json, report_of(played, args.iterations, args.last_year,
                                           round(time.perf_counter() - started, 1)), played)
    report = report_of(played, args.iterations, args.last_year, round(time.perf_counter() - started, 1))
    print(json.dumps(report, indent=2))
    if args.json:
        write(args.json, report, played)
    return 0


def write(path: str, report: dict[str, object], played: Mapping[str, list[dict]]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        json.dump({**report, "games": [g for games in played.values() for g in games]}, out, indent=1)


if __name__ == "__main__":
    raise SystemExit(main())
