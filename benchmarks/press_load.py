"""Seven negotiating bots at LVL 30 over DAIDE: is every phase still processed within 50 ms
of its last order while they talk?

    python -m benchmarks.press_load [--games N] [--first-game N] [--last-year Y] [--iterations N] [--json PATH]

The server: ``daide.server.GameServer`` over ``daide.local.LocalGame`` at press level 30, in
this process.  The players: seven ``judge bot`` clients (``judge.edge.daide_player.DaideBot``
with the strategic bot at ``--iterations`` evaluations, negotiating with
``judge.negotiation.negotiator``: its proposals (peace, alliances, DMZs), answers, orders made again when an
agreement changes them), in a child process of their own, so their thinking never shares
the server's interpreter.  Each game runs to the winter of ``--last-year`` (then the
server closes it) or a solo.

Timed on the server side: from the moment the host is handed the order that completes the
phase (the last ``SUB`` read; every bot's complete orders make it ready) to the moment the
phase is adjudicated and every connection has been handed the next ``NOW`` (``process``
returns).  Reported: the distribution of that latency over every processed phase (median,
95th percentile, worst, how many over 50 ms), the same span in the server thread's CPU time
(what the work costs, apart from waiting for a core on a loaded machine), and the press
relayed (``SND`` accepted and the ``FRM`` copies sent).  ``--first-game`` numbers the games
(their seeds), so a run can be split into parts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Sequence

import maps
from adjudicator.orders import Order
from bot.player import Budget
from bot.search import StrategicBot
from daide.local import LocalGame
from daide.server import GameServer

LEVEL = 30
LIMIT_MS = 50.0


@dataclass
class TimedGame(LocalGame):
    """A LocalGame that notes when each order arrives and when each phase is processed."""

    latencies_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)  # the same span in this thread's CPU time
    last_year: int = 1910
    _last_order: tuple[float, float] | None = None

    def submit(self, power: str, orders: Sequence[tuple[str, Order]]) -> None:
        self._last_order = (time.perf_counter(), time.thread_time())
        super().submit(power, orders)

    def set_ready(self, power: str, ready: bool) -> None:
        self._last_order = (time.perf_counter(), time.thread_time())
        super().set_ready(power, ready)

    def process(self) -> None:
        super().process()
        if self._last_order is not None:
            wall, cpu = self._last_order
            self.latencies_ms.append((time.perf_counter() - wall) * 1000)
            self.cpu_ms.append((time.thread_time() - cpu) * 1000)
            self._last_order = None


def _players(port: int, iterations: int, seed: int) -> None:
    """The child: seven judge bots on ``port`` until the server says OFF."""
    from judge.edge.daide_player import DaideBot

    async def everyone() -> None:
        bots = [DaideBot("127.0.0.1", port, StrategicBot(seed + i, Budget(iterations=iterations, seconds=None)),
                         name=f"talker{i}") for i in range(7)]
        await asyncio.gather(*(bot.run() for bot in bots), return_exceptions=True)  # closed by the server at the end

    asyncio.run(everyone())


async def one_game(iterations: int, last_year: int, seed: int) -> TimedGame:
    game = TimedGame(maps.load("standard"), level=LEVEL, choose=lambda free: free[0], last_year=last_year)
    server = GameServer(game)
    port = await server.start("127.0.0.1", 0)
    child = multiprocessing.get_context("spawn").Process(target=_players, args=(port, iterations, seed))
    child.start()
    try:
        while game.ended() is None and game.position().phase.year <= last_year and child.is_alive():
            await asyncio.sleep(0.05)
    finally:
        await server.close()
        await asyncio.get_running_loop().run_in_executor(None, child.join, 60)
        if child.is_alive():
            child.kill()
    return game


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Seven negotiating bots at LVL 30 over DAIDE: server-side phase "
                                                 "latency after the last order.")
    parser.add_argument("--games", type=int, default=3, help="games (default 3)")
    parser.add_argument("--first-game", type=int, default=1, help="number of the first game (default 1)")
    parser.add_argument("--last-year", type=int, default=1910, help="the server closes a game after this year (default 1910)")
    parser.add_argument("--iterations", type=int, default=100, help="the bots' search evaluations per movement phase (default 100)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    latencies: list[float] = []
    cpu: list[float] = []
    sent = relayed = phases = 0
    for index in range(args.first_game - 1, args.first_game - 1 + args.games):
        game = asyncio.run(one_game(args.iterations, args.last_year, index * 7 + 1))
        latencies.extend(game.latencies_ms)
        cpu.extend(game.cpu_ms)
        phases += len(game.latencies_ms)
        sent += len(game.press_log)
        relayed += sum(len(recipients) for _, _, recipients, _ in game.press_log)
        print(f"game {index + 1}: {len(game.latencies_ms)} phases to {game.position().phase}, "
              f"{len(game.press_log)} press messages, worst {max(game.latencies_ms, default=0):.1f} ms",
              file=sys.stderr, flush=True)
    report = {"games": args.games, "phases": phases, "press_sent": sent, "frm_relayed": relayed,
              "median_ms": round(statistics.median(latencies), 2) if latencies else None,
              "p95_ms": round(percentile(latencies, 0.95), 2) if latencies else None,
              "worst_ms": round(max(latencies), 2) if latencies else None,
              "over_50_ms": sum(v > LIMIT_MS for v in latencies),
              "cpu_median_ms": round(statistics.median(cpu), 2) if cpu else None,
              "cpu_worst_ms": round(max(cpu), 2) if cpu else None, "iterations": args.iterations,
              "last_year": args.last_year}
    print(json.dumps(report, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({**report, "latencies_ms": latencies, "cpu_ms": cpu}, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
