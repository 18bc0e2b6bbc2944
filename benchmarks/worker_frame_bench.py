"""The worker's own cost per mail, around a processing hook that does next to nothing.

    python -m benchmarks.worker_frame_bench
    cd /tmp && PYTHONPATH=/path/to/other-tree python /path/to/benchmarks/worker_frame_bench.py  # side by side

Stores ``--mails`` small mails in a fresh SQLite file (not timed), then times
``Worker.process_pending`` with the test suite's echo hook: what is left is the worker's
frame (counting the start, claiming, parsing, queueing the reply, marking processed,
committing).  Prints wall and worker-thread CPU milliseconds per mail, best of
``--repeat`` runs; on a shared machine the CPU figure is the steadier one.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence


def one_run(mails: int) -> tuple[float, float]:
    """(wall ms, CPU ms) per mail of one run on a fresh database."""
    from judge.config import JudgeSettings
    from judge.store.inbound import store_inbound
    from judge.daemon.worker import Worker
    from tests.judge.handlers import echo
    from tests.judge.storage import make_mail, migrated_store

    now = datetime(2026, 11, 25, 12, 0, tzinfo=timezone.utc)
    with tempfile.TemporaryDirectory() as directory:
        store = migrated_store(Path(directory))
        try:
            for index in range(mails + 1):
                store_inbound(store, make_mail(subject=f"m{index}"), mail_from="a@example.net", rcpt_to=[],
                              source="smtp", now=now)
            worker = Worker(store, JudgeSettings(), echo, clock=lambda: now)
            worker.process_next()  # warm-up: imports, statement caches
            wall, cpu = time.perf_counter(), time.thread_time()
            done = worker.process_pending()
            wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        finally:
            store.dispose()
    assert done == mails
    return wall * 1000 / mails, cpu * 1000 / mails


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mails", type=int, default=600, help="mails per run (default 600)")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is printed (default 3)")
    args = parser.parse_args(argv)
    logging.disable(logging.CRITICAL)
    runs = [one_run(args.mails) for _ in range(args.repeat)]
    print(f"worker frame, {args.mails} mails, best of {args.repeat}: "
          f"wall {min(w for w, _ in runs):.2f} ms/mail, CPU {min(c for _, c in runs):.2f} ms/mail")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
