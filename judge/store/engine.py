"""Engine and session setup for SQLite (WAL, busy timeout) and PostgreSQL (psycopg 3).

SQLite transactions begin with ``BEGIN IMMEDIATE``: writers queue on the busy timeout
instead of failing when a read transaction later wants to write (the classic
SQLITE_BUSY on lock upgrade), which is what several daemon threads would otherwise hit.

SQLite's busy wait is not a queue: a waiter sleeps and retries, and a thread that commits
and begins again at once (the worker with a backlog) wins nearly every time.  Under load
the SMTP intake then waited out the busy timeout and answered 451.  So on SQLite,
``Store.unit_of_work`` first takes a first-come-first-served turn (``WriteTurns``) among
the process's threads.  When several processes write (``judge serve`` with worker
processes), ``Store(..., writer_lock=path)`` adds an exclusive ``flock`` on that file to
each outermost turn: the kernel hands it to a blocked waiter, while SQLite's sleep-and-retry
would let the busy worker process win nearly every time.

Durability: WAL with ``synchronous=NORMAL`` survives a crash of the process but may lose
the last commits on a power failure.  That is acceptable for everything the judge can
redo, but not for a stored mail: its SMTP 250 (or IMAP \\Seen) tells the sender to
forget it.  ``unit_of_work(durable=True)`` (used by intake) returns only once its commit,
and with it every earlier commit, is on disk.  On a SQLite file in WAL mode it commits
with ``synchronous=NORMAL`` (the commit's frames are written to the ``-wal`` file, not
synced) and then, after giving back the write turn, fsyncs the ``-wal`` file itself: the
fsync (about 3.5 ms here) no longer holds SQLite's single write lock, so the worker
writes meanwhile, and fsyncs of concurrent intakes overlap.  That is as durable as
``synchronous=FULL``: a commit in WAL mode is complete once its frames are in the WAL;
the WAL is only rewound or deleted after a checkpoint has copied it into the database
file and synced that (which NORMAL does after every completed checkpoint), so frames
that are gone from the WAL are already durable in the database file (synced again here
when the WAL file is missing).  Other SQLite databases (in memory, ``file:`` URIs, a
journal mode other than WAL) commit a durable unit with ``synchronous=FULL`` as before.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections import deque
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 30_000
#: Execution option naming the ``PRAGMA synchronous`` level of a SQLite transaction.
SYNCHRONOUS_OPTION = "judge_sqlite_synchronous"
DEFAULT_SYNCHRONOUS = "NORMAL"
DURABLE_SYNCHRONOUS = "FULL"
#: An execution option: the transaction only reads, so SQLite's BEGIN is deferred (no write lock).
READ_ONLY_OPTION = "judge_read_only"


#: Connections a judge process keeps open to a database server: as many as its threads use
#: at once (the SMTP intake's executor, worker, sender, scheduler, lease keeper), so that a
#: burst of mail does not open and close one per transaction (a fork and a password handshake
#: on PostgreSQL each; SQLAlchemy's default of 5 did so at saturation).
SERVER_POOL_SIZE = 15
#: More opened for a burst beyond that, and closed after it.
SERVER_POOL_OVERFLOW = 10


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; a SQLite file's parent directory is created if missing."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        kwargs.setdefault("pool_pre_ping", True)
        kwargs.setdefault("pool_size", SERVER_POOL_SIZE)
        kwargs.setdefault("max_overflow", SERVER_POOL_OVERFLOW)
        return create_engine(url, **kwargs)
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    kwargs.setdefault("connect_args", {}).setdefault("timeout", SQLITE_BUSY_TIMEOUT_MS / 1000)
    engine = create_engine(url, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, record: Any) -> None:
        # Let SQLAlchemy's "begin" event below emit BEGIN, not the sqlite3 module.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA synchronous={DEFAULT_SYNCHRONOUS}")
        cursor.close()
        record.info[SYNCHRONOUS_OPTION] = DEFAULT_SYNCHRONOUS

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        if connection.get_execution_options().get(READ_ONLY_OPTION):
            # A reader in WAL mode sees the last commit and blocks no writer: no lock to take.
            connection.exec_driver_sql("BEGIN")
            return
        # The level cannot change inside a transaction: set it for this one first (only
        # when it differs from the connection's current level: a statement per transaction).
        level = connection.get_execution_options().get(SYNCHRONOUS_OPTION, DEFAULT_SYNCHRONOUS)
        current = connection.connection.info
        if current.get(SYNCHRONOUS_OPTION) != level:
            connection.exec_driver_sql(f"PRAGMA synchronous={level}")
            current[SYNCHRONOUS_OPTION] = level
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def wal_file(engine: Engine) -> Path | None:
    """The ``-wal`` file of a SQLite database file in WAL mode; None for anything else."""
    database = engine.url.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    with engine.connect() as connection:
        mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
    if str(mode).lower() != "wal":
        return None
    return Path(database).expanduser().absolute().with_name(Path(database).name + "-wal")


def sync_wal(wal: Path) -> None:
    """Make every commit so far durable: fsync the WAL, or, when the last connection has
    checkpointed and removed it, the database file it was copied into."""
    try:
        descriptor = os.open(wal, os.O_RDONLY)
    except FileNotFoundError:
        descriptor = os.open(wal.with_name(wal.name[: -len("-wal")]), os.O_RDONLY)
    try:
        os.fsync(descriptor)  # waits without the GIL
    finally:
        os.close(descriptor)


class WriteTurns:
    """A first-come-first-served lock, re-entrant per thread (a nested unit of work of the
    same thread must not wait for itself).

    Each waiter blocks on a gate of its own, and the owner giving the turn back opens only
    the next one: a condition variable's notify_all woke every waiting thread (up to six
    intake threads, the worker and the sender) at each turn, each taking the GIL only to
    wait again.
    """

    def __init__(self, lock_path: Path | None = None) -> None:
        # One open file per process: flock excludes other open files, including the
        # other processes' (and a second Store's in this process).
        self._lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600) if lock_path is not None else None
        self._guard = threading.Lock()
        self._waiting: deque[tuple[int, threading.Lock]] = deque()  # (thread, its closed gate)
        self._owner: int | None = None
        self._depth = 0

    @property
    def waiting(self) -> int:
        """How many threads wait for a turn."""
        with self._guard:
            return len(self._waiting)

    @contextmanager
    def turn(self) -> Iterator[None]:
        me = threading.get_ident()
        gate: threading.Lock | None = None
        with self._guard:
            if self._owner == me:
                self._depth += 1
                nested = True
            else:
                nested = False
                if self._owner is None and not self._waiting:
                    self._owner, self._depth = me, 1
                else:
                    gate = threading.Lock()
                    gate.acquire()
                    self._waiting.append((me, gate))
        if gate is not None:
            gate.acquire()  # opened by the previous owner, who made this thread the owner
        if not nested and self._lock_fd is not None:
            try:
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX)  # waits without the GIL
            except BaseException:
                self._release()
                raise
        try:
            yield
        finally:
            if not nested and self._lock_fd is not None:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            self._release()

    def _release(self) -> None:
        with self._guard:
            self._depth -= 1
            if self._depth > 0:
                return
            if self._waiting:
                self._owner, gate = self._waiting.popleft()
                self._depth = 1
                gate.release()
            else:
                self._owner = None

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


class Store:
    """The database of one judge: an engine and its session factory.

    ``unit_of_work()`` is the only way the daemon writes: one transaction, committed when
    the block ends normally, rolled back when it raises.
    """

    def __init__(self, url: str, *, writer_lock: Path | None = None, **engine_kwargs: Any) -> None:
        """``writer_lock``: a file whose flock every SQLite write turn also takes (when
        other processes write to the same database)."""
        from judge.store.models import load_models
        from judge.store.schedule import watch

        # Every model module, so foreign keys between modules resolve (outbox -> game).
        load_models()
        self.url = url
        self.engine = make_engine(url, **engine_kwargs)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        is_sqlite = self.engine.dialect.name == "sqlite"
        self._wal_file = wal_file(self.engine) if is_sqlite else None
        self._durable_engine = self.engine.execution_options(
            **{SYNCHRONOUS_OPTION: DURABLE_SYNCHRONOUS}) if is_sqlite and self._wal_file is None else self.engine
        self._durable_sessions = sessionmaker(self._durable_engine, expire_on_commit=False) \
            if self._durable_engine is not self.engine else self.sessions
        self._turns = WriteTurns(writer_lock) if is_sqlite else None
        self._reading_engine = self.engine.execution_options(**{READ_ONLY_OPTION: True})
        for factory in {self.sessions, self._durable_sessions}:
            watch(factory)  # touched games are rescheduled when a transaction commits

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def writers_waiting(self) -> bool:
        """Whether other threads of this process wait for a SQLite write turn (False on
        other databases): a long unit of work may give its turn back early for them."""
        return self._turns is not None and self._turns.waiting > 0

    @contextmanager
    def _write_turn(self, durable: bool) -> Iterator[None]:
        """This thread's SQLite write turn around a transaction; a durable one is synced
        after the turn is given back (other writers go on meanwhile)."""
        if self._turns is None:
            yield
            return
        with self._turns.turn():
            yield
        if durable and self._wal_file is not None:
            sync_wal(self._wal_file)

    @contextmanager
    def write_turn(self) -> Iterator[None]:
        """This thread's SQLite write turn held across several units of work (they nest in
        it, committing each as usual), so no other writer comes between them; a no-op on
        PostgreSQL, whose writers take no turns."""
        with self._write_turn(durable=False):
            yield

    @contextmanager
    def unit_of_work(self, *, durable: bool = False, now: datetime | None = None) -> Iterator[Session]:
        """One transaction; ``durable``: synced to disk when this returns, even on SQLite
        (for what an edge is about to acknowledge).  ``now``: the transaction's clock; the
        games it touched are rescheduled at commit (judge/store/schedule.py), which the
        owner may also set later as ``session.info[schedule.NOW]``."""
        factory = self._durable_sessions if durable else self.sessions
        with self._write_turn(durable):
            with factory() as session:
                if now is not None:
                    session.info["now"] = now  # judge.store.schedule.NOW
                with session.begin():
                    yield session

    @contextmanager
    def core_unit_of_work(self, *, durable: bool = False) -> Iterator[Connection]:
        """``unit_of_work`` on a plain Core connection, without an ORM session (intake's two
        statements per mail: the session's own bookkeeping cost as much as they did)."""
        with self._write_turn(durable):
            with (self._durable_engine if durable else self.engine).begin() as connection:
                yield connection

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A transaction that only reads, on a plain Core connection: no write turn, and on
        SQLite a deferred BEGIN, so it takes no write lock (a thread that polls while
        intake and the worker write must not queue with them).  Writing in it is a bug."""
        with self._reading_engine.begin() as connection:
            yield connection

    def dispose(self) -> None:
        self.engine.dispose()
        if self._turns is not None:
            self._turns.close()
