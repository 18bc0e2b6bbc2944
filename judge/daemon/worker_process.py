"""The inbox worker in processes of its own (``[worker] processes``).

Intake, outbox sender and scheduler are threads of ``judge serve``; with the worker beside
them, all of its Python work shares one core (the GIL).  A worker process is ``judge
serve`` itself started again with an internal flag: it reads the same configuration, opens
its own store and runs the ordinary ``Worker`` loop.  Claiming rows is already safe across
processes (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one writer at a time, taken in turns
through ``Store(writer_lock=...)``).

Two pipes per child carry the signals:

* its stdin: one byte per stored mail wakes it at once; end of file (``judge serve``
  stopping, or gone) makes it stop after the message in hand;
* its stdout: one byte per processed mail wakes the outbox sender of ``judge serve``; the
  byte also says whether the mail's phase pass ran (its due times may be nearer than the
  scheduler planned for) and whether a bot job was stored (the bot processes are woken
  only then: most mails store none, and a needless wake-up costs a bot process a read of
  the job table), as the worker thread's ``judge serve`` knows by itself.

A child is killed with its parent (PR_SET_PDEATHSIG), so a crash of ``judge serve`` stops
the worker as it would a thread: the message in hand is rolled back and done after the
restart.  A child that dies on its own is started again after a pause.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Callable, Sequence

from sqlalchemy.engine import make_url

from judge.config import ConfigError, Settings
from judge.daemon.processed import PhasePasses, Processed

log = logging.getLogger("judge.daemon.worker_process")

RESTART_PAUSE_SECONDS = 1.0
#: How long ``stop`` waits for a child to finish what it has in hand before it kills it.
STOP_SECONDS = 20.0
#: The processed byte of each combination (a told line never starts with one).
_BYTE_OF = {Processed(False, False): b"p", Processed(False, True): b"j", Processed(True, False): b"d",
            Processed(True, True): b"b"}
_PROCESSED_OF = {byte[0]: processed for processed, byte in _BYTE_OF.items()}
_PROCESSED_BYTES = b"".join(_BYTE_OF.values())
_PR_SET_PDEATHSIG = 1


def sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL on a file; None for anything else."""
    parsed = make_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def worker_process_count(settings: Settings) -> int:
    """How many worker processes to start: ``[worker] processes``, or 0 for an in-memory
    SQLite database, which no other process can open."""
    count = settings.worker.processes
    if count < 0:
        raise ConfigError(f"[worker] processes: {count} is not a number of processes (0 or more; 0: the worker is a thread)")
    url = make_url(settings.store_url)
    if count and url.get_backend_name() == "sqlite" and sqlite_file(settings.store_url) is None:
        log.info("store %s is not a SQLite file other processes can open: the worker runs in-process",
                    settings.store_url)
        return 0
    return count


def sqlite_file_or_server(settings: Settings) -> bool:
    """Whether other processes can open the store (a database server or a SQLite file)."""
    return make_url(settings.store_url).get_backend_name() != "sqlite" or sqlite_file(settings.store_url) is not None


def writer_lock_path(settings: Settings) -> Path | None:
    """The file whose lock orders SQLite writers across processes (None when not needed:
    no worker or bot process beside ``judge serve``)."""
    database = sqlite_file(settings.store_url)
    if database is None or (settings.worker.processes <= 0 and settings.bots.processes <= 0):
        return None
    return database.with_name(database.name + ".writer-lock")


class WorkerProcesses:
    """``count`` children running ``command``; ``wake()`` after each stored mail.  Also the
    bot processes (judge.daemon.bot_worker), named ``kind`` in the log.  ``on_processed``
    after each read of processed bytes, with what they said together."""

    def __init__(self, command: Sequence[str], count: int, on_processed: Callable[[Processed], None],
                 kind: str = "worker", on_line: Callable[[bytes], None] | None = None,
                 stop_seconds: float = STOP_SECONDS) -> None:
        self.kind = kind
        self.stop_seconds = stop_seconds
        self.on_line = on_line  # a line a child wrote with ChildSignals.tell
        self.command = list(command)
        self.count = count
        self.on_processed = on_processed
        self._stopping = threading.Event()
        self._lock = threading.RLock()  # _spawn also takes it, under the monitor's hold
        self._children: list[subprocess.Popen[bytes] | None] = [None] * count
        self._monitors: list[threading.Thread] = []

    @property
    def pids(self) -> list[int]:
        with self._lock:
            return [child.pid for child in self._children if child is not None]

    def start(self) -> None:
        for slot in range(self.count):
            self._spawn(slot)
            monitor = threading.Thread(target=self._monitor, args=(slot,), name=f"{self.kind}-process-{slot}",
                                       daemon=True)
            self._monitors.append(monitor)
            monitor.start()

    def _spawn(self, slot: int) -> None:
        child = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert child.stdin is not None
        os.set_blocking(child.stdin.fileno(), False)  # wake() must never wait on a busy child
        with self._lock:
            self._children[slot] = child
        log.info("%s process %d started", self.kind, child.pid)

    def _monitor(self, slot: int) -> None:
        """Relay the child's "processed" bytes; restart it if it dies while we run."""
        while True:
            with self._lock:
                child = self._children[slot]
            assert child is not None and child.stdout is not None
            pending = b""
            while data := child.stdout.read(4096):
                lines, pending, processed = processed_signals(pending + data)
                for line in lines:
                    if self.on_line is not None:
                        self.on_line(line)
                self.on_processed(processed)
            code = child.wait()
            if self._stopping.is_set():
                return
            log.error("%s process %d exited with %s; starting another in %.0f s",
                      self.kind, child.pid, code, RESTART_PAUSE_SECONDS)
            _close(child.stdin)
            if self._stopping.wait(RESTART_PAUSE_SECONDS):
                return
            with self._lock:  # stop() may have begun during the pause
                if self._stopping.is_set():
                    return
                self._spawn(slot)

    def wake(self) -> None:
        """A mail was stored: one byte to each child (dropped when its pipe is full)."""
        with self._lock:
            children = [c for c in self._children if c is not None]
        for child in children:
            try:
                assert child.stdin is not None
                os.write(child.stdin.fileno(), b"w")
            except (BlockingIOError, BrokenPipeError, OSError, ValueError):
                pass  # already has wake-ups pending, or gone (its monitor restarts it)

    def stop(self) -> None:
        """End of file to every child, then wait for each to finish its message (or bot job)
        in hand; a child still busy ``stop_seconds`` later is killed, so ``judge serve``
        stops in bounded time: what it had in hand rolls back and is done again after the
        restart, as after a crash."""
        with self._lock:
            self._stopping.set()
            children = [c for c in self._children if c is not None]
        for child in children:
            _close(child.stdin)
        deadline = time.monotonic() + self.stop_seconds
        for child in children:
            try:
                child.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("%s process %d still busy %.0f s after it was told to stop: killed (what it had "
                            "in hand is done again after the restart)", self.kind, child.pid, self.stop_seconds)
                child.kill()
                child.wait()
        for monitor in self._monitors:
            monitor.join(timeout=10)
        log.info("%s processes stopped", self.kind)


