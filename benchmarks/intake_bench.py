"""Mail intake benchmark: SMTP DATA to reply row committed, through a real ``judge serve``.

    python -m benchmarks.intake_bench                         # everything, 10,000 games
    python -m benchmarks.intake_bench --games 2000 --mails 1500 --rate-seconds 20 --light-seconds 0

A ``judge serve`` subprocess runs on a SQLite file built by benchmarks/intake_population.py
(reused between runs when the sizes match).  Senders are threads of this process, each
holding one SMTP connection to the daemon (as a relaying MTA does) and sending
MAIL/RCPT/DATA for each mail.  The time of a mail's acknowledgement is taken when the 250
reply to DATA arrives; the 250 names the inbound row (``stored as #N``).  An observer
thread polls the outbox table over its own read-only connection every ``--poll-ms`` and
notes when the reply row of each inbound row becomes visible, i.e. committed.  Latency is
observed time minus acknowledgement time, so it errs long by up to one poll interval plus
one query; nothing is read from the daemon's own clock.

Phases, in order (each optional but the first): warm-up (one mail per seat, reported on its own: the first SIGNON of each
player after a start), saturation (``--senders`` connections sending ``--mails`` mails as
fast as replies to DATA come back; throughput = mails / time from the first DATA to the
last reply committed), fixed load (``--rate`` mails per second on a fixed schedule for
``--rate-seconds``; latency percentiles), light traffic (``--light-rate`` per second for
``--light-seconds``), ``--list-all`` LIST mails naming no game (every stored game listed),
and the daemon's VmRSS and VmHWM from /proc after the traffic and after those LISTs.

Each phase also reports the daemon's CPU time per mail and per command (its own process,
and with every process below it), this process's own (the load generator's: it must not
be what limits the daemon), and with ``--threads`` the daemon's CPU per mail by thread
(its threads named through benchmarks/threadnames) and by child process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import random
import re
import resource
import smtplib
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from benchmarks.intake_mail import BenchMail, compose, mail_stream, one_per_seat
from benchmarks.intake_population import JUDGE_ADDRESS, Population, load_or_build

REPO_ROOT = Path(__file__).resolve().parents[1]
Address = tuple[str, int] | int  # where senders connect; a port alone: on 127.0.0.1
_STORED_AS = re.compile(r"stored as #(\d+)")


# -- the daemon ------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Daemon:
    """``judge serve`` on the population's database; stderr goes to ``serve.log``."""

    def __init__(self, workdir: Path, database: Path, extra_env: dict[str, str] | None = None,
                 worker_processes: int = 1, host: str = "127.0.0.1", thread_names: bool = False) -> None:
        self.host = host
        self.port = _free_port()
        self.worker_processes = worker_processes
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
        env.update({
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH"),
                                                         str(REPO_ROOT / "benchmarks" / "threadnames")
                                                         if thread_names else None])),
            "JUDGE_STORE_URL": f"sqlite:///{database}",
            "JUDGE_SMTP_HOST": host,
            "JUDGE_SMTP_PORT": str(self.port),
            "JUDGE_JUDGE_ADDRESS": JUDGE_ADDRESS,
            "JUDGE_JUDGE_DOMAIN": "bench.example",
            "JUDGE_JUDGE_DATA_DIR": str(workdir / "judge-data"),
            "JUDGE_OUTBOUND_OUTBOX_DIR": str(workdir / "outbox"),
            **(extra_env or {}),
        })
        self.log_path = workdir / "serve.log"
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen([sys.executable, "-m", "judge.cli", "serve"], cwd=workdir, env=env,
                                        stdout=subprocess.DEVNULL, stderr=self._log)

    def wait_ready(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"judge serve exited with {self.process.returncode}; see {self.log_path}")
            try:
                with socket.create_connection(self.address, timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"judge serve not listening after {timeout} s; see {self.log_path}")

    @property
    def address(self) -> tuple[str, int]:
        return (self.host, self.port)

    def memory_kib(self) -> dict[str, int]:
        """VmRSS and VmHWM (peak RSS) of the daemon, in KiB, and the sum over it and every
        process below it (``VmRSS+children``: worker, bot and verifier processes, their
        forkserver; shared pages counted twice), so runs with and without worker processes
        compare."""
        found = _memory_of(self.process.pid)
        children = _descendants(self.process.pid)
        if children:
            found["VmRSS+children"] = found["VmRSS"] + sum(_memory_of(c).get("VmRSS", 0) for c in children)
        return found

    def cpu_seconds(self) -> float:
        """CPU time (user and system) the daemon and every process below it (worker and
        verifier processes) have used so far."""
        pids = [self.process.pid, *_descendants(self.process.pid)]
        return sum(_cpu_seconds_of(pid) for pid in pids)

    def own_cpu_seconds(self) -> float:
        """CPU time of the daemon's own process (one interpreter lock: what one core must carry)."""
        return _cpu_seconds_of(self.process.pid)

    def cpu_seconds_by_thread(self) -> dict[str, float]:
        """CPU time so far of each of the daemon's threads by name (numbered ones summed, e.g.
        the intake's executor threads), and of each process below it as ``process <name>``."""
        found: dict[str, float] = {}
        for task in _tasks(self.process.pid):
            name, seconds = _task_cpu(self.process.pid, task)
            found[name] = found.get(name, 0.0) + seconds
        for child in _descendants(self.process.pid):
            name = f"process {_command_of(child)}"
            found[name] = found.get(name, 0.0) + _cpu_seconds_of(child)
        return found

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            return self.process.wait(timeout=60)
        finally:
            self._log.close()


