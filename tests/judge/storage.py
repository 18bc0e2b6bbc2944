"""Helpers for daemon tests: a migrated SQLite store in a temp dir, mail builders, the
outbox read back."""

from __future__ import annotations

import atexit
import email
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path

from sqlalchemy import select

from judge.store.engine import Store
from judge.store.models_mail import OutboxMessage
from judge.store.schema import upgrade


_template: Path | None = None


def _migrated_template() -> Path:
    """A SQLite file that every Alembic revision has run on, built once per process.

    Running the migrations costs about half a second; hundreds of tests start from a fresh
    store, so they start from a byte copy of this file instead. The migrations themselves
    are proven by tests/judge/test_migrations.py (and by every test that runs ``judge db
    upgrade``)."""
    global _template
    if _template is None:
        folder = Path(tempfile.mkdtemp(prefix="dipjudge-schema-"))
        atexit.register(shutil.rmtree, folder, True)
        built = folder / "template.db"
        store = Store(f"sqlite:///{built}")
        upgrade(store.engine)
        store.dispose()
        # Fold the WAL into the file, so that the file alone is the whole database.
        with sqlite3.connect(built) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        _template = built
    return _template


def migrated_store(directory: Path, name: str = "judge.db") -> Store:
    """A store at the code's head revision in ``directory``: a new one is a copy of a
    migrated file (in WAL mode, as the judge's own are); an existing one is upgraded."""
    target = directory / name
    if target.exists():
        store = Store(f"sqlite:///{target}")
        upgrade(store.engine)
        return store
    shutil.copyfile(_migrated_template(), target)
    return Store(f"sqlite:///{target}")


@dataclass(frozen=True)
class Queued:
    """One outbox row read back: its recipients, kind, bytes and the parsed message."""

    recipients: tuple[str, ...]
    kind: str
    raw: bytes
    message: EmailMessage


def newest_outbox_id(store: Store) -> int:
    """The id of the last outbox row (0 for none): pass it to :func:`outbox_after`."""
    with store.unit_of_work() as session:
        return session.execute(select(OutboxMessage.id).order_by(OutboxMessage.id.desc()).limit(1)).scalar() or 0


def outbox_after(store: Store, last: int) -> list[Queued]:
    """The outbox rows queued after row ``last``, oldest first."""
    with store.unit_of_work() as session:
        rows = session.execute(
            select(OutboxMessage).where(OutboxMessage.id > last).order_by(OutboxMessage.id)
        ).scalars().all()
        return [Queued(tuple(row.recipients), row.kind, row.raw,
                       email.message_from_bytes(row.raw, policy=default_policy))
                for row in rows]


def make_mail(subject: str = "hello", body: str = "LIST\n", sender: str = "anna@example.net",
              to: str = "judge@example.org", message_id: str | None = "auto",
              extra: dict[str, str] | None = None) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    if message_id == "auto":
        message["Message-ID"] = make_msgid(domain="example.net")
    elif message_id is not None:
        message["Message-ID"] = message_id
    for name, value in (extra or {}).items():
        message[name] = value
    message.set_content(body)
    # SMTP carries CRLF line ends; tests compare stored bytes with these.
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
