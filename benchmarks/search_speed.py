"""Evaluations per second of the strategic bot's search, at a fixed iteration count.

    nice -n 10 python -m benchmarks.search_speed                          # this tree
    nice -n 10 python -m benchmarks.search_speed --code /work/main --code .   # before and after
    python -m benchmarks.search_speed --profile                           # cProfile of this tree

For each code tree (``--code``: a checkout whose ``bot`` and ``adjudicator`` packages are run,
in a child process, in turn, in one run), the same movement phases of the shipped corpus
(``benchmarks/data/corpus-s1-g12-y10.jsonl``, every ``--every``-th movement phase) are
searched by ``StrategicBot`` with ``--iterations`` iterations for one power each (the powers
in turn), and the CPU time of the searches is measured (``time.process_time``: the machine
is shared, wall time would measure the neighbours).  The figure is iterations per CPU
second; the orders chosen are printed as a digest, so that trees computing the same answers
show the same digest.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = REPO_ROOT / "benchmarks" / "data" / "corpus-s1-g12-y10.jsonl"


def movement_documents(every: int, limit: int, corpus: Path = CORPUS) -> Iterator[dict[str, Any]]:
    """Every ``every``-th movement phase of ``corpus`` (at most ``limit``), as contract documents."""
    taken = seen = 0
    for line in corpus.read_text().splitlines():
        document = json.loads(line)
        if not document["phase"].endswith("M"):
            continue
        seen += 1
        if (seen - 1) % every:
            continue
        yield document
        taken += 1
        if taken >= limit:
            return


def run_here(every: int, limit: int, iterations: int, profile: bool) -> dict[str, Any]:
    """Search the chosen phases in this process; the figures as a dict."""
    import maps
    from adjudicator import api
    from adjudicator.jsonio import position_from_json
    from bot.player import Budget
    from bot.search import StrategicBot

    variant = maps.load("standard")
    jobs = []
    for number, document in enumerate(movement_documents(every, limit)):
        board = api.prepare(variant, position_from_json(variant, document))
        powers = sorted({u.power for u in board.position.units})
        jobs.append((board, powers[number % len(powers)], number))
    bot = StrategicBot(budget=Budget(iterations=iterations, seconds=None))
    digest = hashlib.sha256()
    profiler = None
    if profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
    started = time.process_time()
    done = 0
    for board, power, number in jobs:
        chosen, report = StrategicBot(number, bot.budget).search(board, power)
        done += report.iterations
        digest.update(repr(sorted(o.canonical() for o in chosen)).encode())
    cpu = time.process_time() - started
    if profiler is not None:
        import pstats
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    return {"phases": len(jobs), "iterations": done, "cpu_seconds": round(cpu, 2),
            "iterations_per_cpu_second": round(done / cpu, 1), "orders_digest": digest.hexdigest()[:16]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code", action="append", default=[], help="a code tree to measure (repeatable; default: this one)")
    parser.add_argument("--every", type=int, default=12, help="take every N-th movement phase of the corpus")
    parser.add_argument("--phases", type=int, default=20, help="at most this many phases")
    parser.add_argument("--iterations", type=int, default=200, help="search iterations per phase")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of this tree's searches")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child or args.profile or not args.code:
        print(json.dumps(run_here(args.every, args.phases, args.iterations, args.profile)))
        return
    for code in args.code:
        tree = Path(code).resolve()
        environment = {**os.environ, "PYTHONPATH": str(tree)}  # its bot and adjudicator, this script
        command = [sys.executable, str(Path(__file__).resolve()), "--child", "--every", str(args.every),
                   "--phases", str(args.phases), "--iterations", str(args.iterations)]
        finished = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
        figures = json.loads(finished.stdout.strip().splitlines()[-1])
        print(json.dumps({"code": str(tree), **figures}))


if __name__ == "__main__":
    main()