def _memory_of(pid: int) -> dict[str, int]:
    found = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                found[name] = int(value.split()[0])
    return found


def _cpu_seconds_of(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _tasks(pid: int) -> list[str]:
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


_NUMBERED = re.compile(r"[-_]?\d+(?:_\d+)?$")


def _task_cpu(pid: int, task: str) -> tuple[str, float]:
    """A thread's name (its number dropped) and CPU time."""
    try:
        with open(f"/proc/{pid}/task/{task}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return "gone", 0.0
    name = text[text.index(b"(") + 1:text.rindex(b")")].decode("utf-8", "replace")
    fields = text.rsplit(b")", 1)[1].split()
    return _NUMBERED.sub("", name) or name, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _command_of(pid: int) -> str:
    """What a process below the daemon is, from its command line (bot, verifier, forkserver)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as listed:
            words = listed.read().split(b"\0")
    except OSError:
        return "gone"
    text = " ".join(w.decode("utf-8", "replace") for w in words)
    for marker, name in (("forkserver", "forkserver"), ("--bot-process", "bot"), ("--worker-process", "worker"),
                         ("--role", "role"), ("multiprocessing", "pool")):
        if marker in text:
            return name
    return text[:40]


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``: children of any of its threads (a verifier pool's
    forkserver is started by an intake thread), and theirs."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listed:
                children = [int(child) for child in listed.read().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *_descendants(child)]
    return found


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as listed:
            return [int(child) for child in listed.read().split()]
    except OSError:
        return []


# -- observing committed replies -------------------------------------------------------------

class ReplyObserver(threading.Thread):
    """Notes when the reply row of each inbound row is first visible to another connection."""

    def __init__(self, database: Path, poll_seconds: float) -> None:
        super().__init__(name="observer", daemon=True)
        self.database = database
        self.poll_seconds = poll_seconds
        self.seen: dict[int, float] = {}
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        self.polls = 0

    # Rows (id, inbound_id, kind) above an id or among the ids still missing below it, by id
    # (two statements: one with an OR would not use the primary key on PostgreSQL).  A
    # subclass on another database names its own connection and parameter style.
    ABOVE = "SELECT id, inbound_id, kind FROM outbox WHERE id > ? ORDER BY id"

    def among(self, db: Any, missing: Sequence[int]) -> list[tuple[int, int | None, str]]:
        return db.execute(f"SELECT id, inbound_id, kind FROM outbox WHERE id IN ({', '.join('?' * len(missing))})",
                          tuple(missing)).fetchall()

    def newer_rows(self, db: Any, last: int, missing: Sequence[int]) -> list[tuple[int, int | None, str]]:
        rows = db.execute(self.ABOVE, (last,)).fetchall()
        return sorted(self.among(db, missing) + rows) if missing else rows

    # How long an id below the highest seen is looked for: one taken by a transaction that
    # commits later (several writers) turns up; one rolled back never does.
    MISSING_SECONDS = 30.0

    def connect(self) -> Any:
        """A read-only connection to the judge's database, as a context manager."""
        uri = f"file:{self.database}?mode=ro"
        return closing(sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False))

    def run(self) -> None:
        # Each poll reads only the rows it has not seen: those above the highest id seen and
        # the ids skipped below it (taken by a transaction not yet committed), so that a poll
        # every few milliseconds costs the database next to nothing.
        missing: dict[int, float] = {}  # id -> when first found missing
        with self.connect() as db:
            last = db.execute("SELECT coalesce(max(id), 0) FROM outbox").fetchone()[0]
            while not self.stopping.is_set():
                rows = self.newer_rows(db, last, list(missing))
                now = time.monotonic()
                self.polls += 1
                if rows:
                    with self.changed:
                        for _row_id, inbound_id, kind in rows:
                            if inbound_id is not None and kind == "reply":
                                self.seen.setdefault(inbound_id, now)
                        self.changed.notify_all()
                    found = {row[0] for row in rows}
                    for row_id in found.intersection(missing):
                        del missing[row_id]
                    top = rows[-1][0]
                    missing.update((row_id, now) for row_id in range(last + 1, top) if row_id not in found)
                    last = max(last, top)
                if missing:
                    for row_id in [i for i, since in missing.items() if now - since > self.MISSING_SECONDS]:
                        del missing[row_id]
                self.stopping.wait(self.poll_seconds)

    def wait_for(self, inbound_ids: Iterable[int], timeout: float) -> None:
        wanted = set(inbound_ids)
        deadline = time.monotonic() + timeout
        with self.changed:
            while not wanted <= self.seen.keys():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    missing = sorted(wanted - self.seen.keys())
                    raise TimeoutError(f"{len(missing)} replies not committed after {timeout} s "
                                       f"(inbound {missing[:5]}...)")
                self.changed.wait(min(remaining, 0.5))


# -- sending -----------------------------------------------------------------------------------

@dataclass
class Sent:
    mail: BenchMail
    started: float  # before MAIL FROM
    acked: float  # when the 250 to DATA arrived
    inbound_id: int
    scheduled: float | None = None


class Sender:
    """One SMTP connection, reused for every mail it sends."""

    def __init__(self, address: tuple[str, int]) -> None:
        host, port = address  # from that address too: a judge checks SPF of a non-loopback client
        self.smtp = smtplib.SMTP(host, port, local_hostname="bench.example", timeout=120,
                                 source_address=None if host.startswith("127.") else (host, 0))
        self.smtp.ehlo()

    def send(self, mail: BenchMail) -> Sent:
        started = time.monotonic()
        code, text = self.smtp.mail(mail.sender)
        if code != 250:
            raise RuntimeError(f"MAIL FROM refused: {code} {text!r}")
        code, text = self.smtp.rcpt(JUDGE_ADDRESS)
        if code != 250:
            raise RuntimeError(f"RCPT TO refused: {code} {text!r}")
        code, text = self.smtp.data(mail.raw)
        acked = time.monotonic()
        found = _STORED_AS.search(text.decode("utf-8", "replace"))
        if code != 250 or found is None:
            raise RuntimeError(f"DATA not stored: {code} {text!r}")
        return Sent(mail, started, acked, int(found.group(1)))

    def close(self) -> None:
        try:
            self.smtp.quit()
        except smtplib.SMTPException:
            self.smtp.close()


def send_closed_loop(address: Address, mails: Sequence[BenchMail], senders: int) -> list[Sent]:
    """``senders`` connections, each sending its next mail as soon as the last one is acked."""
    work: queue.SimpleQueue[tuple[float | None, BenchMail] | None] = queue.SimpleQueue()
    for mail in mails:
        work.put((None, mail))
    return run_senders([address], work, senders, "sender")


def send_at_rate(address: Address, mails: Iterator[BenchMail], rate: float, seconds: float,
                 connections: int = 16) -> list[Sent]:
    """Open load: mail i is due at start + i / rate, whoever is free sends it."""
    due = [next(mails) for _ in range(int(rate * seconds))]  # made (and signed) before the clock starts
    start = time.monotonic() + 0.5
    work: queue.SimpleQueue[tuple[float | None, BenchMail] | None] = queue.SimpleQueue()
    for index, mail in enumerate(due):
        work.put((start + index / rate, mail))
    return run_senders([address], work, connections, "paced")


def run_senders(addresses: Sequence[Address], work: "queue.SimpleQueue[tuple[float | None, BenchMail] | None]",
                connections: int, name: str) -> list[Sent]:
    """``connections`` threads, thread ``i`` holding one SMTP connection to ``addresses[i mod
    len(addresses)]``, sending the queued mails (each at its due time when it has one) until the
    queue runs dry."""
    for _ in range(connections):
        work.put(None)  # one end marker per thread
    results: list[Sent] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(address: Address) -> None:
        sender = Sender(("127.0.0.1", address) if isinstance(address, int) else address)  # a port: on loopback
        try:
            while (item := work.get()) is not None:
                due, mail = item
                if due is not None and (delay := due - time.monotonic()) > 0:
                    time.sleep(delay)
                sent = sender.send(mail)
                if due is not None:
                    sent.scheduled = due
                with lock:
                    results.append(sent)
        except BaseException as problem:  # reported by the caller
            errors.append(problem)
        finally:
            sender.close()

    threads = [threading.Thread(target=run, args=(addresses[n % len(addresses)],), name=f"{name}{n}")
               for n in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError(f"{len(errors)} senders failed: {errors[0]!r}") from errors[0]
    return results


# -- figures ---------------------------------------------------------------------------------

def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class PhaseFigures:
    name: str
    mails: int
    commands: int
    seconds: float  # first DATA started to last reply committed
    ack_ms: dict[str, float] = field(default_factory=dict)  # MAIL FROM to 250 after DATA
    reply_ms: dict[str, float] = field(default_factory=dict)  # 250 to reply committed
    lateness_ms: float | None = None  # how far behind schedule the paced senders started (p99)
    cpu_ms_per_mail: float | None = None  # the daemon's CPU time in the phase, per mail
    own_cpu_ms_per_mail: float | None = None  # of that, its own process's (not its worker or verifier processes')
    load_average: float | None = None  # the machine's (1 minute) when the phase started
    bench_cpu_ms_per_mail: float | None = None  # this process's (the load generator's) CPU, per mail
    threads_ms_per_mail: dict[str, float] = field(default_factory=dict)  # --threads: the daemon's, by thread

    @property
    def mails_per_second(self) -> float:
        return self.mails / self.seconds

    @property
    def commands_per_second(self) -> float:
        return self.commands / self.seconds

    @property
    def own_cpu_ms_per_command(self) -> float | None:
        return None if self.own_cpu_ms_per_mail is None else self.own_cpu_ms_per_mail * self.mails / self.commands

    @property
    def cpu_ms_per_command(self) -> float | None:
        """The daemon's CPU per command: what the load of other work on the machine does not change."""
        return None if self.cpu_ms_per_mail is None else self.cpu_ms_per_mail * self.mails / self.commands

    def line(self) -> str:
        text = (f"{self.name:<11} {self.mails:>6} mails {self.mails_per_second:7.1f} mails/s "
                f"{self.commands_per_second:7.1f} cmds/s | 250 after DATA p50 {self.ack_ms['p50']:7.1f} ms "
                f"p99 {self.ack_ms['p99']:7.1f} | reply committed after 250 p50 {self.reply_ms['p50']:7.1f} ms "
                f"p99 {self.reply_ms['p99']:7.1f} max {self.reply_ms['max']:7.1f}")
        if self.lateness_ms is not None:
            text += f" | senders late p99 {self.lateness_ms:.1f} ms"
        if self.cpu_ms_per_mail is not None:
            text += (f" | daemon CPU {self.cpu_ms_per_mail:.2f} ms/mail {self.cpu_ms_per_command:.2f} ms/cmd "
                     f"(its own process {self.own_cpu_ms_per_command:.2f}), load {self.load_average:.1f}")
        if self.bench_cpu_ms_per_mail is not None:
            text += f" | load generator CPU {self.bench_cpu_ms_per_mail:.2f} ms/mail"
        if self.threads_ms_per_mail:
            text += "\n    daemon CPU ms/mail by thread: " + ", ".join(
                f"{name} {ms:.2f}" for name, ms in sorted(self.threads_ms_per_mail.items(), key=lambda i: -i[1])
                if ms >= 0.005)
        return text

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "mails": self.mails, "commands": self.commands, "seconds": self.seconds,
                "mails_per_second": self.mails_per_second, "commands_per_second": self.commands_per_second,
                "ack_ms": self.ack_ms, "reply_ms": self.reply_ms, "lateness_ms": self.lateness_ms,
                "cpu_ms_per_mail": self.cpu_ms_per_mail, "cpu_ms_per_command": self.cpu_ms_per_command,
                "own_cpu_ms_per_command": self.own_cpu_ms_per_command,
                "load_average": self.load_average, "bench_cpu_ms_per_mail": self.bench_cpu_ms_per_mail,
                "threads_ms_per_mail": self.threads_ms_per_mail}


def _spread(values_ms: Sequence[float]) -> dict[str, float]:
    return {"p50": percentile(values_ms, 0.50), "p90": percentile(values_ms, 0.90),
            "p99": percentile(values_ms, 0.99), "max": max(values_ms), "mean": statistics.fmean(values_ms)}


def figures(name: str, sent: Sequence[Sent], observer: ReplyObserver) -> PhaseFigures:
    observer.wait_for((s.inbound_id for s in sent), timeout=600)
    seen = observer.seen
    first = min(s.started for s in sent)
    last = max(seen[s.inbound_id] for s in sent)
    result = PhaseFigures(
        name, len(sent), sum(s.mail.commands for s in sent), last - first,
        ack_ms=_spread([(s.acked - s.started) * 1000 for s in sent]),
        reply_ms=_spread([(seen[s.inbound_id] - s.acked) * 1000 for s in sent]),
    )
    if all(s.scheduled is not None for s in sent):
        result.lateness_ms = percentile([(s.started - s.scheduled) * 1000 for s in sent if s.scheduled], 0.99)
    return result


def _wait_until_sent(database: Path, timeout: float = 600.0) -> None:
    """Until no outgoing mail is queued (the sender has signed and written every reply)."""
    deadline = time.monotonic() + timeout
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) as db:
        while db.execute("SELECT count(*) FROM outbox WHERE status = 'queued'").fetchone()[0]:
            if time.monotonic() > deadline:
                raise TimeoutError(f"replies still queued after {timeout} s")
            time.sleep(0.05)


