"""Frozen settings of the judge daemon, read from a TOML file and ``JUDGE_<SECTION>_<KEY>``.

Precedence, lowest first: the defaults below, the TOML file (``--config``), the
environment.  Every key of every section can be set from the environment, e.g.
``JUDGE_STORE_URL`` or ``JUDGE_IMAP_HOST``; the names are relied on by deploy scripts, so
renaming one is a breaking change.  With no file and no environment the judge runs on a
SQLite file ``./judge.db``, listens on 127.0.0.1:2525 and writes mail into ``./outbox/``.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

ENV_PREFIX = "JUDGE_"


class ConfigError(ValueError):
    """A configuration file or variable that cannot be used; the message says why."""


@dataclass(frozen=True)
class JudgeSettings:
    """Who the judge is: its mail address, display name and domain (for Message-IDs)."""

    address: str = "judge@localhost"
    name: str = "Diplomacy Judge"
    domain: str = "localhost"
    data_dir: str = "."


@dataclass(frozen=True)
class StoreSettings:
    """Any SQLAlchemy URL; empty means the SQLite file ``judge.db`` in ``[judge] data_dir``."""

    url: str = ""


@dataclass(frozen=True)
class SmtpSettings:
    """The SMTP listener mail arrives on (an MTA relays the judge's domain to it)."""

    host: str = "127.0.0.1"
    port: int = 2525
    max_message_bytes: int = 10 * 1024 * 1024


@dataclass(frozen=True)
class OutboundSettings:
    """How replies leave: through a relay, or as .eml files in a Maildir-style folder."""

    relay_host: str = ""
    relay_port: int = 25
    username: str = ""
    password: str = ""
    starttls: bool = False
    outbox_dir: str = "outbox"
    retry_base_seconds: float = 60.0
    max_attempts: int = 12
    poll_seconds: float = 1.0


@dataclass(frozen=True)
class ImapSettings:
    """The IMAP poller; it runs only when ``host`` is set."""

    host: str = ""
    port: int = 143
    username: str = ""
    password: str = ""
    ssl: bool = False
    folder: str = "INBOX"
    idle: bool = False
    poll_seconds: float = 60.0
    move_to: str = ""


@dataclass(frozen=True)
class SchedulerSettings:
    """The periodic pass (deadlines, processing); ``handler`` is ``module:function``."""

    tick_seconds: float = 1200.0
    handler: str = "judge.turns.scheduler:run_pass"


@dataclass(frozen=True)
class WorkerSettings:
    """The inbox worker.  ``handler`` is ``module:function`` processing one message.

    ``pause_before_commit_seconds`` exists for crash tests only: the worker sleeps
    between processing a message and committing it.
    """

    handler: str = "judge.services:process_mail"
    poll_seconds: float = 1.0
    pause_before_commit_seconds: float = 0.0


@dataclass(frozen=True)
class Settings:
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    smtp: SmtpSettings = field(default_factory=SmtpSettings)
    outbound: OutboundSettings = field(default_factory=OutboundSettings)
    imap: ImapSettings = field(default_factory=ImapSettings)
    scheduler: SchedulerSettings = field(default_factory=SchedulerSettings)
    worker: WorkerSettings = field(default_factory=WorkerSettings)

    @property
    def store_url(self) -> str:
        """The effective database URL (the default SQLite file lives in data_dir)."""
        if self.store.url:
            return self.store.url
        return f"sqlite:///{Path(self.judge.data_dir) / 'judge.db'}"

    @property
    def outbox_path(self) -> Path:
        """The Maildir-style outbox; a relative path is taken from data_dir."""
        return Path(self.judge.data_dir) / self.outbound.outbox_dir


_SECTION_CLASSES: dict[str, type] = {
    "judge": JudgeSettings,
    "store": StoreSettings,
    "smtp": SmtpSettings,
    "outbound": OutboundSettings,
    "imap": ImapSettings,
    "scheduler": SchedulerSettings,
    "worker": WorkerSettings,
}


def all_keys() -> list[tuple[str, str, type, Any]]:
    """Every (section, key, type, default): used by the documentation test."""
    rows = []
    for section, cls in _SECTION_CLASSES.items():
        for f in dataclasses.fields(cls):
            rows.append((section, f.name, _field_type(cls, f.name), f.default))
    return rows


def _field_type(cls: type, name: str) -> type:
    default = next(f.default for f in dataclasses.fields(cls) if f.name == name)
    return type(default)


def _coerce(value: Any, wanted: type, where: str) -> Any:
    """Convert a TOML value or an environment string to the field's type."""
    if wanted is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off", ""):
            return False
        raise ConfigError(f"{where}: {value!r} is not a boolean (use true or false)")
    if wanted is int:
        if isinstance(value, bool):
            raise ConfigError(f"{where}: {value!r} is not a whole number")
        try:
            return int(str(value).strip()) if not isinstance(value, int) else value
        except ValueError:
            raise ConfigError(f"{where}: {value!r} is not a whole number (e.g. 2525)") from None
    if wanted is float:
        if isinstance(value, bool):
            raise ConfigError(f"{where}: {value!r} is not a number")
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: {value!r} is not a number of seconds (e.g. 60)") from None
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {value!r} is not text (put it in quotes)")
    return value


def _section_values(section: str, given: Mapping[str, Any], where: str) -> dict[str, Any]:
    cls = _SECTION_CLASSES[section]
    names = [f.name for f in dataclasses.fields(cls)]
    values: dict[str, Any] = {}
    for key, value in given.items():
        if key not in names:
            raise ConfigError(
                f"{where}: unknown key {key!r} in [{section}]; known keys: {', '.join(names)}"
            )
        values[key] = _coerce(value, _field_type(cls, key), f"{where} [{section}] {key}")
    return values


def load_settings(path: str | os.PathLike[str] | None = None,
                  environ: Mapping[str, str] | None = None) -> Settings:
    """Read defaults <- TOML file <- environment into a frozen ``Settings``."""
    environ = os.environ if environ is None else environ
    merged: dict[str, dict[str, Any]] = {name: {} for name in _SECTION_CLASSES}
    if path is not None:
        file_path = Path(path)
        try:
            data = tomllib.loads(file_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"configuration file {str(file_path)!r} does not exist") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{file_path}: not valid TOML: {exc}") from None
        for section, table in data.items():
            if section not in _SECTION_CLASSES:
                raise ConfigError(
                    f"{file_path}: unknown section [{section}]; known sections: "
                    + ", ".join(f"[{s}]" for s in _SECTION_CLASSES)
                )
            if not isinstance(table, dict):
                raise ConfigError(f"{file_path}: {section!r} must be a [section] table")
            merged[section].update(_section_values(section, table, str(file_path)))
    for section in _SECTION_CLASSES:
        prefix = f"{ENV_PREFIX}{section.upper()}_"
        from_env = {
            name[len(prefix):].lower(): value
            for name, value in environ.items()
            if name.startswith(prefix)
        }
        merged[section].update(_section_values(section, from_env, f"environment {prefix}*"))
    return Settings(**{s: _SECTION_CLASSES[s](**merged[s]) for s in _SECTION_CLASSES})
