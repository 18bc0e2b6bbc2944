"""``judge ratings rebuild``: every rating recomputed from the finished games."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from judge.cli.options import add_config_argument, on_store, settings_from

if TYPE_CHECKING:
    from judge.store.engine import Store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("ratings", help="the players' ratings: rebuild them from the finished games")
    commands = parser.add_subparsers(dest="ratings_command", metavar="ACTION", required=True)
    rebuild = commands.add_parser(
        "rebuild", help="recompute every rating from the finished games",
        description="Empty the rating history and rate every game that ended in a solo, draw or "
                    "concession again, in the order they ended (press and gunboat games apart; "
                    "README \"Ratings\").  One transaction: the judge may keep running; a game "
                    "that ends meanwhile is rated after it.  Prints how many games, entries and "
                    "players and how long it took.",
    )
    add_config_argument(rebuild)
    rebuild.set_defaults(func=run_rebuild)


def run_rebuild(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if settings is None:
        return 2
    return on_store(settings, "ratings", _rebuild)


def _rebuild(store: Store) -> int:
    from judge.standing.keeping import rebuild

    started = time.perf_counter()
    with store.unit_of_work() as session:
        done = rebuild(session)
    print(f"judge ratings rebuild: {done.games} games rated, {done.entries} entries for {done.players} "
          f"players and pools, in {time.perf_counter() - started:.1f} s")
    return 0
