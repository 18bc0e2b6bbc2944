"""The `judge` command: one sub-command per module, each registering itself.

A command module exposes ``register(subparsers) -> None``; it adds its parser and sets
``func=`` to a callable taking the parsed namespace and returning an exit code.  New
commands are added to ``COMMAND_MODULES`` and nowhere else.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

COMMAND_MODULES: tuple[str, ...] = (
    "judge.adjudicate_cli",  # judge adjudicate
    "judge.serve_cli",  # judge serve
    "judge.tick_cli",  # judge tick
    "judge.db_cli",  # judge db upgrade|status
    "judge.shunt_cli",  # judge shunt list|retry
    "judge.outbox_cli",  # judge outbox list|retry
    "judge.backup_cli",  # judge backup FILE
    "judge.key_cli",  # judge key export|import
    "judge.player.cli",  # judge player escrow|blind
    "judge.audit_cli",  # judge audit ARCHIVE
    "judge.bot_cli",  # judge bot --host H --port P
    "judge.picture_cli",  # judge render
)


def installed_version() -> str:
    """The installed distribution's version ("unknown" when run from a bare source tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dipjudge")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judge",
        description="An email Diplomacy judge. Each command answers --help.",
    )
    parser.add_argument("--version", action="version", version=f"judge (dipjudge) {installed_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
