"""Our strategic bot against the real DumbBot, over DAIDE.

    python -m benchmarks.daide_arena [--games N] [--first-game G] [--seconds T] [--iterations I] [--last-year Y]
                                     [--also-year Y0 ...] [--dumbbots-only | --reverse] [--binary PATH]
                                     [--run NAME] [--csv PATH]

Each game runs our DAIDE server in process (``daide.server.GameServer`` over a
``daide.local.LocalGame``), our bot as a DAIDE client (``judge bot``'s
``judge.edge.daide_player.DaideBot``) in a seat that rotates through the seven powers, and
six real DumbBots (the AiClient binaries of ../shared/peers/daide-client/bin, test fixtures
of the development machine: skipped, saying so, when absent) in the others; the game is
stopped after Winter ``--last-year`` (or at a solo) and the centres are counted, and also
after the Winter of each earlier ``--also-year`` (one long game gives both horizons).  Phases
have deadlines (20 s movement, 4 s retreats and builds: a DumbBot may leave a build
unordered, and the deadline then processes the phase as a judge would).
``--dumbbots-only`` plays seven DumbBots instead: DumbBot's own figures in the same seats;
``--reverse`` six of our bots and one DumbBot, whose figures are reported.
``--binary`` plays another DumbBot build (e.g. ``bin/dumbbot-2019-port``, whose sign error
leaves a third of the board neutral: only to reproduce old figures); ``--csv`` appends every
game's centres to a file (run, game, seat, the seven powers).
The search budget per movement phase is the bot's own by default
(``bot.player.DEFAULT_EVALUATIONS`` evaluations, capped at ``SAFETY_SECONDS`` of wall time),
or ``--iterations`` evaluations (alone: no time limit) and/or ``--seconds``; the summary
says how many movement searches the wall-time cap cut short (a cut search depends on the
load).  docs/benchmarks.md says which budget each recorded run used.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import maps
from adjudicator import api
from adjudicator.orders import Order
from benchmarks.arena import wilson
from bot.agreements import NO_AGREEMENTS, Agreements
from bot.budget_options import add_budget_options, budget_from, budget_text
from bot.player import Budget
from bot.search import SearchReport, StrategicBot
from daide.local import LocalGame
from daide.render import Timing
from daide.server import GameServer
from judge.edge.daide_player import DaideBot

VARIANT = maps.load("standard")
POWERS = [p.name for p in VARIANT.powers]
# A DumbBot may leave a build unordered (no WVE): the deadline processes the phase, as a judge's would.
DEADLINES = Timing(movement=20, retreat=4, build=4)
STALL_SECONDS = 60.0


@dataclass(frozen=True)
class CountedBot(StrategicBot):
    """The strategic bot, keeping each movement search's report (how many evaluations it ran
    and for how long: a search the wall-time cap cut short depends on the machine's load)."""

    reports: list[SearchReport] = field(default_factory=list, compare=False)

    def search(self, board: api.Board, power: str,
               agreements: Agreements = NO_AGREEMENTS) -> tuple[list[Order], SearchReport]:
        found = super().search(board, power, agreements)
        self.reports.append(found[1])
        return found


def searches_text(budget: Budget, reports: Sequence[SearchReport]) -> str:
    """``"80 searches, median 30000 evaluations in 5.1 s, 3 cut short by the 15 s cap"``."""
    if not reports:
        return "no searches"
    cut = sum(budget.iterations is not None and r.iterations < budget.iterations for r in reports)
    return (f"{len(reports)} searches, median {statistics.median(r.iterations for r in reports):.0f} evaluations in "
            f"{statistics.median(r.seconds for r in reports):.1f} s, {cut} cut short by the wall-time cap")


def dumbbot_path(name: str = "dumbbot") -> Path | None:
    """The classic DumbBot of ../shared/peers (or another build of that folder by ``name``)."""
    for folder in Path(__file__).resolve().parents:
        candidate = folder / "shared" / "peers" / "daide-client" / "bin" / name
        if candidate.is_file():
            return candidate
    return None


