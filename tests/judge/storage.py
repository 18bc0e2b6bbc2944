"""Helpers for daemon tests: a migrated SQLite store in a temp dir, mail builders."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from judge.store.engine import Store
from judge.store.schema import upgrade


def migrated_store(directory: Path, name: str = "judge.db") -> Store:
    store = Store(f"sqlite:///{directory / name}")
    upgrade(store.engine)
    return store


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
