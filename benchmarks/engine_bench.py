"""Our engine against the peer, on the same phases, in one run.

    python -m benchmarks.engine_bench [--phases N] [--seed S] [--repeat R] [--schedule blocks|alternate] [--profile]

For every phase of the corpus (see ``benchmarks.positions``) each engine
parses, validates and adjudicates the same orders ``--repeat`` times; the
median per phase is kept, and phases per second are the number of phases over
the sum of those medians.  By default (``--schedule blocks``) the repetitions
run in rounds, each running every phase on our engine and then every phase on
the peer; ``--schedule alternate`` runs both engines in turn on each repetition
of each phase.  What is inside each timed region is documented in
``benchmarks.ours`` and ``benchmarks.peer`` (setup from the record is outside
for both).  The two final boards are compared and every disagreement printed.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import random
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from benchmarks import known, ours, peer
from benchmarks.outcome import Outcome
from benchmarks.positions import (
    DEFAULT_GAMES,
    DEFAULT_SEED,
    DEFAULT_YEARS,
    Record,
    default_corpus_path,
    describe,
    ensure_corpus,
)

KIND_NAMES = {"M": "movement", "R": "retreat", "A": "adjustment"}
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}


@dataclass(frozen=True)
class Disagreement:
    index: int  # line of the record in the corpus, from 0
    phase: str
    orders: dict[str, list[str]]
    differences: tuple[str, ...]
    our_results: tuple[tuple[str, str, str], ...]
    peer_results: dict[str, str]
    involved: frozenset[str]

    def render(self, full: bool = False, label: str = "") -> str:
        lines = [f"--- corpus line {self.index + 1}, {self.phase}" + (f"  [{label}]" if label else "")]
        lines += [f"  {line}" for line in self.differences]
        relevant = lambda text: full or any(p in text for p in self.involved)  # noqa: E731
        lines.append("  orders:")
        for power, orders in sorted(self.orders.items()):
            shown = [o for o in orders if relevant(o)]
            if shown:
                lines.append(f"    {power}: {'; '.join(shown)}")
        lines.append("  ours:")
        lines += [f"    {power} {order}: {result}" for power, order, result in self.our_results if relevant(order)]
        lines.append("  peer:")
        lines += [f"    {unit}: {result or 'ok'}" for unit, result in sorted(self.peer_results.items()) if relevant(unit)]
        return "\n".join(lines)


def _per_kind() -> dict[str, list[float]]:
    return {k: [] for k in KIND_NAMES}


@dataclass
class Timings:
    """Seconds per phase, by phase kind.  Each phase contributes the median (and the best) of its
    repetitions; ``*_setup``: building the engine's input from the record (median)."""

    ours: dict[str, list[float]] = field(default_factory=_per_kind)
    peer: dict[str, list[float]] = field(default_factory=_per_kind)
    ours_best: dict[str, list[float]] = field(default_factory=_per_kind)
    peer_best: dict[str, list[float]] = field(default_factory=_per_kind)
    ours_setup: dict[str, list[float]] = field(default_factory=_per_kind)
    peer_setup: dict[str, list[float]] = field(default_factory=_per_kind)

    def add(self, kind: str, ours: list[float], peer: list[float], ours_setup: list[float], peer_setup: list[float]) -> None:
        self.ours[kind].append(statistics.median(ours))
        self.peer[kind].append(statistics.median(peer))
        self.ours_best[kind].append(min(ours))
        self.peer_best[kind].append(min(peer))
        self.ours_setup[kind].append(statistics.median(ours_setup))
        self.peer_setup[kind].append(statistics.median(peer_setup))


def sample(records: Sequence[Record], phases: int | None, seed: int, kind: str | None = None) -> list[tuple[int, Record]]:
    """``phases`` records (of ``kind`` if given) chosen at random (seeded), kept in corpus order; all when None."""
    indexed = [(i, r) for i, r in enumerate(records) if kind is None or r["phase"].endswith(kind)]
    if phases is None or phases >= len(indexed):
        return indexed
    return sorted(random.Random(seed).sample(indexed, phases), key=lambda item: item[0])


