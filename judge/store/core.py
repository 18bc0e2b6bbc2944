"""Core statements on the models, typed as precisely as they run: a model's ``Table``, and
how many rows an UPDATE or DELETE run through a session matched.

SQLAlchemy's hints are wider than what the judge gives them (``__table__`` is any
``FromClause``; ``Session.execute`` returns a ``Result`` for every statement); these two
narrow them once, with a check, so callers need neither casts nor ignores.
"""

from __future__ import annotations

from sqlalchemy import CursorResult, Delete, Table, Update
from sqlalchemy.orm import Session

from judge.store.base import Base


def table_of(model: type[Base]) -> Table:
    """The ``Table`` a declarative model maps (every model of the judge maps one table)."""
    table = model.__table__
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} maps {type(table).__name__}, not a Table")
    return table


def rows_changed(session: Session, statement: Update | Delete) -> int:
    """Run ``statement`` in ``session``; how many rows it matched."""
    result = session.execute(statement)
    if not isinstance(result, CursorResult):  # a DML statement without RETURNING gives one
        raise TypeError(f"{type(result).__name__} of an UPDATE/DELETE has no row count")
    return result.rowcount