def processed_signals(received: bytes) -> tuple[list[bytes], bytes, Processed]:
    """What a child wrote, read so far: its complete told lines, the start of one not yet
    complete, and what the processed bytes among them said together."""
    *lines, rest = received.split(b"\n")
    said = Processed()
    told = []
    for piece in (*lines, rest):
        text = piece.lstrip(_PROCESSED_BYTES)
        for byte in piece[:len(piece) - len(text)]:
            said |= _PROCESSED_OF[byte]
        if text and piece is not rest:
            told.append(text)
    return told, rest.lstrip(_PROCESSED_BYTES), said


def _close(stream: IO[bytes] | None) -> None:
    try:
        if stream is not None:
            stream.close()
    except OSError:
        pass


def _die_with_parent(parent: int) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the stdin end of file still stops us
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


@dataclass(frozen=True)
class ChildSignals:
    """A child's side of the two pipes: ``stop`` (end of file on stdin, SIGTERM, SIGINT),
    ``wake`` (a byte on stdin), ``processed(what)`` (a byte to the parent),
    ``tell(line)`` (a line to the parent; the processed bytes around it are not part of it)."""

    stop: threading.Event
    wake: threading.Event
    processed: Callable[[Processed], None]
    tell: Callable[[bytes], None]  # one line to the parent's ``on_line``


def child_signals() -> ChildSignals:
    """Set up a child of ``WorkerProcesses``: die with the parent, stray prints to the log,
    wake-ups read from stdin."""
    _die_with_parent(os.getppid())
    notify = os.dup(1)
    os.dup2(2, 1)  # stray prints go to the log, never into the notification pipe
    sys.stdout = sys.stderr
    stop, wake = threading.Event(), threading.Event()

    def on_signal(_signum: int, _frame: object) -> None:
        stop.set()
        wake.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)

    def read_wakeups() -> None:
        while True:
            try:
                data = os.read(0, 4096)
            except OSError:
                data = b""
            if not data:
                stop.set()
            wake.set()
            if not data:
                return

    def write(data: bytes) -> None:
        try:
            os.write(notify, data)
        except OSError:
            pass  # the parent is gone; we are about to be stopped

    threading.Thread(target=read_wakeups, name="wakeups", daemon=True).start()
    return ChildSignals(stop, wake, lambda processed: write(_BYTE_OF[processed]), lambda line: write(line + b"\n"))


def run_child(settings: Settings, clock: Callable[[], datetime]) -> int:
    """The worker process: the Worker loop until end of file on stdin or SIGTERM/SIGINT."""
    from judge.commands.daide_ports import configure_ports
    from judge.daemon.hooks import after_commit_hook, default_process_hook
    from judge.mailauth.bounces import configure_bounces
    from judge.phases.bot_moves import StoredJobsWatch
    from judge.store.engine import Store
    from judge.daemon.worker import Worker

    signals = child_signals()
    configure_ports(settings.daide)  # RULE MACHINES gives a game its DAIDE port in the mail's transaction
    configure_bounces(settings.mail)  # how many bounces make an address unreachable
    store = Store(settings.store_url, writer_lock=writer_lock_path(settings))
    bot_jobs = StoredJobsWatch()
    phases = PhasePasses(after_commit_hook(settings, store))
    try:
        worker = Worker(store, settings.judge, default_process_hook(settings), clock=clock,
                        pause_before_commit=settings.worker.pause_before_commit_seconds,
                        on_processed=lambda: signals.processed(Processed(phases.ran(), bot_jobs.moved())),
                        max_attempts=settings.worker.max_attempts, after_commit=phases.hook)
        log.info("worker process %d running", os.getpid())
        gc.freeze()  # as judge serve does: what lives as long as the process, out of full collections
        worker.run(signals.stop, signals.wake, settings.worker.poll_seconds)
    finally:
        store.dispose()
    log.info("worker process %d stopped", os.getpid())
    return 0
