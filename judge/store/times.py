"""Stored moments: every datetime in the database is UTC."""

from __future__ import annotations

from datetime import datetime, timezone


def as_utc(moment: datetime) -> datetime:
    """Stored datetimes come back naive from SQLite: they are UTC."""
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