@contextlib.contextmanager
def _no_collection(timing: bool) -> Iterator[None]:
    """The garbage collector off inside a timed region (as ``timeit`` does), so neither engine
    pays for a collection of the other's garbage; it is collected between phases instead."""
    if not timing:
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _run_peer(peer_phase: peer.PeerPhase, clock: Callable[[], float], timing: bool) -> tuple[float, float, Any]:
    """One repetition on the peer: (setup seconds, timed seconds, the processed game)."""
    start = clock()
    game = peer_phase.new_game()
    setup = clock() - start
    with _no_collection(timing):
        seconds = peer_phase.run(game, clock)
    return setup, seconds, game


def _run_ours(record: Record, variant: Any, clock: Callable[[], float], timing: bool) -> tuple[float, float, Any]:
    """One repetition on our engine: (setup seconds, timed seconds, the Adjudication)."""
    start = clock()
    our_phase = ours.OurPhase.from_record(record)
    setup = clock() - start
    with _no_collection(timing):
        seconds, adjudication = our_phase.run(variant, clock)
    return setup, seconds, adjudication


def _judge(
    index: int, record: Record, adjudication: Any, peer_outcome: Outcome, peer_results: dict[str, str], error: str | None
) -> Disagreement | None:
    """Compare our board with the peer's (or report our crash)."""
    if error is not None:
        return Disagreement(index, record["phase"], record["orders"], (f"ours raised:\n{error}",), (), peer_results, frozenset())
    our_outcome: Outcome = ours.outcome_of(adjudication, record["phase"])
    differences = our_outcome.differences(peer_outcome)
    if not differences:
        return None
    return Disagreement(
        index,
        record["phase"],
        record["orders"],
        tuple(differences),
        tuple(ours.results_of(adjudication)),
        peer_results,
        our_outcome.provinces_involved(peer_outcome),
    )


def compare_one(
    index: int, record: Record, variant: Any, repeat: int, timings: Timings | None, clock: Callable[[], float] = time.perf_counter
) -> Disagreement | None:
    """Schedule ``alternate``: run one phase through both engines, alternately (``repeat`` times
    each when timing), and compare the boards."""
    kind = record["phase"][-1]
    peer_phase = peer.PeerPhase.from_record(record)
    peer_times, our_times, peer_setup, our_setup = [], [], [], []
    game = adjudication = None
    error = None
    timing = timings is not None
    if timing:
        gc.collect()  # here, not just before a timed region: setup work follows before any timing
    for _ in range(repeat):
        setup, seconds, game = _run_peer(peer_phase, clock, timing)
        peer_setup.append(setup)
        peer_times.append(seconds)
        try:
            setup, seconds, adjudication = _run_ours(record, variant, clock, timing)
        except Exception:  # our engine is young: report the crash as a disagreement, keep going
            error = traceback.format_exc(limit=6)
            break
        our_setup.append(setup)
        our_times.append(seconds)
    if timings is not None and error is None:
        timings.add(kind, our_times, peer_times, our_setup, peer_setup)
    return _judge(index, record, adjudication, peer.outcome_of(game, record["phase"]), peer.results_of(game, record["phase"]), error)


