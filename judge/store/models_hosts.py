"""Tables for several judges on one database: who holds leases, and the judge's key.

``LeaseOwner`` is one running process that may lease outbox rows (a ``judge serve``):
its identity is enough for another process to tell whether it is still alive (same
process table: its pid and start time; elsewhere: its heartbeat).  ``JudgeKeyRecord``
is the one key pair every host of this judge signs with.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base


class LeaseOwner(Base):
    """A live (or recently live) process that leases rows; see judge.store.leases."""

    __tablename__ = "lease_owner"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    host: Mapped[str] = mapped_column(String(255))
    # Which process table ``pid`` belongs to (boot id and pid namespace): another process
    # may only look the pid up when it sees the same table.
    process_table: Mapped[str] = mapped_column(String(100))
    pid: Mapped[int]
    pid_started: Mapped[int | None]  # the process's start time in clock ticks (Linux), against pid reuse
    started_at: Mapped[datetime]
    heartbeat_at: Mapped[datetime]


class JudgeKeyRecord(Base):
    """The judge's signing key as the first host recorded it (one row, id 1)."""

    __tablename__ = "judge_key"

    id: Mapped[int] = mapped_column(primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    public_key: Mapped[str] = mapped_column(Text)
    recorded_at: Mapped[datetime]
    recorded_by: Mapped[str] = mapped_column(String(255))
