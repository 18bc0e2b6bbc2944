"""Scale-out benchmark: mail commands per second with 1, 2 and 4 workers on one PostgreSQL.

    python -m benchmarks.scale_bench                              # layouts 1x0, 2x0, 4x0
    python -m benchmarks.scale_bench --layouts 1x0,2x0,1x2 --mails 800 --games 1000

A layout ``DxP`` is ``D`` ``judge serve`` daemons on one database, each with ``[worker]
processes = P`` (0: the worker is a thread of the daemon); its workers are ``D * max(P, 1)``.
``2x0`` is two judges behind one MX (deploy/SCALE-OUT.md), ``1x2`` one judge whose worker
runs in two processes.

The population is the intake benchmark's (benchmarks/intake_population.py: a SQLite file
built once and reused), copied row by row into a database of a throwaway PostgreSQL cluster
(tests/fixtures/postgres.py: fsync off, as in the tests); every layout runs on a fresh copy
of that database (``CREATE DATABASE ... TEMPLATE``).  Mail goes in as users send it: SMTP
connections from threads of this process, connection ``i`` to daemon ``i mod D`` (an MX
spreading its deliveries).  Replies are observed as in the intake benchmark: a thread
polls the outbox over its own connection and notes when each inbound row's reply row is
committed.

Each layout sends a warm-up (every seat signs on ``6 x workers`` times, so that each worker
process has, but for a seat or two, checked each password with scrypt once and keeps it in
its cache, as every process of a judge running for a while has; not counted), then
``--mails`` mails at saturation from ``--senders`` connections: throughput is mails (and
commands) over the time from the first DATA to the last reply committed.  CPU seconds
used during saturation are read from /proc for the judges (with their worker processes),
for PostgreSQL (the postmaster and its backends), for this process (senders, observer) and
for the whole machine (other work on it included), so a figure can be read against the
cores it had.  The judges run with ``[daide] host = ""`` (no machine games here; see
``Judge``).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import resource
import signal
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import psycopg
from sqlalchemy import create_engine, text

from benchmarks.intake_bench import PhaseFigures, ReplyObserver, Sent, figures, machine, run_senders
from benchmarks.intake_bench import Daemon as IntakeDaemon
from benchmarks.intake_mail import BenchMail, mail_stream, one_per_seat
from benchmarks.intake_population import Population, load_or_build

DEFAULT_LAYOUTS = "1x0,2x0,4x0"
IDLE_SECONDS = 3.0


@dataclass(frozen=True)
class Layout:
    daemons: int
    processes: int  # [worker] processes of each daemon

    @property
    def workers(self) -> int:
        return self.daemons * max(self.processes, 1)

    @property
    def name(self) -> str:
        return f"{self.daemons}x{self.processes}"

    @classmethod
    def parse(cls, text: str) -> "Layout":
        daemons, sep, processes = text.partition("x")
        try:
            layout = cls(int(daemons), int(processes) if sep else 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"layout {text!r}: write DxP, e.g. 2x0 (two daemons, worker threads) "
                                             "or 1x2 (one daemon, two worker processes)") from None
        if layout.daemons < 1 or layout.processes < 0:
            raise argparse.ArgumentTypeError(f"layout {text!r}: at least one daemon, zero or more processes")
        return layout


# -- the database ----------------------------------------------------------------------------

def copy_population(sqlite_path: Path, target_url: str) -> None:
    """Every row of the population's SQLite file into the (empty) PostgreSQL database at
    ``target_url``, at the schema's head revision, with its id sequences moved past the
    copied ids."""
    from judge.store.models import load_models
    from judge.store.schema import upgrade

    metadata = load_models().metadata
    source = create_engine(f"sqlite:///{sqlite_path}")
    target = create_engine(target_url)
    try:
        upgrade(target)
        with source.connect() as reading, target.begin() as writing:
            for table in metadata.sorted_tables:
                rows = [dict(row._mapping) for row in reading.execute(table.select())]
                for start in range(0, len(rows), 2000):
                    writing.execute(table.insert(), rows[start:start + 2000])
                if "id" in table.c and rows:
                    writing.execute(text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                         f"(SELECT max(id) FROM {table.name}))"))
            writing.execute(text("ANALYZE"))
    finally:
        source.dispose()
        target.dispose()


class PostgresObserver(ReplyObserver):
    """Notes when the reply row of each inbound row is first visible to another connection
    (the intake benchmark's ReplyObserver, on PostgreSQL, where several transactions take
    outbox ids at once and commit in any order: the skipped ids are looked for again)."""

    def __init__(self, conninfo: str, poll_seconds: float) -> None:
        super().__init__(Path(), poll_seconds)
        self.conninfo = conninfo

    ABOVE = "SELECT id, inbound_id, kind FROM outbox WHERE id > %s ORDER BY id"

    def among(self, db: Any, missing: Sequence[int]) -> list[tuple[int, int | None, str]]:
        return db.execute("SELECT id, inbound_id, kind FROM outbox WHERE id = ANY(%s)", (list(missing),)).fetchall()

    def connect(self) -> Any:
        return psycopg.connect(self.conninfo, autocommit=True)


# -- the judges --------------------------------------------------------------------------------

class Judge(IntakeDaemon):
    """One ``judge serve`` of a layout, on the PostgreSQL database (the intake benchmark's
    daemon, its store URL replaced)."""

    def __init__(self, workdir: Path, store_url: str, shared_data: Path, processes: int) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        super().__init__(workdir, Path("unused.db"), {
            "JUDGE_STORE_URL": store_url,
            "JUDGE_JUDGE_DATA_DIR": str(shared_data),  # one GnuPG home, one key, for every judge
            "JUDGE_OUTBOUND_OUTBOX_DIR": str(workdir / "outbox"),
            "JUDGE_WORKER_PROCESSES": str(processes),
            # No RULE MACHINES game here; the DAIDE edge's poll of every game (4 a second,
            # per daemon) would be counted once per judge (issue 16.2 takes it on).
            "JUDGE_DAIDE_HOST": "",
        }, worker_processes=processes)


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU seconds of ``pids`` and all their descendants, alive or reaped."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    seen: set[int] = set()
    pending = list(pids)
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            # utime, stime, and cutime, cstime: the children it has reaped (PostgreSQL's
            # backends of closed connections, a worker process that died)
            total += sum(int(f) for f in fields[11:15]) / ticks
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listed:
                    pending.extend(int(child) for child in listed.read().split())
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    return total


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has spent not idle since boot."""
    with open("/proc/stat", encoding="ascii") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return (sum(values[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _sessions(conninfo: str) -> int:
    """Connections ever opened to the database (a pool that closes and opens connections
    pays a fork and a SCRAM handshake for each)."""
    with psycopg.connect(conninfo, autocommit=True) as db:
        return int(_scalar(db, "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"))


def _scalar(db: psycopg.Connection[Any], query: str) -> Any:
    """The one value ``query`` answers."""
    row = db.execute(query).fetchone()
    if row is None:
        raise RuntimeError(f"no row from {query!r}")
    return row[0]


def postmaster_pid(data_directory: Path) -> int:
    return int((data_directory / "postmaster.pid").read_text().split()[0])


# -- sending -----------------------------------------------------------------------------------

def send_spread(ports: Sequence[int], mails: Sequence[BenchMail], connections: int) -> list[Sent]:
    """``connections`` threads, thread ``i`` holding one SMTP connection to ``ports[i mod
    len(ports)]``, each sending its next mail as soon as the last one is acknowledged."""
    work: queue.SimpleQueue[tuple[float | None, BenchMail] | None] = queue.SimpleQueue()
    for mail in mails:
        work.put((None, mail))
    return run_senders(ports, work, connections, "sender")


# -- one layout --------------------------------------------------------------------------------

@dataclass
class LayoutResult:
    layout: Layout
    saturation: PhaseFigures
    judges_cpu: float
    postgres_cpu: float
    machine_cpu: float
    client_cpu: float  # this process: the SMTP senders and the observer
    load_average: float  # the machine's 1-minute load average at the end of saturation
    idle_cpu: float  # CPU seconds per second of the judges with no mail to do
    sessions: int  # PostgreSQL connections opened during saturation

    def to_json(self) -> dict[str, Any]:
        return {"layout": self.layout.name, "daemons": self.layout.daemons,
                "processes": self.layout.processes, "workers": self.layout.workers,
                "saturation": self.saturation.to_json(), "cpu_seconds": {
                    "judges": self.judges_cpu, "postgres": self.postgres_cpu, "machine": self.machine_cpu,
                    "client": self.client_cpu},
                "load_average": self.load_average, "idle_cpu_per_second": self.idle_cpu,
                "postgres_sessions": self.sessions}


def run_layout(layout: Layout, server: Any, template: str, population: Population, workdir: Path,
               args: argparse.Namespace, run_id: str, number: int) -> LayoutResult:
    database = f"scale_{number}_{layout.name}_{run_id}"
    url = server.create_database(database, template=template)
    conninfo = server.admin_conninfo(database)
    base = workdir / f"layout-{number}-{layout.name}"
    judges: list[Judge] = []
    observer = PostgresObserver(conninfo, args.poll_ms / 1000)
    try:
        for number in range(layout.daemons):
            judge = Judge(base / f"judge{number}", url, base / "shared-data", layout.processes)
            judges.append(judge)
            judge.wait_ready()  # the first makes and records the key; the others find it
        observer.start()
        ports = [judge.port for judge in judges]
        connections = max(args.senders, layout.daemons)
        rounds = 6 * layout.workers  # a seat misses a given worker with odds (1 - 1/W) ** (6 W) < 0.3 %
        warm = [mail for n in range(rounds)
                for mail in one_per_seat(population.seats, args.seed + n, f"{run_id}.{layout.name}.w{n}")]
        figures("warm-up", send_spread(ports, warm, connections), observer)
        with psycopg.connect(conninfo, autocommit=True) as admin:
            # The state a judge's database is in after running a while, autovacuum's work
            # done: statistics (with those of the empty tables copied from the template, the
            # planner scans the whole outbox for a few rows) and the tables vacuumed (not by
            # autovacuum in the middle of the measurement; docs/benchmarks.md, "Scale-out,
            # session 7").
            admin.execute("VACUUM ANALYZE")
        stream = mail_stream(population.seats, args.seed, f"{run_id}.{layout.name}")
        mails = [next(stream) for _ in range(args.mails)]
        pg = postmaster_pid(server.directory / "data")
        judge_pids = [judge.process.pid for judge in judges]
        idle_before = cpu_seconds(judge_pids)
        time.sleep(IDLE_SECONDS)  # the judges' own cost with no mail: polls, heartbeats
        idle_cpu = (cpu_seconds(judge_pids) - idle_before) / IDLE_SECONDS
        cpu_before = (cpu_seconds(judge_pids), cpu_seconds([pg]), machine_busy_seconds(), _own_cpu())
        sessions_before = _sessions(conninfo)
        sent = send_spread(ports, mails, connections)
        saturation = figures("saturation", sent, observer)
        cpu_after = (cpu_seconds(judge_pids), cpu_seconds([pg]), machine_busy_seconds(), _own_cpu())
        sessions = _sessions(conninfo) - sessions_before - 1  # less this count's own
        judges_cpu, postgres_cpu, busy_cpu, client_cpu = (after - before for after, before in zip(cpu_after, cpu_before))
        return LayoutResult(layout, saturation, judges_cpu, postgres_cpu, busy_cpu, client_cpu, os.getloadavg()[0],
                            idle_cpu, sessions)
    finally:
        observer.stopping.set()
        for judge in judges:
            judge.stop()


def report_lines(results: Sequence[LayoutResult], cores: int) -> list[str]:
    one = next((r for r in results if r.layout.workers == 1), None)  # the first one-worker run
    lines = [f"{'layout':<7} {'workers':>7} {'mails/s':>8} {'cmds/s':>8} {'vs 1':>5} {'reply p50 ms':>12} "
             f"{'p99 ms':>8} | CPU s per 100 mails: {'judges':>6} {'pg':>5} {'client':>6} | machine busy {'':>11} | load | idle CPU | new connections"]
    for result in results:
        figures_ = result.saturation
        ratio = figures_.commands_per_second / one.saturation.commands_per_second if one else float("nan")
        per100 = 100 / figures_.mails
        busy = result.machine_cpu / (figures_.seconds * cores)
        lines.append(f"{result.layout.name:<7} {result.layout.workers:>7} {figures_.mails_per_second:8.1f} "
                     f"{figures_.commands_per_second:8.1f} {ratio:5.2f} {figures_.reply_ms['p50']:12.0f} "
                     f"{figures_.reply_ms['p99']:8.0f} | {'':>21}{result.judges_cpu * per100:6.2f} "
                     f"{result.postgres_cpu * per100:5.2f} {result.client_cpu * per100:6.2f} | {busy:6.0%} of {cores} cores | {result.load_average:4.1f} | {result.idle_cpu:5.1%} | {result.sessions}")
    return lines


def run(args: argparse.Namespace) -> dict[str, Any]:
    from tests.fixtures.postgres import running_postgres

    workdir: Path = args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    population = load_or_build(workdir / f"scale-{args.games}.db", args.games, args.traffic_games,
                               rebuild=args.rebuild)
    print(f"population: {population.games} games, {len(population.seats)} seats "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    report: dict[str, Any] = {"machine": machine(), "games": population.games, "seats": len(population.seats),
                              "mails": args.mails, "senders": args.senders, "layouts": []}
    print("machine: " + ", ".join(f"{k} {v}" for k, v in report["machine"].items()), flush=True)
    run_id = f"r{int(time.time())}"
    results: list[LayoutResult] = []
    with ExitStack() as stack:
        server = stack.enter_context(running_postgres())
        template = f"population_{run_id}"
        copy_population(population.path, server.create_database(template))
        with psycopg.connect(server.admin_conninfo(), autocommit=True) as admin:
            version = _scalar(admin, "SHOW server_version")
        report["machine"]["postgresql"] = version
        print(f"PostgreSQL {version}: population copied ({time.perf_counter() - started:.0f} s)", flush=True)
        for number, layout in enumerate(args.layouts):
            result = run_layout(layout, server, template, population, workdir, args, run_id, number)
            results.append(result)
            print(f"{layout.name}: {result.saturation.line()}", flush=True)
    cores = os.cpu_count() or 1
    for line in report_lines(results, cores):
        print(line)
    report["layouts"] = [r.to_json() for r in results]
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scale-out benchmark on PostgreSQL (see the module docstring).")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/dipjudge-scale-bench"))
    parser.add_argument("--layouts", type=lambda s: [Layout.parse(p) for p in s.split(",")],
                        default=[Layout.parse(p) for p in DEFAULT_LAYOUTS.split(",")],
                        help=f"comma-separated DxP: D daemons with P worker processes each (default {DEFAULT_LAYOUTS})")
    parser.add_argument("--games", type=int, default=2000, help="stored games (default 2000)")
    parser.add_argument("--traffic-games", type=int, default=40,
                        help="games whose players send mail (default 40: two workers rarely want one game)")
    parser.add_argument("--rebuild", action="store_true", help="build the population even if one fits")
    parser.add_argument("--senders", type=int, default=8, help="SMTP connections, spread over the daemons")
    parser.add_argument("--mails", type=int, default=2500,
                        help="mails sent at saturation per layout (default 2500: shorter runs measure start-up)")
    parser.add_argument("--poll-ms", type=float, default=5.0, help="outbox polling interval")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    random.seed(args.seed)
    # SIGTERM unwinds like ^C: the judges are stopped and the PostgreSQL cluster removed.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))
    report = run(args)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
