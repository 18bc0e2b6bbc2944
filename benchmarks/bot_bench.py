"""Ordinary mail while the judge's bot thinks: SMTP into a real ``judge serve``.

    python -m benchmarks.bot_bench                                # this tree, 50 bot games
    python -m benchmarks.bot_bench --code /work/main --code .     # before and after, side by side

For each code tree (``--code``: a checkout whose ``judge`` package the daemon runs; the
benchmark's own code comes from this tree), in turn, on the same machine and in one run:

1. ``judge serve`` on a fresh SQLite file (its defaults but for the ports and folders; the
   scheduler's tick set out of the way, so only mail drives the games);
2. set-up over SMTP: ``--games`` games, each created by its master and filled with the
   judge's bot (``SEAT BOT`` seven times, which starts it): every seat is the bot's;
3. the load, for ``--seconds``: the masters' ``PROCESS`` mails, ``--per-mail`` games a mail
   (as the issue's master did), spread evenly over the window, while strangers send
   ``LIST game`` at ``--rate`` mails a second on a fixed schedule;
4. the figures: for the LIST mails, the time from the 250 after DATA to the reply row
   committed (benchmarks/intake_bench.py's observer: a read-only connection polling the
   outbox every ``--poll-ms``); the phases processed and the bot's jobs finished in the
   window; the CPU time of the daemon and of its children (bot processes).

A reply not committed ``--drain-seconds`` after the window counts as unanswered (its
latency is not known, only that it is longer), and the daemon is then stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from benchmarks.intake_bench import (
    Daemon,
    ReplyObserver,
    Sent,
    _children,
    _cpu_seconds_of,
    machine,
    percentile,
    run_senders,
    send_at_rate,
)
from benchmarks.intake_mail import BenchMail
from benchmarks.intake_population import JUDGE_ADDRESS

REPO_ROOT = Path(__file__).resolve().parents[1]


def _mail(sender: str, lines: Sequence[str], message_id: str) -> BenchMail:
    body = "\r\n".join(lines) + "\r\n"
    headers = (f"From: <{sender}>\r\nTo: {JUDGE_ADDRESS}\r\nSubject: bot bench\r\nMessage-ID: <{message_id}>\r\n"
               "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n")
    return BenchMail(sender, (headers + "\r\n" + body).encode("utf-8"), "list", len(lines))


def _master(game: int) -> str:
    return f"gm{game}@bench.example"


def set_up(port: int, observer: ReplyObserver, games: int, run: str) -> float:
    """Create and fill the games (two mails each, answered before the next is sent); seconds."""
    started = time.monotonic()
    for step, lines_of in enumerate((
        lambda g: [f"CREATE b{g} pw{g}", "TIMING MOVE 2D", "FORM"],
        lambda g: [f"SIGNON master@b{g} pw{g}", *["SEAT BOT"] * 7],
    )):
        mails = [_mail(_master(g), lines_of(g), f"{run}.setup{step}.{g}@bench.example") for g in range(games)]
        work: queue.SimpleQueue[tuple[float | None, BenchMail] | None] = queue.SimpleQueue()
        for mail in mails:
            work.put((None, mail))
        sent = run_senders([port], work, 2, "setup")
        observer.wait_for((s.inbound_id for s in sent), timeout=1800)
    return time.monotonic() - started


def _process_mails(games: int, per_mail: int, run: str) -> list[BenchMail]:
    mails = []
    for first in range(0, games, per_mail):
        group = range(first, min(games, first + per_mail))
        lines = [line for g in group for line in (f"SIGNON master@b{g} pw{g}", "PROCESS")]
        mails.append(_mail(_master(first), lines, f"{run}.process.{first}@bench.example"))
    return mails


def _list_mails(games: int, run: str) -> Iterator[BenchMail]:
    number = 0
    while True:
        yield _mail(f"stranger{number % 97}@bench.example", [f"LIST b{number % games}"],
                    f"{run}.list.{number}@bench.example")
        number += 1


def _count(database: Path, query: str) -> int:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as db:
        try:
            return int(db.execute(query).fetchone()[0])
        except sqlite3.OperationalError:  # no such table (the code before bot jobs)
            return 0


def _cpu(daemon: Daemon) -> tuple[float, float]:
    """CPU seconds of the daemon, and of its children (the bot processes)."""
    children = _children(daemon.process.pid)
    return _cpu_seconds_of(daemon.process.pid), sum(_cpu_seconds_of(pid) for pid in children)


def measure(code: Path, args: argparse.Namespace, index: int) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"bot-bench-{index}-"))
    database = workdir / "judge.db"
    env = {"PYTHONPATH": str(code), "JUDGE_SCHEDULER_TICK_SECONDS": "86400", "JUDGE_DAIDE_HOST": "",
           "JUDGE_WORKER_POLL_SECONDS": "0.2", "JUDGE_OUTBOUND_POLL_SECONDS": "0.2"}
    daemon = Daemon(workdir, database, extra_env=env)
    daemon.wait_ready()
    observer = ReplyObserver(database, args.poll_ms / 1000)
    run = f"b{index}.{int(time.time())}"
    try:
        observer.start()
        setup_seconds = set_up(daemon.port, observer, args.games, run)
        records_before = _count(database, "SELECT count(*) FROM phase_record")
        jobs_before = _count(database, "SELECT count(*) FROM bot_job WHERE done_at IS NOT NULL")
        cpu_before = _cpu(daemon)
        load = os.getloadavg()[0]

        # The PROCESS mails, evenly over the window, and the LIST mails at the fixed rate.
        processes = _process_mails(args.games, args.per_mail, run)
        process_sent: list[Sent] = []

        def send_processes() -> None:
            work: queue.SimpleQueue[tuple[float | None, BenchMail] | None] = queue.SimpleQueue()
            start = time.monotonic() + 0.5
            for number, mail in enumerate(processes):
                work.put((start + number * args.seconds / len(processes), mail))
            process_sent.extend(run_senders([daemon.port], work, 1, "process"))

        masters = threading.Thread(target=send_processes, name="masters")
        masters.start()
        listed = send_at_rate(daemon.port, _list_mails(args.games, run), args.rate, args.seconds, connections=4)
        masters.join()
        window_end = time.monotonic()
        wanted = {s.inbound_id for s in listed}
        try:
            observer.wait_for(wanted, timeout=args.drain_seconds)
        except TimeoutError:
            pass
        seen = dict(observer.seen)
        answered = [(seen[s.inbound_id] - s.acked) * 1000 for s in listed if s.inbound_id in seen]
        cpu_after = _cpu(daemon)
        result = {
            "code": str(code), "games": args.games, "seconds": args.seconds, "rate": args.rate,
            "setup_seconds": round(setup_seconds, 1), "load_average_at_start": round(load, 2),
            "list_mails": len(listed), "unanswered": len(listed) - len(answered),
            "reply_ms": {"p50": round(percentile(answered, 0.50), 1), "p90": round(percentile(answered, 0.90), 1),
                         "p99": round(percentile(answered, 0.99), 1),
                         "max": round(max(answered), 1) if answered else None},
            "process_mails": len(process_sent),
            "phases_processed": _count(database, "SELECT count(*) FROM phase_record") - records_before,
            "bot_jobs_done": _count(database, "SELECT count(*) FROM bot_job WHERE done_at IS NOT NULL") - jobs_before,
            "cpu_seconds_daemon": round(cpu_after[0] - cpu_before[0], 1),
            "cpu_seconds_children": round(cpu_after[1] - cpu_before[1], 1),
            "drained_after_seconds": round(time.monotonic() - window_end, 1),
        }
    finally:
        observer.stopping.set()
        code_at_stop = _stop(daemon)
    result["stopped_with"] = code_at_stop
    return result


def _stop(daemon: Daemon) -> int | None:
    """SIGTERM; a daemon still thinking in its worker after 60 s is killed."""
    try:
        return daemon.stop()
    except Exception:
        daemon.process.kill()
        return None


def line(result: dict[str, Any]) -> str:
    reply = result["reply_ms"]
    return (f"{result['code']}: {result['list_mails']} LIST mails, {result['unanswered']} unanswered | reply "
            f"committed after 250 p50 {reply['p50']} ms p90 {reply['p90']} p99 {reply['p99']} max {reply['max']} | "
            f"{result['process_mails']} PROCESS mails, {result['phases_processed']} phases processed, "
            f"{result['bot_jobs_done']} bot jobs | CPU s daemon {result['cpu_seconds_daemon']} "
            f"children {result['cpu_seconds_children']} | load {result['load_average_at_start']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bot_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", action="append", type=Path,
                        help="a checkout to run judge serve from (repeat: measured one after another); "
                             "default: this tree")
    parser.add_argument("--games", type=int, default=50, help="bot games (default 50)")
    parser.add_argument("--per-mail", type=int, default=5, help="games PROCESSed by one master mail (default 5)")
    parser.add_argument("--seconds", type=float, default=60, help="the window of load (default 60)")
    parser.add_argument("--rate", type=float, default=2, help="LIST mails a second (default 2)")
    parser.add_argument("--drain-seconds", type=float, default=120,
                        help="how long after the window replies are waited for (default 120)")
    parser.add_argument("--poll-ms", type=float, default=5, help="the observer's poll interval (default 5)")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args(argv)
    codes = [code.resolve() for code in (args.code or [REPO_ROOT])]
    runs: list[dict[str, Any]] = []
    for index, code in enumerate(codes):
        result = measure(code, args, index)
        runs.append(result)
        print(line(result), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "runs": runs}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