def _own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine() -> dict[str, str]:
    model = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as info:
        for line in info:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"cpu": model, "cores": str(os.cpu_count()), "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version, "kernel": platform.release()}


# -- the run ---------------------------------------------------------------------------------

def run(args: argparse.Namespace, settings: dict[str, str] | None = None, host: str = "127.0.0.1",
        prepare: Callable[[BenchMail], BenchMail] = lambda mail: mail, drain: bool = False) -> dict[str, Any]:
    """One daemon, the phases ``args`` asks for; ``settings`` (else ``--env``) for the daemon,
    which listens on ``host``; ``prepare`` makes each mail what is sent (e.g. DKIM-signed);
    ``drain``: a phase's CPU time also counts sending its replies (signing them, writing
    the files), read once the outbox has nothing queued."""
    workdir: Path = args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    database = workdir / f"intake-{args.games}.db"
    started = time.perf_counter()
    population: Population = load_or_build(database, args.games, args.traffic_games, rebuild=args.rebuild)
    print(f"population: {population.games} games, {len(population.seats)} seats of {args.traffic_games} "
          f"games with traffic ({time.perf_counter() - started:.0f} s)", flush=True)
    if not args.keep_state:  # every run starts from the same stored state
        snapshot = workdir / "run.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{snapshot}{suffix}").unlink(missing_ok=True)
        with closing(sqlite3.connect(database)) as source, closing(sqlite3.connect(snapshot)) as target:
            source.backup(target)
        database = snapshot
    report: dict[str, Any] = {"machine": machine(), "games": population.games, "seats": len(population.seats),
                              "phases": [], "memory_kib": {}}
    print("machine: " + ", ".join(f"{k} {v}" for k, v in report["machine"].items()), flush=True)
    if settings is None:
        settings = dict(item.split("=", 1) for item in args.env)
    report["settings"] = settings
    daemon = Daemon(workdir, database, {"JUDGE_WORKER_PROCESSES": str(args.worker_processes), **settings},
                    worker_processes=args.worker_processes, host=host, thread_names=args.threads)
    observer = ReplyObserver(database, args.poll_ms / 1000)
    try:
        daemon.wait_ready()
        report["memory_kib"]["started"] = daemon.memory_kib()
        observer.start()
        run_id = f"r{int(time.time())}"
        phases: list[PhaseFigures] = []

        def measured(name: str, send: Callable[[], list[Sent]]) -> None:
            """Send a phase's mails, wait for every reply, and record the figures with the
            daemon's CPU time meanwhile (the steadier measure on a shared machine)."""
            load = os.getloadavg()[0]
            cpu_before, own_before = daemon.cpu_seconds(), daemon.own_cpu_seconds()
            threads_before = daemon.cpu_seconds_by_thread() if args.threads else {}
            bench_before = _own_cpu_seconds()
            result = figures(name, send(), observer)
            if drain:
                _wait_until_sent(database)
            result.cpu_ms_per_mail = (daemon.cpu_seconds() - cpu_before) * 1000 / result.mails
            result.own_cpu_ms_per_mail = (daemon.own_cpu_seconds() - own_before) * 1000 / result.mails
            result.bench_cpu_ms_per_mail = (_own_cpu_seconds() - bench_before) * 1000 / result.mails
            if args.threads:
                result.threads_ms_per_mail = {
                    name: (seconds - threads_before.get(name, 0.0)) * 1000 / result.mails
                    for name, seconds in daemon.cpu_seconds_by_thread().items()}
            result.load_average = load
            phases.append(result)
            print(result.line(), flush=True)

        warm_up = [prepare(mail) for mail in one_per_seat(population.seats, args.seed, run_id + "w")]
        measured("warm-up", lambda: send_closed_loop(daemon.address, warm_up, args.senders))
        stream = map(prepare, mail_stream(population.seats, args.seed, run_id))
        if args.mails:
            mails = [next(stream) for _ in range(args.mails)]
            measured("saturation", lambda: send_closed_loop(daemon.address, mails, args.senders))
        if args.rate_seconds:
            measured(f"{args.rate:g}/s", lambda: send_at_rate(daemon.address, stream, args.rate, args.rate_seconds))
        if args.light_seconds:
            measured(f"light {args.light_rate:g}/s",
                     lambda: send_at_rate(daemon.address, stream, args.light_rate, args.light_seconds, connections=4))
        report["memory_kib"]["after traffic"] = daemon.memory_kib()
        if args.list_all:
            rng = random.Random(args.seed)
            mails = [prepare(compose(population.seats[n], "list-all", rng, f"{run_id}.all{n}@bench.example"))
                     for n in range(args.list_all)]
            measured("LIST (all)", lambda: send_closed_loop(daemon.address, mails, 1))
            report["memory_kib"]["after LIST of all games"] = daemon.memory_kib()
        report["phases"] = [p.to_json() for p in phases]
        report["observer_polls"] = observer.polls
        memory = report["memory_kib"]
        for when, values in memory.items():
            together = (f", with its child processes VmRSS {values['VmRSS+children'] / 1024:.1f} MiB"
                        if "VmRSS+children" in values else "")
            print(f"memory of judge serve {when}: VmRSS {values['VmRSS'] / 1024:.1f} MiB, "
                  f"VmHWM {values['VmHWM'] / 1024:.1f} MiB{together}", flush=True)
    finally:
        observer.stopping.set()
        code = daemon.stop()
        report["exit_code"] = code
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Mail intake benchmark (see the module docstring).")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/dipjudge-intake-bench"))
    parser.add_argument("--games", type=int, default=10_000, help="stored games (default 10000)")
    parser.add_argument("--traffic-games", type=int, default=40, help="games whose players send mail")
    parser.add_argument("--rebuild", action="store_true", help="build the database even if one fits")
    parser.add_argument("--keep-state", action="store_true",
                        help="run on the built database itself instead of a fresh copy")
    parser.add_argument("--senders", type=int, default=8, help="SMTP connections at saturation")
    parser.add_argument("--mails", type=int, default=3000, help="mails sent at saturation (0: skip)")
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--rate-seconds", type=float, default=30.0, help="0: skip the fixed load")
    parser.add_argument("--light-rate", type=float, default=2.0)
    parser.add_argument("--light-seconds", type=float, default=180.0, help="0: skip the light traffic")
    parser.add_argument("--list-all", type=int, default=3,
                        help="then this many LIST mails (every stored game), one at a time")
    parser.add_argument("--poll-ms", type=float, default=2.0, help="outbox polling interval")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worker-processes", type=int, default=1,
                        help="[worker] processes of the daemon (default 1, the judge's; 0: the worker is a thread)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--threads", action="store_true",
                        help="also the daemon's CPU per mail by thread and child process (threads named "
                             "through benchmarks/threadnames/sitecustomize.py)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for the daemon, e.g. JUDGE_MAIL_VERIFY=false (repeatable): "
                             "runs side by side that differ in one setting")
    parser.add_argument("--mailauth-rounds", type=int, default=0, metavar="N",
                        help="N rounds of runs side by side, mail authentication off, on (the defaults), and on with a verifier "
                             "process: players' "
                             "mails DKIM-signed, verified by the judge, replies signed "
                             "(benchmarks/intake_mailauth.py)")
    parser.add_argument("--mailauth-configurations", default="off,on,on1", metavar="NAMES",
                        help="with --mailauth-rounds: which, of off, on (the defaults), on0 and on1 ([mail] "
                             "verify_processes 0 or 1), sign (replies signed only), verify (mail verified only)")
    args = parser.parse_args(argv)
    if args.mailauth_rounds:
        from benchmarks.intake_mailauth import side_by_side

        report = side_by_side(args, run)
        ok = all(r.get("exit_code") == 0 for r in report["runs"])
    else:
        report = run(args)
        ok = report.get("exit_code") == 0
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
