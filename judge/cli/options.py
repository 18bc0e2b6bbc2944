"""Options shared by the daemon's commands: ``--config``, loading the settings, the
``--clock-file`` clock and opening the store (each refusal printed for the user)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Callable

from judge.daemon import logthrottle
from judge.config import ConfigError, Settings, load_settings

if TYPE_CHECKING:  # the store is imported when a command runs, not when `judge` starts
    from judge.store.engine import Store


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", metavar="FILE", default=os.environ.get("JUDGE_CONFIG"),
        help="judge.toml to read (default: $JUDGE_CONFIG, else built-in defaults); "
             "JUDGE_<SECTION>_<KEY> variables override it",
    )


def settings_from(args: argparse.Namespace) -> Settings | None:
    """The settings, or None after printing why they cannot be read."""
    try:
        return load_settings(args.config)
    except ConfigError as exc:
        print(f"judge: configuration error: {exc}", file=sys.stderr)
        return None


def row_number(value: str, command: str, what: str) -> int | None:
    """``value`` as a row number, or None after printing ``judge COMMAND: 'VALUE' is not
    WHAT``: the numbered rows' commands (shunt retry, outbox retry) read it alike."""
    try:
        return int(value)
    except ValueError:
        print(f"judge {command}: {value!r} is not {what}", file=sys.stderr)
        return None


def clock_from(args: argparse.Namespace, command: str) -> Callable[[], datetime] | None:
    """The ``--clock-file`` clock (TEST ONLY) or the real UTC clock; None after printing
    why the clock file cannot be used."""
    from judge.daemon.clockfile import ClockFileError, FileClock
    from judge.mailio.inbound import utc_now

    try:
        return FileClock(args.clock_file) if getattr(args, "clock_file", None) else utc_now
    except ClockFileError as exc:
        print(f"judge {command}: {exc}", file=sys.stderr)
        return None


def store_from(settings: Settings, command: str, *, initialise_empty: bool = False) -> Store | None:
    """The settings' store at the code's schema (``judge.daemon.serve.open_store``); None after
    printing why not, e.g. a database that needs ``judge db upgrade``."""
    from judge.daemon.serve import open_store
    from judge.store.schema import SchemaNotCurrent

    try:
        return open_store(settings, initialise_empty=initialise_empty)
    except SchemaNotCurrent as exc:
        print(f"judge {command}: {exc}", file=sys.stderr)
    except Exception as exc:
        report_database_problem(exc, settings, command)
    return None


def on_store(settings: Settings, command: str, body: Callable[[Store], int]) -> int:
    """``body(store)``'s exit status on the settings' store, disposed of after; 1 when the
    store cannot be opened (``store_from`` printed why)."""
    store = store_from(settings, command)
    if store is None:
        return 1
    try:
        return body(store)
    finally:
        store.dispose()


def on_numbered_row(args: argparse.Namespace, value: str, command: str, what: str,
                    body: Callable[[Store, int], int]) -> int:
    """``body(store, number)`` for the commands that act on one numbered row (``judge shunt
    retry ID``, ``judge outbox retry ID``): 2 when the settings or the number cannot be read,
    else as ``on_store``."""
    settings = settings_from(args)
    if settings is None:
        return 2
    number = row_number(value, command, what)
    if number is None:
        return 2
    return on_store(settings, command.split()[0], lambda store: body(store, number))


def report_database_problem(exc: Exception, settings: Settings, command: str) -> None:
    """Print why the configured database cannot be used; ``exc`` is raised again when it is
    not a database or configuration problem (a bug must keep its traceback)."""
    problem = database_problem(exc, settings)
    if problem is None:
        raise exc
    print(f"judge {command}: {problem}", file=sys.stderr)


def database_problem(exc: BaseException, settings: Settings) -> str | None:
    """One line saying why the configured database cannot be used, for the errors a
    configuration or a database causes; None for anything else (a bug)."""
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    if isinstance(exc, (ArgumentError, NoSuchModuleError)):
        return (f"[store] url {_shown(settings.store_url)!r} is not a database URL this judge can use "
                "(sqlite:///FILE or postgresql+psycopg://USER@HOST/DB)")
    if isinstance(exc, SQLAlchemyError):
        problem = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        return f"cannot use the database {_shown(settings.store_url)}: {problem}"
    return None


def _shown(url: str) -> str:
    """A database URL without its password."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(the configured URL)"


def setup_logging() -> None:
    logging.basicConfig(
        level=os.environ.get("JUDGE_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # aiosmtpd logs every connection at INFO, alembic every migration step.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    logthrottle.install()  # the same warning from the same place at most 10 times a minute
