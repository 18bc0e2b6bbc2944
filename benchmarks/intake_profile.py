"""Where the worker's time goes: the benchmark's mails processed in this process, profiled.

    python -m benchmarks.intake_profile /tmp/dipjudge-intake-bench/intake-10000.db --mails 400
    python -m benchmarks.intake_profile /tmp/dipjudge-intake-bench/intake-10000.db --mails 400 --interleave
    python -m benchmarks.intake_profile /tmp/dipjudge-intake-bench/intake-10000.db --mails 400 --batch 8
    python -m benchmarks.intake_profile /tmp/dipjudge-intake-bench/intake-10000.db --mails 400 --dump /tmp/worker.prof

Works on a copy of the database.  The mails are stored first (not timed), then the worker
processes them under cProfile; the warm-up round (one mail per seat) runs before, untimed,
unless ``--cold``; ``--interleave`` stores each mail just before the worker takes it, over
another store's connections, as the daemon's intake does.  The worker thread's CPU time is
printed with the wall time: on a shared, busy machine it is the steadier figure.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sqlite3
import tempfile
import time
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from benchmarks.intake_mail import BenchMail, mail_stream, one_per_seat
from benchmarks.intake_population import JUDGE_ADDRESS, Population


def _store_all(store, mails: Sequence[BenchMail]) -> None:
    from judge.store.inbound import store_inbound

    now = datetime.now(timezone.utc)
    for mail in mails:
        store_inbound(store, mail.raw, mail_from=mail.sender, rcpt_to=[JUDGE_ADDRESS], source="smtp", now=now)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", type=Path)
    parser.add_argument("--mails", type=int, default=400)
    parser.add_argument("--cold", action="store_true", help="no warm-up round")
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--sort", default="cumulative", help="pstats sort key (cumulative, tottime)")
    parser.add_argument("--no-profile", action="store_true", help="time only")
    parser.add_argument("--dump", type=Path, help="also write the profile here (pstats format)")
    parser.add_argument("--interleave", action="store_true",
                        help="store each mail just before processing it (over another connection, as "
                             "the daemon's intake does) instead of all of them first")
    parser.add_argument("--batch", type=int, default=1,
                        help="mails per transaction, as the daemon's worker on SQLite takes them (default 1)")
    args = parser.parse_args(argv)
    population = Population.from_json(args.database, json.loads(Path(f"{args.database}.population.json").read_text()))

    from judge.config import JudgeSettings
    from judge.commands import process_mail
    from judge.store.engine import Store
    from judge.daemon.worker import Worker

    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "judge.db"
        with closing(sqlite3.connect(args.database)) as source, closing(sqlite3.connect(copy)) as target:
            source.backup(target)
        judge = JudgeSettings(address=JUDGE_ADDRESS, domain="bench.example", data_dir=scratch)
        store = Store(f"sqlite:///{copy}")
        intake = Store(f"sqlite:///{copy}")  # its own connections, as the daemon's intake threads
        worker = Worker(store, judge, process_mail)
        if not args.cold:
            _store_all(store, one_per_seat(population.seats, 7, "warm"))
            worker.process_pending()
        stream = mail_stream(population.seats, 1, "profile")
        mails = [next(stream) for _ in range(args.mails)]
        if not args.interleave:
            _store_all(store, mails)
        profile = cProfile.Profile(time.thread_time)  # CPU time: on a loaded machine wall time is mostly waiting
        cpu = elapsed = 0.0
        done = 0
        for batch in ([[mail] for mail in mails] if args.interleave else [[]]):
            _store_all(intake, batch)
            cpu_started = time.thread_time()
            started = time.perf_counter()
            if not args.no_profile:
                profile.enable()
            if args.batch > 1:
                while handled := worker.process_batch(args.batch):
                    done += handled
            else:
                done += worker.process_pending()
            profile.disable()
            elapsed += time.perf_counter() - started
            cpu += time.thread_time() - cpu_started
        intake.dispose()
        store.dispose()
    print(f"{done} mails in {elapsed:.2f} s: {done / elapsed:.1f} mails/s, {elapsed / done * 1000:.2f} ms each; "
          f"worker thread CPU {cpu / done * 1000:.2f} ms each" + ("" if args.no_profile else " (under cProfile)"))
    if not args.no_profile:
        pstats.Stats(profile).sort_stats(args.sort).print_stats(args.top)
        if args.dump:
            profile.dump_stats(args.dump)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
