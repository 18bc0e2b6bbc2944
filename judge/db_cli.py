"""``judge db upgrade`` / ``judge db status``: the schema of the configured database."""

from __future__ import annotations

import argparse
from typing import Any

from judge.cli_options import add_config_argument, settings_from


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("db", help="database schema: upgrade, status")
    commands = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    upgrade = commands.add_parser("upgrade", help="create or upgrade the schema to this version")
    add_config_argument(upgrade)
    upgrade.set_defaults(func=run_upgrade)
    status = commands.add_parser("status", help="show the schema revision of the database")
    add_config_argument(status)
    status.set_defaults(func=run_status)


def run_upgrade(args: argparse.Namespace) -> int:
    from judge.store.engine import Store
    from judge.store.schema import current_revision, head_revision, upgrade

    settings = settings_from(args)
    if settings is None:
        return 2
    store = Store(settings.store_url)
    try:
        before = current_revision(store.engine)
        upgrade(store.engine)
        after = current_revision(store.engine)
    finally:
        store.dispose()
    where = store.engine.url.render_as_string(hide_password=True)
    if before == after:
        print(f"{where}: already at revision {after} (head {head_revision()})")
    else:
        print(f"{where}: upgraded from {before or 'an empty database'} to revision {after}")
    return 0


def run_status(args: argparse.Namespace) -> int:
    from judge.store.engine import Store
    from judge.store.schema import current_revision, head_revision

    settings = settings_from(args)
    if settings is None:
        return 2
    store = Store(settings.store_url)
    try:
        current = current_revision(store.engine)
    finally:
        store.dispose()
    head = head_revision()
    print(f"database revision: {current or 'none (empty)'}; this judge needs: {head}")
    return 0 if current == head else 1
