"""``judge db upgrade`` / ``judge db status``: the schema of the configured database."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from judge.cli.options import add_config_argument, report_database_problem, settings_from

if TYPE_CHECKING:  # SQLAlchemy is imported when a command runs, not when `judge` starts
    from sqlalchemy.engine import Engine

T = TypeVar("T")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("db", help="database schema: upgrade, status")
    commands = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    upgrade = commands.add_parser("upgrade", help="create or upgrade the schema to this version")
    add_config_argument(upgrade)
    upgrade.set_defaults(func=run_upgrade)
    status = commands.add_parser("status", help="show the schema revision of the database")
    add_config_argument(status)
    status.set_defaults(func=run_status)


def _on_database(args: argparse.Namespace, work: Callable[[Engine], T]) -> tuple[str, T] | None:
    """``work`` done on the configured database, with its URL to show (password hidden);
    None when the settings cannot be read.  No schema check: these commands manage it."""
    from judge.config import make_data_dir
    from judge.store.engine import Store

    settings = settings_from(args)
    if settings is None:
        return None
    try:
        make_data_dir(settings)
        store = Store(settings.store_url)
        try:
            return store.engine.url.render_as_string(hide_password=True), work(store.engine)
        finally:
            store.dispose()
    except Exception as exc:
        report_database_problem(exc, settings, "db")
        return None


def run_upgrade(args: argparse.Namespace) -> int:
    from judge.store.schema import current_revision, head_revision, upgrade

    def migrate(engine: Engine) -> tuple[str | None, str | None]:
        before = current_revision(engine)
        upgrade(engine)
        return before, current_revision(engine)

    done = _on_database(args, migrate)
    if done is None:
        return 2
    where, (before, after) = done
    if before == after:
        print(f"{where}: already at revision {after} (head {head_revision()})")
    else:
        print(f"{where}: upgraded from {before or 'an empty database'} to revision {after}")
    return 0


def run_status(args: argparse.Namespace) -> int:
    from judge.store.schema import current_revision, head_revision

    done = _on_database(args, current_revision)
    if done is None:
        return 2
    where, current = done
    head = head_revision()
    print(f"{where}: database revision: {current or 'none (empty)'}; this judge needs: {head}")
    return 0 if current == head else 1
