"""The `judge` command: one sub-command per module, each registering itself.

A command module exposes ``register(subparsers) -> None``; it adds its parser and sets
``func=`` to a callable taking the parsed namespace and returning an exit code.  A new
command is a module of this package, imported and listed in ``command_modules`` and
nowhere else.  The modules are imported when the parser is built, not with this package:
they are light (each imports the store and the rest when its command runs), and
``judge.cli.options``, which they share, must not build the parser.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
from types import ModuleType
from typing import Sequence


def command_modules() -> tuple[ModuleType, ...]:
    """The sub-command modules, in the order ``judge --help`` lists them."""
    from judge.cli import (adjudicate, audit, backup, bot, db, dns, key, outbox, picture, ratings, serve, shunt, tick,
                           web)
    from judge.player import cli as player

    return (adjudicate,  # judge adjudicate
            serve,  # judge serve
            tick,  # judge tick
            db,  # judge db upgrade|status
            shunt,  # judge shunt list|retry
            outbox,  # judge outbox list|retry
            backup,  # judge backup FILE
            key,  # judge key export|import
            dns,  # judge dns
            player,  # judge player escrow|blind
            audit,  # judge audit ARCHIVE
            bot,  # judge bot --host H --port P
            picture,  # judge render
            web,  # judge web build
            ratings)  # judge ratings rebuild


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
    for module in command_modules():
        module.register(subparsers)
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

