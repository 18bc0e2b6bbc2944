"""Engine and session setup for SQLite (WAL, busy timeout) and PostgreSQL (psycopg 3).

SQLite transactions begin with ``BEGIN IMMEDIATE``: writers queue on the busy timeout
instead of failing when a read transaction later wants to write (the classic
SQLITE_BUSY on lock upgrade), which is what several daemon threads would otherwise hit.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; a SQLite file's parent directory is created if missing."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        kwargs.setdefault("pool_pre_ping", True)
        return create_engine(url, **kwargs)
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    kwargs.setdefault("connect_args", {}).setdefault("timeout", SQLITE_BUSY_TIMEOUT_MS / 1000)
    engine = create_engine(url, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below emit BEGIN, not the sqlite3 module.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


class Store:
    """The database of one judge: an engine and its session factory.

    ``unit_of_work()`` is the only way the daemon writes: one transaction, committed when
    the block ends normally, rolled back when it raises.
    """

    def __init__(self, url: str, **engine_kwargs: Any) -> None:
        from judge.store.models import load_models

        # Every model module, so foreign keys between modules resolve (outbox -> game).
        load_models()
        self.url = url
        self.engine = make_engine(url, **engine_kwargs)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def unit_of_work(self) -> Iterator[Session]:
        with self.sessions() as session:
            with session.begin():
                yield session

    def dispose(self) -> None:
        self.engine.dispose()
