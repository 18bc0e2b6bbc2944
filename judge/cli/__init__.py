"""The `judge` command: one sub-command per module, each registering itself.

A command module exposes ``register(subparsers) -> None``; it adds its parser and sets
``func=`` to a callable taking the parsed namespace and returning an exit code.  New
commands are added to ``COMMAND_MODULES`` and nowhere else.
"""

from __future__ import annotations

import argparse
import importlib
import os
import select
import sys
from typing import Sequence

COMMAND_MODULES: tuple[str, ...] = (
    "judge.cli.adjudicate",  # judge adjudicate
    "judge.cli.serve",  # judge serve
    "judge.cli.tick",  # judge tick
    "judge.cli.db",  # judge db upgrade|status
    "judge.cli.shunt",  # judge shunt list|retry
    "judge.cli.outbox",  # judge outbox list|retry
    "judge.cli.backup",  # judge backup FILE
    "judge.cli.key",  # judge key export|import
    "judge.cli.dns",  # judge dns
    "judge.player.cli",  # judge player escrow|blind
    "judge.cli.audit",  # judge audit ARCHIVE
    "judge.cli.bot",  # judge bot --host H --port P
    "judge.cli.picture",  # judge render
    "judge.cli.web",  # judge web build
    "judge.cli.ratings",  # judge ratings rebuild
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
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        if not standard_output_closed():
            raise  # a socket's, not the reader's: a failure to report
        return reader_went_away()


EXIT_READER_GONE = 128 + 13  # what a shell reports for a filter stopped by SIGPIPE


def standard_output_closed() -> bool:
    """Has the reader of standard output closed its end (a pipe without readers polls as
    an error)?"""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no descriptor (replaced in tests), no poll
        return False


def reader_went_away() -> int:
    """Stop quietly when the program reading standard output has closed it (``judge
    adjudicate --batch ... | head -1``): no traceback, and nothing more written, not even
    the flush at exit, which would fail the same way."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_READER_GONE

