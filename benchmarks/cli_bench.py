"""``judge adjudicate --batch`` end to end against the peer, on the same phases, in one run.

    python -m benchmarks.cli_bench [--phases 300] [--seed 1] [--rounds 5] [--spelling canonical|lower|names]
                                   [--tree LABEL=PATH ...] [--output-dir DIR] [--clock wall|cpu]

The phases are ``--phases`` movement phases drawn at random (``--seed``) from every corpus
in ``benchmarks/data`` (each line a document of shared/contracts/adjudicate.md).  Each
source tree (this one, and any ``--tree``) runs the real command, ``python -m judge.cli
adjudicate --batch``, as a child process fed through a pipe.  Process start, imports and
loading the map are outside the timed region: each child first answers the whole batch
once, untimed (those answers are the ones compared between trees and written to
``--output-dir``).  A timed round then writes every line to the child's standard input
from a thread and reads the answers from its standard output: the clock runs from the
first line written to the last answer read (JSON in to JSON out).  With ``--clock cpu``
the child's CPU time over the round is taken instead (``/proc/PID/schedstat``, in
nanoseconds): on a machine shared with other jobs, wall time counts their time too.

The peer (``diplomacy`` 1.1.2) runs in this process on the same phases: ``Game()`` +
``set_state`` untimed, ``set_orders`` for each power + ``process`` timed (wall clock, or
this thread's CPU time with ``--clock cpu``), as in
``benchmarks.engine_bench`` (garbage collector off inside each phase's region, which
favours the peer).  Rounds alternate: every tree, then the peer, ``--rounds`` times;
the median round per engine is reported and the ratio of the medians.

``--spelling`` rewrites the order lines before either engine sees them: ``lower`` writes
them in lower case (``a par - bur``, ``a lon - nwy via convoy``), ``names`` with full
province names and words (``army paris to burgundy``); the peer gets the canonical lines.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Sequence

from benchmarks import peer
from benchmarks.positions import DATA_DIR, Record

HERE = Path(__file__).resolve().parent.parent


def movement_phases(count: int, seed: int) -> list[Record]:
    """``count`` movement phases drawn at random (seeded) from every corpus in benchmarks/data."""
    records: list[Record] = []
    for path in sorted(DATA_DIR.glob("corpus-*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            records.extend(r for r in map(json.loads, lines) if r["phase"].endswith("M"))
    if count > len(records):
        raise SystemExit(f"only {len(records)} movement phases in {DATA_DIR}; add a corpus (python -m benchmarks.positions --seed N)")
    return random.Random(seed).sample(records, count)


# -- spellings -------------------------------------------------------------------------------

_WORDS = {"-": "to", "S": "supports", "C": "convoys", "H": "holds", "A": "army", "F": "fleet"}


def _province_names() -> dict[str, str]:
    """Province abbreviation -> full name, from the standard map (for ``--spelling names``)."""
    import maps

    variant = maps.load("standard")
    return {abbrev: province.name.lower() for abbrev, province in variant.provinces.items()}


def respell(line: str, spelling: str, names: dict[str, str]) -> str:
    if spelling == "canonical":
        return line
    if spelling == "lower":
        return line.lower()
    words = []
    for word in line.split():
        province, slash, coast = word.partition("/")
        if province in names:
            words.append(names[province] + (f" ({coast.lower()})" if slash else ""))
        else:
            words.append(_WORDS.get(word, word.lower()))
    return " ".join(words)


def batch_text(records: Sequence[Record], spelling: str) -> bytes:
    names = _province_names() if spelling == "names" else {}
    lines = []
    for record in records:
        document = dict(record)
        document["orders"] = {p: [respell(o, spelling, names) for o in lines_] for p, lines_ in record["orders"].items()}
        lines.append(json.dumps(document, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode("utf-8")


# -- our command, in a child process ---------------------------------------------------------


class Child:
    """``judge adjudicate --batch`` from one source tree, kept running between rounds."""

    def __init__(self, label: str, tree: Path) -> None:
        self.label = label
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "judge.cli", "adjudicate", "--batch"],
            cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
        )
        assert self.process.stdout is not None and self.process.stdin is not None
        self.reader: IO[bytes] = os.fdopen(self.process.stdout.fileno(), "rb", buffering=1 << 16, closefd=False)

    def cpu_seconds(self) -> float:
        """CPU time the child has run so far (Linux: schedstat's first field, nanoseconds)."""
        with open(f"/proc/{self.process.pid}/schedstat", encoding="ascii") as stat:
            return int(stat.read().split()[0]) / 1e9

    def answer(self, text: bytes, count: int, clock: str = "wall") -> tuple[float, bytes]:
        """Feed ``text`` (``count`` lines); (seconds from first byte written to last answer
        read, or the child's CPU seconds meanwhile; the answers)."""
        stdin = self.process.stdin
        assert stdin is not None
        writer = threading.Thread(target=stdin.write, args=(text,))
        readline = self.reader.readline
        answers = []
        cpu = self.cpu_seconds() if clock == "cpu" else 0.0
        start = time.perf_counter()
        writer.start()
        for _ in range(count):
            answers.append(readline())
        seconds = time.perf_counter() - start
        if clock == "cpu":
            seconds = self.cpu_seconds() - cpu
        writer.join()
        return seconds, b"".join(answers)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


# -- the peer, in this process ---------------------------------------------------------------


def peer_round(phases: Sequence[peer.PeerPhase], clock: str = "wall") -> float:
    """Seconds of set_orders + process over every phase (Game() + set_state untimed)."""
    timer = time.thread_time if clock == "cpu" else time.perf_counter
    total = 0.0
    for phase in phases:
        game = phase.new_game()
        gc.disable()
        try:
            total += phase.run(game, timer)
        finally:
            gc.enable()
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--spelling", choices=("canonical", "lower", "names"), default="canonical")
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=PATH",
                        help="another source tree to run side by side (e.g. before=/tmp/engine-before)")
    parser.add_argument("--output-dir", type=Path, help="write each tree's answers there (LABEL.jsonl)")
    parser.add_argument("--no-peer", action="store_true", help="time our trees only")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall: first line written to last answer read; cpu: the child's CPU time (and the peer's)")
    args = parser.parse_args(argv)

    records = movement_phases(args.phases, args.seed)
    text = batch_text(records, args.spelling)
    trees = [("this", HERE)] + [(label, Path(path).resolve()) for label, _, path in (t.partition("=") for t in args.tree)]
    children = [Child(label, tree) for label, tree in trees]
    peer_phases = [] if args.no_peer else [peer.PeerPhase.from_record(r) for r in records]
    times: dict[str, list[float]] = {label: [] for label, _ in trees}
    times["peer"] = []
    try:
        answers = {}
        for child in children:  # untimed: imports, the map, the first answers
            _, answers[child.label] = child.answer(text, len(records))
            if args.output_dir:
                args.output_dir.mkdir(parents=True, exist_ok=True)
                (args.output_dir / f"{child.label}.jsonl").write_bytes(answers[child.label])
        if peer_phases:
            peer_round(peer_phases[:10])  # warm the peer's imports and caches
        for _ in range(args.rounds):
            for child in children:
                seconds, again = child.answer(text, len(records), args.clock)
                if again != answers[child.label]:
                    raise SystemExit(f"{child.label}: a timed round answered differently from the first")
                times[child.label].append(seconds)
            if peer_phases:
                times["peer"].append(peer_round(peer_phases, args.clock))
    finally:
        for child in children:
            child.close()

    n = len(records)
    print(f"judge adjudicate --batch, {n} movement phases (seed {args.seed}, spelling {args.spelling}), "
          f"{args.rounds} rounds, median round, {args.clock} clock; CPython {sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}")
    peer_ms = statistics.median(times["peer"]) * 1000 / n if times["peer"] else None
    for label, _ in trees + ([("peer", None)] if peer_ms else []):
        rounds = times[label]
        ms = statistics.median(rounds) * 1000 / n
        line = f"  {label:10} {ms:7.3f} ms/phase  {1000 / ms:8.0f} phases/s  rounds {', '.join(f'{r * 1000 / n:.3f}' for r in rounds)}"
        if label != "peer":
            digest = hashlib.sha256(answers[label]).hexdigest()[:16]
            line += f"  answers sha256 {digest}"
            if peer_ms:
                line += f"  ratio {peer_ms / ms:5.1f}x"
        print(line)
    if len({answers[label] for label, _ in trees}) > 1:
        print("ANSWERS DIFFER between trees")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
