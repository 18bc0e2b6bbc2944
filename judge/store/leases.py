"""Who holds a lease, and releasing the leases of processes that are gone.

A process that leases outbox rows (``judge serve``'s sender) or claims the bot's jobs (a
bot process, judge/daemon/bot_worker.py) registers as a ``LeaseOwner`` and writes its id into
every row it leases.  Any judge process may then
release the rows of an owner that is gone, instead of letting them wait out the lease:

* an owner in the same process table (same boot, same pid namespace) is gone as soon as
  its pid no longer names the process that registered (pid and start time, from /proc);
* an owner elsewhere (another host, another container) is gone when its heartbeat is
  older than ``STALE_AFTER`` (hosts keep their clocks in sync, see README).

Inbound mail needs none of this: a worker claims a mail with a row lock inside the
transaction that processes it, and the database drops that lock with the dead process's
connection.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache

from sqlalchemy import Connection, delete, insert, select, update

from judge.store.core import table_of
from judge.store.engine import Store
from judge.store.models_bots import BotJob
from judge.store.models_hosts import LeaseOwner
from judge.store.models_mail import QUEUED, OutboxMessage

log = logging.getLogger("judge.leases")

#: How often a live owner writes its heartbeat.
HEARTBEAT_SECONDS = 5.0
#: An owner in another process table whose heartbeat is older than this is gone.
STALE_AFTER = timedelta(seconds=30)

_OWNERS = table_of(LeaseOwner)
_OUTBOX = table_of(OutboxMessage)
_BOT_JOBS = table_of(BotJob)


def wall_clock() -> datetime:
    """Heartbeats are about processes, not game time: always the real clock."""
    return datetime.now(timezone.utc)


@lru_cache(maxsize=1)
def process_table() -> str:
    """An id of the process table this process sees: the boot id and the pid namespace."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as file:
            boot = file.read().strip()
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:  # not Linux: the host name stands in for both
        return f"host:{socket.gethostname()}"[:100]
    return f"{boot}:{namespace}"


def pid_started(pid: int) -> int | None:
    """When ``pid`` started (clock ticks after boot), or None when there is no such live
    process (a zombie counts as gone) or /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rindex(b")") + 2:].split()
    if fields[0] == b"Z":
        return None
    return int(fields[19])  # field 22 of the whole line


@dataclass(frozen=True)
class Owner:
    """This process as a lease owner."""

    id: str
    host: str
    process_table: str
    pid: int
    pid_started: int | None

    @classmethod
    def this_process(cls) -> "Owner":
        pid = os.getpid()
        return cls(uuid.uuid4().hex, socket.gethostname()[:255], process_table(), pid, pid_started(pid))


def is_alive(owner: Owner, row_heartbeat: datetime, now: datetime) -> bool:
    """Whether the owner described by a lease_owner row may still hold its leases."""
    if owner.process_table == process_table():
        if owner.pid == os.getpid():
            return owner.pid_started == pid_started(owner.pid)
        started = pid_started(owner.pid)
        if started is not None:
            return owner.pid_started is None or started == owner.pid_started
        if os.path.isdir("/proc/self"):
            return False  # /proc works and knows no such process: gone
        try:
            os.kill(owner.pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        return True
    return now - row_heartbeat <= STALE_AFTER


def register(store: Store, owner: Owner, now: datetime | None = None) -> None:
    now = now or wall_clock()
    with store.core_unit_of_work() as connection:
        connection.execute(insert(_OWNERS), {
            "id": owner.id, "host": owner.host, "process_table": owner.process_table, "pid": owner.pid,
            "pid_started": owner.pid_started, "started_at": now, "heartbeat_at": now,
        })


def heartbeat(store: Store, owner: Owner, now: datetime | None = None) -> None:
    """Say this owner is alive (registering it again if another process removed it)."""
    now = now or wall_clock()
    with store.core_unit_of_work() as connection:
        changed = connection.execute(
            update(_OWNERS).where(_OWNERS.c.id == owner.id).values(heartbeat_at=now)).rowcount
    if not changed:
        log.warning("lease owner %s was removed by another judge (heartbeat too late?); registering again",
                    owner.id)
        register(store, owner, now)


def unregister(store: Store, owner: Owner, release_queued: bool = True) -> None:
    """A clean stop: give back this owner's leases (they are due again) and forget it."""
    with store.core_unit_of_work() as connection:
        if release_queued:
            _release(connection, [owner.id], wall_clock())
        connection.execute(delete(_OWNERS).where(_OWNERS.c.id == owner.id))


def _release(connection: Connection, owners: list[str], due: datetime) -> int:
    """Give back the owners' outbox rows (due again) and their unfinished bot jobs (waiting
    again); the number of outbox rows."""
    _free_jobs(connection, owners)
    return connection.execute(
        update(_OUTBOX)
        .where(_OUTBOX.c.leased_by.in_(owners), _OUTBOX.c.status == QUEUED)
        .values(leased_by=None, next_attempt_at=due)
    ).rowcount


def _free_jobs(connection: Connection, owners: list[str]) -> int:
    return connection.execute(
        update(_BOT_JOBS).where(_BOT_JOBS.c.claimed_by.in_(owners), _BOT_JOBS.c.done_at.is_(None))
        .values(claimed_by=None, claimed_at=None)
    ).rowcount


def _gone(connection: Connection, now: datetime) -> list[str]:
    return [row.id for row in connection.execute(select(_OWNERS)).all() if not is_alive(
        Owner(row.id, row.host, row.process_table, row.pid, row.pid_started), row.heartbeat_at, now)]


def release_gone(store: Store, due: datetime, now: datetime | None = None) -> int:
    """Release the outbox leases and bot jobs of every owner that is gone (its rows become
    due at ``due``, the sender's clock) and forget those owners; the number of outbox rows
    released.  Only a process with a sender calls it: the caller must send what it
    released (the judge's lease keeper wakes its sender when this is not 0), since no other
    process learns that the rows are free."""
    now = now or wall_clock()
    with store.core_unit_of_work() as connection:
        gone = _gone(connection, now)
        if not gone:
            return 0
        released = _release(connection, gone, due)
        connection.execute(delete(_OWNERS).where(_OWNERS.c.id.in_(gone)))
    if released:
        log.warning("released %d outbox row(s) leased by %d judge process(es) that are gone", released, len(gone))
    return released


def free_jobs_of_gone(store: Store, now: datetime | None = None) -> int:
    """Give back the bot jobs claimed by owners that are gone (waiting again); the number
    freed.  A bot process calls this, not ``release_gone``: it leaves the owners and their
    outbox leases to a judge's lease keeper.  (When a bot process released a dead judge's
    outbox rows and forgot the owner, no sender was woken for them, and they waited for a
    sender's next poll: tests/integration/test_two_judges.py.)"""
    now = now or wall_clock()
    with store.core_unit_of_work() as connection:
        gone = _gone(connection, now)
        return _free_jobs(connection, gone) if gone else 0
