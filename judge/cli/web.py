"""``judge web build``: write the whole web archive again from the store."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from judge.cli.options import add_config_argument, on_store, settings_from, setup_logging

if TYPE_CHECKING:  # imported when the command runs, not when `judge` starts
    from judge.config import Settings
    from judge.store.engine import Store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "web", help="the read-only web archive of every game: build it from the store",
        description="The web archive ([web] root): an index of games and, for each public game, every "
                    "phase's board with its orders and results, the supply-centre chart, the list archive "
                    "(also as an mbox for `judge audit`) and an Atom feed, as static files.  `judge serve` "
                    "keeps it current by itself and serves it on [web] host:port.",
    )
    commands = parser.add_subparsers(dest="web_command", metavar="COMMAND")
    build = commands.add_parser(
        "build", help="write every game's pages again from the store",
        description="Write the whole archive under [web] root again from the store (every game's pages, "
                    "pictures, feed and mbox, and the index), each file replaced atomically, while a running "
                    "judge may be writing it too (both take the archive's lock).  Exit status 0 when written, "
                    "2 when [web] root is not set, 1 when the store cannot be opened.",
    )
    add_config_argument(build)
    build.set_defaults(func=run_build)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def run_build(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if settings is None:
        return 2
    if settings.web_root is None:
        print("judge web build: [web] root is not set (set it in judge.toml or JUDGE_WEB_ROOT)", file=sys.stderr)
        return 2
    setup_logging()
    return on_store(settings, "web build", lambda store: _build(settings, store))


def _build(settings: Settings, store: Store) -> int:
    from judge.web.build import Archive

    assert settings.web_root is not None
    report = Archive(store, settings.web_root, settings.judge.domain).rebuild()
    print(f"judge web build: {len(report.games)} games written to {settings.web_root}"
          + (f"; {len(report.removed)} not shown (private or in preparation)" if report.removed else ""))
    return 0
