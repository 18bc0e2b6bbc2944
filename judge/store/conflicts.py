"""Which database errors mean "another transaction got in the way; try again".

A transaction that fails for one of these reasons did nothing (it was rolled back) and may
succeed if run again from scratch: the optimistic version check on a game
(``StaleDataError``, see judge.store.models_game.Game), PostgreSQL's serialization
failures, deadlocks and NOWAIT lock failures, and SQLite's busy timeout running out
("database is locked").  Anything else is a bug or bad data, and retrying would not help.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm.exc import StaleDataError

__all__ = ["CONFLICT_SQLSTATES", "is_conflict"]

#: serialization_failure, deadlock_detected, lock_not_available
CONFLICT_SQLSTATES = frozenset({"40001", "40P01", "55P03"})
SQLITE_BUSY_MESSAGE = "database is locked"


def _is_conflict_here(error: BaseException) -> bool:
    if isinstance(error, StaleDataError):
        return True
    if isinstance(error, sqlite3.OperationalError):
        return SQLITE_BUSY_MESSAGE in str(error)
    # psycopg 3 errors carry the SQLSTATE; reading it keeps psycopg an optional import.
    return getattr(error, "sqlstate", None) in CONFLICT_SQLSTATES


def is_conflict(error: BaseException) -> bool:
    """Whether ``error`` (or the error it wraps or was raised while handling) is a
    concurrency conflict that a fresh attempt of the same transaction may not meet."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _is_conflict_here(current):
            return True
        if isinstance(current, DBAPIError) and isinstance(current.orig, BaseException):
            if _is_conflict_here(current.orig):
                return True
        current = current.__cause__ or current.__context__
    return False