def compare_blocks(
    records: Sequence[tuple[int, Record]],
    variant: Any,
    repeat: int,
    timings: Timings | None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[Disagreement]:
    """Schedule ``blocks``: ``repeat`` rounds, each running every phase on our engine, then every
    phase on the peer, so that neither engine's timed regions follow the other's (whose data
    would have evicted its own from the CPU caches).  Same timed regions as ``compare_one``;
    the boards compared are those of the last round."""
    timing = timings is not None
    peer_phases = [peer.PeerPhase.from_record(record) for _, record in records]
    our_times: list[list[float]] = [[] for _ in records]
    our_setup: list[list[float]] = [[] for _ in records]
    peer_times: list[list[float]] = [[] for _ in records]
    peer_setup: list[list[float]] = [[] for _ in records]
    errors: list[str | None] = [None] * len(records)
    adjudications: list[Any] = [None] * len(records)
    peer_final: list[tuple[Outcome, dict[str, str]] | None] = [None] * len(records)
    for round_number in range(repeat):
        last = round_number == repeat - 1
        if timing:
            # Once per block: a full collection walks the whole heap (about 0.1 s here) and would
            # leave the caches cold before each phase.  Inside the block the collector runs only
            # automatically, outside the timed regions (where it is off).
            gc.collect()
        for k, (_, record) in enumerate(records):
            if errors[k] is not None:
                continue
            try:
                setup, seconds, adjudication = _run_ours(record, variant, clock, timing)
            except Exception:  # reported as a disagreement; the phase is left out of the timings
                errors[k] = traceback.format_exc(limit=6)
                continue
            our_setup[k].append(setup)
            our_times[k].append(seconds)
            if last:
                adjudications[k] = adjudication
        if timing:
            gc.collect()
        for k, (_, record) in enumerate(records):
            setup, seconds, game = _run_peer(peer_phases[k], clock, timing)
            peer_setup[k].append(setup)
            peer_times[k].append(seconds)
            if last:  # a game is large: keep only what is compared
                peer_final[k] = (peer.outcome_of(game, record["phase"]), peer.results_of(game, record["phase"]))
    found = []
    for k, (index, record) in enumerate(records):
        if timings is not None and errors[k] is None:
            timings.add(record["phase"][-1], our_times[k], peer_times[k], our_setup[k], peer_setup[k])
        final = peer_final[k]
        assert final is not None
        disagreement = _judge(index, record, adjudications[k], final[0], final[1], errors[k])
        if disagreement is not None:
            found.append(disagreement)
    return found


SCHEDULES = ("blocks", "alternate")


def compare(
    records: Sequence[tuple[int, Record]],
    repeat: int = 1,
    timings: Timings | None = None,
    clock: Callable[[], float] = time.perf_counter,
    schedule: str = "blocks",
) -> list[Disagreement]:
    """Run ``records`` through both engines (timed into ``timings`` if given); the disagreements,
    in corpus order.  ``schedule``: ``blocks`` (see ``compare_blocks``) or ``alternate``
    (``compare_one``: both engines in turn on each repetition of each phase)."""
    if schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {schedule!r}: expected one of {', '.join(SCHEDULES)}")
    variant = ours.load_variant()
    if schedule == "blocks":
        return compare_blocks(records, variant, max(repeat, 1), timings, clock)
    found = []
    for index, record in records:
        disagreement = compare_one(index, record, variant, repeat, timings, clock)
        if disagreement is not None:
            found.append(disagreement)
    return found


def time_peer_only(records: Sequence[tuple[int, Record]], repeat: int, clock: Callable[[], float]) -> Timings:
    timings = Timings()
    for _, record in records:
        peer_phase = peer.PeerPhase.from_record(record)
        times = []
        gc.collect()
        for _ in range(repeat):
            game = peer_phase.new_game()
            with _no_collection(True):
                times.append(peer_phase.run(game, clock))
        timings.peer[record["phase"][-1]].append(statistics.median(times))
        timings.peer_best[record["phase"][-1]].append(min(times))
    return timings


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, Python {platform.python_version()} ({platform.python_implementation()})"


def load_average() -> str:
    """The 1-minute load: timings on a shared machine mean little without it."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "unknown"


def _rate(count: int, seconds: float) -> str:
    return f"{count / seconds:9.0f}/s" if seconds else "        -"


def report(timings: Timings, with_ours: bool, setup: bool = False, best: bool = False) -> str:
    """One row per phase kind; with ``setup``, the times include building each engine's input;
    with ``best``, each phase counts its fastest repetition instead of the median."""
    lines = [f"{'phases':<12}{'n':>5}  {'ours ms/phase':>14}{'ours rate':>12}  {'peer ms/phase':>14}{'peer rate':>12}  {'ratio':>7}"]
    groups = [(KIND_NAMES[k], [k]) for k in KIND_NAMES] + [("all", list(KIND_NAMES))]
    for name, kinds in groups:
        peer_times = [t for k in kinds for t in (timings.peer_best if best else timings.peer)[k]]
        our_times = [t for k in kinds for t in (timings.ours_best if best else timings.ours)[k]]
        if setup:
            peer_times = [t + u for k in kinds for t, u in zip(timings.peer[k], timings.peer_setup[k])]
            our_times = [t + u for k in kinds for t, u in zip(timings.ours[k], timings.ours_setup[k])]
        if not peer_times:
            continue
        peer_total = sum(peer_times)
        row = f"{name:<12}{len(peer_times):>5}  "
        if with_ours and our_times:
            our_total = sum(our_times)
            row += f"{1000 * our_total / len(our_times):>14.3f}{_rate(len(our_times), our_total):>12}  "
        else:
            row += f"{'-':>14}{'-':>12}  "
        row += f"{1000 * peer_total / len(peer_times):>14.3f}{_rate(len(peer_times), peer_total):>12}  "
        if with_ours and our_times:
            row += f"{(len(our_times) / sum(our_times)) / (len(peer_times) / peer_total):>6.1f}x"
        lines.append(row)
    return "\n".join(lines)


def profile_ours(records: Sequence[tuple[int, Record]], top: int = 30) -> str:
    variant = ours.load_variant()
    prepared = [ours.OurPhase.from_record(record) for _, record in records]
    profiler = cProfile.Profile()
    profiler.enable()
    for phase in prepared:
        phase.run(variant)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time our engine against the peer on the same phases.")
    parser.add_argument("--phases", type=int, default=None, help="phases drawn (seeded) from the corpus; default all")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="corpus seed (and sampling seed)")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES)
    parser.add_argument("--years", type=int, default=DEFAULT_YEARS)
    parser.add_argument("--repeat", type=int, default=5, help="repetitions per phase and engine; the median is kept")
    parser.add_argument("--kind", choices=["M", "R", "A"], default=None, help="only phases of this kind")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall: time.perf_counter (default); cpu: time.thread_time, CPU time of this thread, "
        "which a busy shared machine inflates far less",
    )
    parser.add_argument(
        "--schedule",
        choices=SCHEDULES,
        default="blocks",
        help="blocks (default): each round runs all phases on ours, then all on the peer; alternate: both engines "
        "in turn on every repetition of every phase, so each engine's timed region follows the other's work",
    )
    parser.add_argument("--full", action="store_true", help="print all orders and results of a disagreement")
    parser.add_argument("--json", type=Path, default=None, help="also write the disagreements as JSON to this file")
    parser.add_argument("--profile", action="store_true", help="also profile our engine (cProfile) on the phases")
    args = parser.parse_args(argv)

    records = ensure_corpus(args.seed, args.games, args.years)
    chosen = sample(records, args.phases, args.seed, args.kind)
    print(f"machine: {machine()}; load average at start {load_average()}")
    print(f"corpus: seed {args.seed}, {args.games} games x {args.years} years; timed: {describe([r for _, r in chosen])}")
    print(f"repetitions per phase: {args.repeat} (median kept); clock: {args.clock}; schedule: {args.schedule}")

    unavailable = ours.engine_available()
    if unavailable:
        print(f"{unavailable}: timing the peer only")
        print(report(time_peer_only(chosen, args.repeat, CLOCKS[args.clock]), with_ours=False))
        return 0

    timings = Timings()
    disagreements = compare(chosen, args.repeat, timings, CLOCKS[args.clock], args.schedule)
    print("parse + validate + adjudicate (the figure of issue 2), median of the repetitions:")
    print(report(timings, with_ours=True))
    print("the same, fastest repetition (less sensitive to a busy machine):")
    print(report(timings, with_ours=True, best=True))
    print("the same plus setup from the record (ours: position_from_json; peer: Game() + set_state):")
    print(report(timings, with_ours=True, setup=True))
    corpus_name = default_corpus_path(args.seed, args.games, args.years).name
    verdicts = [known.verdict_for(corpus_name, d.index + 1) for d in disagreements]
    new = sum(v is None for v in verdicts)
    print(f"disagreements: {len(disagreements)} of {len(chosen)} phases ({len(disagreements) - new} known, {new} new)")
    for disagreement, verdict in zip(disagreements, verdicts):
        label = "NEW: not investigated yet" if verdict is None else f"known {verdict.key} ({verdict.wrong}): {verdict.summary}"
        print(disagreement.render(full=args.full, label=label))
    print(f"load average at end {load_average()}")
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {"line": d.index + 1, "phase": d.phase, "orders": d.orders, "differences": list(d.differences),
                     "ours": d.our_results, "peer": d.peer_results}
                    for d in disagreements
                ],
                indent=1,
            )
        )
    if args.profile:
        print(profile_ours(chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
