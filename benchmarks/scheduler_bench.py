"""The scheduler pass at scale: how long one pass takes over many games, few of them due.

    python -m benchmarks.scheduler_bench                       # 10,000 games, 100 due; idle curve
    python -m benchmarks.scheduler_bench --games 10000 --due 100 --idle 1000,10000,50000
    python -m benchmarks.scheduler_bench --url postgresql+psycopg://judge:judge@127.0.0.1:5432/bench

Every game is an active Spring 1901 game with seven players and a master.  The due games
have every order in and DELAY 0, so the pass processes each of them completely:
claim (guarded version bump), adjudication, PhaseRecord, the next deadline, the results
mail rendered and queued for eight recipients, the next due time.  Idle games have a due
time in the future.  The idle curve times a pass when nothing is due over growing numbers of
idle games: the per-game cost is the slope.  Each figure is the best of ``--repeat`` runs
(idle) or one run on a fresh copy of the database (due; a pass changes what is due).
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import shutil
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Sequence

from sqlalchemy import insert

from benchmarks.openings import SPRING_1901
from adjudicator.api import initial_position
from adjudicator.jsonio import position_to_json

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
FAKE_HASH = "scrypt$16384$8$1$00$00"


def populate(url: str, games: int, due: int, *, batch: int = 2000) -> None:
    """``games`` active games (the first ``due`` of them ready to process) in a new database."""
    from judge.store.queries import variant_named
    from judge.store.engine import Store
    from judge.lifecycle import ACTIVE
    from judge.store.models_game import MASTER, PLAYER, Game, Membership, OrderSet
    from judge.store.schema import upgrade

    store = Store(url)
    upgrade(store.engine)
    variant = variant_named("standard")
    position = position_to_json(initial_position(variant))
    powers = [p.name for p in variant.powers]
    with store.engine.begin() as connection:
        for start in range(0, games, batch):
            rows = []
            for number in range(start, min(games, start + batch)):
                is_due = number < due
                rows.append(dict(
                    id=number + 1, name=f"g{number}", master_password_hash=FAKE_HASH, map_name="standard",
                    rules=[], timing={}, zone="UTC", private=False, description="", status=ACTIVE,
                    position=position, phase="S1901M", deadline=NOW + timedelta(days=3), delay=0,
                    next_due_at=NOW if is_due else NOW + timedelta(hours=44 + number % 48),
                    created_at=NOW, version=1,
                ))
            connection.execute(insert(Game), rows)
            members = []
            orders = []
            for number in range(start, min(games, start + batch)):
                game_id = number + 1
                members.append(dict(game_id=game_id, role=MASTER, address=f"gm@g{number}.test",
                                    password_hash=FAKE_HASH, status="active", wait=False, absences=[],
                                    grace_used=0, joined_at=NOW))
                for index, power in enumerate(powers):
                    members.append(dict(game_id=game_id, role=PLAYER, power=power,
                                        address=f"p{index}@g{number}.test", password_hash=FAKE_HASH,
                                        status="active", wait=False, absences=[], grace_used=0, joined_at=NOW))
                    if number < due:
                        orders.append(dict(game_id=game_id, phase="S1901M", power=power, orders=SPRING_1901[power],
                                           submitted_at=NOW))
            connection.execute(insert(Membership), members)
            if orders:
                connection.execute(insert(OrderSet), orders)
    store.dispose()


SETTINGS: list = []  # the Settings passes use (set in main: with or without a judge key)


def timed_pass(url: str, cpu: list[float] | None = None) -> tuple[float, dict[str, int]]:
    """Wall seconds of one pass (and its CPU seconds appended to ``cpu``: this process only,
    SQLite runs in it; a loaded machine inflates the wall time, not the CPU time)."""
    from judge.config import Settings
    from judge.store.engine import Store
    from judge.edge.scheduler import run_pass

    store = Store(url)
    try:
        started, cpu_started = time.perf_counter(), time.process_time()
        report = run_pass(store, SETTINGS[0] if SETTINGS else Settings(), NOW)
        seconds = time.perf_counter() - started
        if cpu is not None:
            cpu.append(time.process_time() - cpu_started)
    finally:
        store.dispose()
    return seconds, {name: len(ids) for name, ids in report.outcomes.items()}


def sqlite_url(directory: Path, name: str) -> str:
    return f"sqlite:///{directory / name}"


def machine() -> str:
    cpus = os.cpu_count()
    return f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}, {cpus} CPUs"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games in the database for the due pass")
    parser.add_argument("--due", type=int, default=100, help="how many of them are due (and processed)")
    parser.add_argument("--idle", default="1000,10000,50000", help="idle-curve sizes, comma-separated ('' to skip)")
    parser.add_argument("--repeat", type=int, default=5, help="idle passes per size (best is kept)")
    parser.add_argument("--url", default="", help="a database URL to use instead of SQLite files (emptied first: "
                                                  "give a fresh database)")
    parser.add_argument("--signed", action="store_true",
                        help="give the judge a key, so every broadcast is PGP/MIME signed (one gpg run each)")
    args = parser.parse_args(argv)
    logging.disable(logging.INFO)  # the pass logs every processed game
    # Warm the imports and the map outside every timed region.
    from judge.store.queries import variant_named
    import judge.phases.turn_actions  # noqa: F401

    variant_named("standard")
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="schedbench") as scratch:
        directory = Path(scratch)
        from judge.config import JudgeSettings, Settings

        judge_settings = JudgeSettings(data_dir=str(directory / "data"), gnupg_home=str(directory / "gpg"))
        if args.signed:
            from judge.publish.signing import ensure_judge_key

            print(f"judge key {ensure_judge_key(judge_settings)}: broadcasts are signed")
        SETTINGS[:] = [Settings(judge=judge_settings)]
        if args.games:
            url = args.url or sqlite_url(directory, "due.db")
            started = time.perf_counter()
            populate(url, args.games, args.due)
            setup = time.perf_counter() - started
            cpu: list[float] = []
            seconds, outcomes = timed_pass(url, cpu)
            print(f"due pass: {args.games} games, {args.due} due -> {seconds:.3f} s wall, {cpu[0]:.3f} s CPU "
                  f"({outcomes}; {cpu[0] / max(args.due, 1) * 1000:.1f} ms CPU per processed game; "
                  f"setup {setup:.1f} s; load average {os.getloadavg()[0]:.1f})")
            again, outcomes = timed_pass(url)
            print(f"next pass over the same games (nothing due): {again * 1000:.1f} ms ({outcomes or 'nothing due'})")
        sizes = [int(s) for s in args.idle.split(",") if s.strip()] if args.idle else []
        if sizes and args.url:
            print("idle curve: SQLite only (give no --url)")
            sizes = []
        curve = []
        for size in sizes:
            path = directory / f"idle-{size}.db"
            populate(sqlite_url(directory, path.name), size, 0)
            cpu_runs: list[float] = []
            best = min(timed_pass(sqlite_url(directory, path.name), cpu_runs)[0] for _ in range(args.repeat))
            curve.append((size, best, min(cpu_runs)))
            print(f"idle pass: {size:>6} games, 0 due -> {best * 1000:.2f} ms wall, {min(cpu_runs) * 1000:.2f} ms CPU "
                  f"({best / size * 1e6:.3f} us per idle game)")
            path.unlink()
            shutil.rmtree(directory / f"{path.name}-wal", ignore_errors=True)
        if len(curve) >= 2:
            (n0, t0, c0), (n1, t1, c1) = curve[0], curve[-1]
            print(f"idle slope {n0}->{n1}: {(t1 - t0) / (n1 - n0) * 1e6:.3f} us wall, "
                  f"{(c1 - c0) / (n1 - n0) * 1e6:.3f} us CPU per extra idle game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
