"""Evaluations per second of the strategic bot's search, at a fixed iteration count.

    nice -n 10 python -m benchmarks.search_speed                          # this tree
    nice -n 10 python -m benchmarks.search_speed --code /work/main --code .   # before and after
    python -m benchmarks.search_speed --profile                           # cProfile of this tree
    python -m benchmarks.search_speed --years 1903-1908 --every 1 --phases 20 --seconds 4
                                      # how many evaluations 4 CPU seconds buy in midgame phases

For each code tree (``--code``: a checkout whose ``bot`` and ``adjudicator`` packages are run,
in a child process, in turn, in one run), the same movement phases of the shipped corpus
(``benchmarks/data/corpus-s1-g12-y10.jsonl``, every ``--every``-th movement phase) are
searched by ``StrategicBot`` with ``--iterations`` iterations for one power each (the powers
in turn), and the CPU time of the searches is measured (``time.process_time``: the machine
is shared, wall time would measure the neighbours).  The figure is iterations per CPU
second; the orders chosen are printed as a digest, so that trees computing the same answers
show the same digest.  ``--years A-B`` takes only the phases of those years (the midgame:
1903-1908), spread evenly.  ``--seconds S`` searches each phase for S seconds of CPU time
instead of a count (what a quiet machine's S seconds of wall time buy, measured on a
shared one) and reports the evaluations each phase got: how the bot's default count of
evaluations (``bot.player.DEFAULT_EVALUATIONS``) was chosen.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = REPO_ROOT / "benchmarks" / "data" / "corpus-s1-g12-y10.jsonl"


def movement_documents(every: int, limit: int, corpus: Path = CORPUS,
                       years: tuple[int, int] | None = None) -> Iterator[dict[str, Any]]:
    """Every ``every``-th movement phase of ``corpus`` (at most ``limit``; with ``years``,
    only those of the years ``first..last``), as contract documents."""
    taken = seen = 0
    for line in corpus.read_text().splitlines():
        document = json.loads(line)
        if not document["phase"].endswith("M"):
            continue
        if years is not None and not years[0] <= int(document["phase"][1:5]) <= years[1]:
            continue
        seen += 1
        if (seen - 1) % every:
            continue
        yield document
        taken += 1
        if taken >= limit:
            return


def run_here(every: int, limit: int, iterations: int, profile: bool, years: tuple[int, int] | None = None,
             seconds: float | None = None) -> dict[str, Any]:
    """Search the chosen phases in this process (``iterations`` each, or with ``seconds``
    that many CPU seconds each); the figures as a dict."""
    import maps
    from adjudicator import api
    from adjudicator.jsonio import position_from_json
    from bot.player import Budget
    from bot.search import StrategicBot

    variant = maps.load("standard")
    jobs = []
    for number, document in enumerate(movement_documents(every, limit, years=years)):
        board = api.prepare(variant, position_from_json(variant, document))
        powers = sorted({u.power for u in board.position.units})
        jobs.append((board, powers[number % len(powers)], number))
    budget = Budget(iterations=None, seconds=seconds) if seconds else Budget(iterations=iterations, seconds=None)
    digest = hashlib.sha256()
    profiler = None
    if profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
    started = time.process_time()
    done = 0
    bought: list[int] = []
    for board, power, number in jobs:
        chosen, report = StrategicBot(number, budget, clock=time.process_time).search(board, power)
        done += report.iterations
        bought.append(report.iterations)
        digest.update(repr(sorted(o.canonical() for o in chosen)).encode())
    cpu = time.process_time() - started
    if profiler is not None:
        import pstats
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    figures = {"phases": len(jobs), "iterations": done, "cpu_seconds": round(cpu, 2),
               "iterations_per_cpu_second": round(done / cpu, 1), "orders_digest": digest.hexdigest()[:16]}
    if seconds:  # what the time bought (the digest then depends on the machine)
        figures |= {"evaluations_per_phase": bought, "median": statistics.median(bought),
                    "mean": round(statistics.fmean(bought)), "min": min(bought), "max": max(bought)}
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code", action="append", default=[], help="a code tree to measure (repeatable; default: this one)")
    parser.add_argument("--every", type=int, default=12, help="take every N-th movement phase of the corpus")
    parser.add_argument("--phases", type=int, default=20, help="at most this many phases")
    parser.add_argument("--iterations", type=int, default=200, help="search iterations per phase")
    parser.add_argument("--years", type=_years, help="only the phases of these years, e.g. 1903-1908")
    parser.add_argument("--seconds", type=float, help="search each phase this many CPU seconds instead of --iterations")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of this tree's searches")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child or args.profile or not args.code:
        print(json.dumps(run_here(args.every, args.phases, args.iterations, args.profile, args.years, args.seconds)))
        return
    for code in args.code:
        tree = Path(code).resolve()
        environment = {**os.environ, "PYTHONPATH": str(tree)}  # its bot and adjudicator, this script
        command = [sys.executable, str(Path(__file__).resolve()), "--child", "--every", str(args.every),
                   "--phases", str(args.phases), "--iterations", str(args.iterations)]
        command += ["--years", "-".join(map(str, args.years))] if args.years else []
        command += ["--seconds", str(args.seconds)] if args.seconds else []
        finished = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
        figures = json.loads(finished.stdout.strip().splitlines()[-1])
        print(json.dumps({"code": str(tree), **figures}))


def _years(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    try:
        return int(first), int(last or first)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected years such as 1903-1908") from None


if __name__ == "__main__":
    main()