async def one_game(ours: frozenset[str], budget: Budget, seed: int, last_year: int, binary: Path,
                   checkpoints: Sequence[int] = (), reports: list[SearchReport] | None = None) -> dict[int, dict[str, int]]:
    """Centres of every power after Winter ``last_year`` and after the Winter of each earlier
    year of ``checkpoints`` (a game that ended sooner, at a solo or a stall: as it ended),
    by year; our bots in the seats ``ours``, DumbBots in the others.  Our bots' search
    reports are added to ``reports``."""
    def choose(free: list[str]) -> str:
        return next((p for p in free if p in ours), free[0])

    game = LocalGame(VARIANT, deadlines=DEADLINES, choose=choose)
    server = GameServer(game)
    port = await server.start("127.0.0.1", 0)
    processes: list[subprocess.Popen] = []
    folders: list[tempfile.TemporaryDirectory] = []
    clients: list[asyncio.Task] = []
    try:
        for power in sorted(ours):  # seated before any DumbBot connects: ``choose`` gives them ``ours``
            player = CountedBot(seed, budget, reports=reports if reports is not None else [])
            clients.append(asyncio.create_task(DaideBot("127.0.0.1", port, player, retries=0).run()))
            while not any(c.power == power for c in server.connections):
                await asyncio.sleep(0.02)
        for _ in range(7 - len(ours)):
            folder = tempfile.TemporaryDirectory(prefix="dumbbot-")
            folders.append(folder)
            processes.append(subprocess.Popen([str(binary), "-i127.0.0.1", f"-p{port}"], cwd=folder.name,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        def centres() -> dict[str, int]:
            return {p: len(game.position().centers.get(p, ())) for p in POWERS}

        found: dict[int, dict[str, int]] = {}
        waiting = sorted(y for y in set(checkpoints) if y < last_year)
        phase, since = game.position().phase, time.monotonic()
        while game.ended() is None and game.position().phase.year <= last_year:
            await asyncio.sleep(0.05)
            while waiting and game.position().phase.year > waiting[0]:  # that winter is over
                found[waiting.pop(0)] = centres()
            if game.position().phase != phase:
                phase, since = game.position().phase, time.monotonic()
            elif time.monotonic() - since > STALL_SECONDS:
                print(f"stalled in {phase}: nobody's orders for {STALL_SECONDS} s; the game is counted as it stands",
                      file=sys.stderr, flush=True)
                break
        final = centres()
        return {**{year: final for year in waiting}, **found, last_year: final}
    finally:
        await server.close()
        for client in clients:
            await asyncio.wait_for(client, 30)
        for process in processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        for folder in folders:
            folder.cleanup()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Our bot against six real DumbBots over DAIDE.")
    parser.add_argument("--games", type=int, default=14, help="games; the seat rotates through the powers (default 14)")
    parser.add_argument("--first-game", type=int, default=1, help="number of the first game (its seed; default 1)")
    add_budget_options(parser)
    parser.add_argument("--last-year", type=int, default=1910, help="stop after the winter of this year (default 1910)")
    parser.add_argument("--dumbbots-only", action="store_true", help="seven DumbBots: DumbBot's own figures")
    parser.add_argument("--reverse", action="store_true", help="six of our bots and one DumbBot in the rotating seat")
    parser.add_argument("--binary", default="dumbbot",
                        help="the DumbBot build of ../shared/peers/daide-client/bin to play (default dumbbot, the "
                             "classic one; dumbbot-2019-port only to reproduce old figures)")
    parser.add_argument("--also-year", type=int, action="append", default=[],
                        help="also count the centres after the winter of this earlier year (repeatable): "
                             "a long game's figures at the usual horizon too")
    parser.add_argument("--run", help="the run's name in --csv (default: the field's, e.g. strategic_vs_6_dumbbots)")
    parser.add_argument("--csv", help="append every game's centres to this file (run, game, seat, the seven powers; "
                                      "a horizon other than W1910 is named after the run, e.g. @W1915)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games {args.games}: expected 1 or more")
    budget = budget_from(parser, args)
    binary = dumbbot_path(args.binary)
    if binary is None:
        print(f"skipped: the DumbBot binary (../shared/peers/daide-client/bin/{args.binary}) is not on this machine")
        return 0
    started = time.perf_counter()
    years = sorted({y for y in args.also_year if y < args.last_year} | {args.last_year})
    games: dict[int, list[tuple[int, str, dict[str, int]]]] = {year: [] for year in years}
    run = args.run or ("dumbbots_only" if args.dumbbots_only else "reverse" if args.reverse else "strategic_vs_6_dumbbots")
    reports: list[SearchReport] = []
    for number in range(args.first_game - 1, args.first_game - 1 + args.games):
        seat = POWERS[number % 7]
        ours = (frozenset() if args.dumbbots_only else
                frozenset(POWERS) - {seat} if args.reverse else frozenset({seat}))
        game_reports: list[SearchReport] = []
        results = asyncio.run(one_game(ours, budget, number + 1, args.last_year, binary, years, game_reports))
        reports += game_reports
        if ours:
            print(f"game {number + 1}: {searches_text(budget, game_reports)}", file=sys.stderr, flush=True)
        for year in years:
            result = results[year]
            games[year].append((number + 1, seat, result))
            print(f"game {number + 1} {seat} W{year}: {result[seat]} centres ({result})", file=sys.stderr, flush=True)
            if args.csv:
                horizon = "" if year == 1910 else f"@W{year}"
                with open(args.csv, "a", newline="", encoding="utf-8") as handle:
                    csv.writer(handle).writerow([f"{run}:{args.binary}{horizon}", number + 1, seat, *(result[p] for p in POWERS)])
    who = ("DumbBot (7 DumbBots)" if args.dumbbots_only else
           f"DumbBot vs 6 StrategicBots ({budget_text(budget)})" if args.reverse else
           f"StrategicBot ({budget_text(budget)}) vs 6 DumbBots")
    print(f"{who}, {binary.name}: {args.games} games to a solo or W{args.last_year}, {time.perf_counter() - started:.0f} s")
    if not args.dumbbots_only:
        print(f"our bots' movement phases: {searches_text(budget, reports)}")
    for year in years:
        print(summary(f"{who}, W{year}", games[year]))
    return 0


def summary(who: str, games: Sequence[tuple[int, str, Mapping[str, int]]]) -> str:
    """The watched seat's figures as two Markdown table rows: games, solos with a 95 % Wilson
    interval, mean centres, the others' mean, survival; then its mean centres by seat."""
    watched = [result[seat] for _, seat, result in games]
    solos = sum(c >= VARIANT.victory_centers for c in watched)
    others = [statistics.fmean(result[p] for p in POWERS if p != seat) for _, seat, result in games]
    low, high = wilson(solos, len(watched))
    by_seat = {p: [result[seat] for _, seat, result in games if seat == p] for p in POWERS}
    seats = " | ".join(f"{statistics.fmean(c):.1f}" if c else "-" for c in by_seat.values())
    return (f"| {who} | {len(watched)} | {solos} | {solos / len(watched):.0%} ({low:.0%}-{high:.0%}) | "
            f"{statistics.fmean(watched):.2f} | {statistics.fmean(others):.2f} | "
            f"{sum(c > 0 for c in watched) / len(watched):.0%} |\n"
            f"| {who}, by seat ({' '.join(p[:3] for p in POWERS)}) | {seats} |")


if __name__ == "__main__":
    sys.exit(main())
