"""``judge player ...``: tools a player runs on their own machine (escrow, blind)."""

from __future__ import annotations

import argparse
import importlib
from typing import Callable, Sequence


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    player = subparsers.add_parser(
        "player",
        help="player-side helpers: the last-number escrow, blinded-assignment arithmetic",
        description="Tools players run with their own keys; nothing here talks to the judge.",
    )
    actions = player.add_subparsers(dest="player_command", metavar="COMMAND", required=True)
    from judge.player.escrow import register_escrow

    register_escrow(actions)
    # `judge player blind` lives in judge/player/blind.py (another module's area).
    try:
        blind = importlib.import_module("judge.player.blind")
    except ImportError:
        blind = None
    if blind is not None and hasattr(blind, "register_blind"):
        blind.register_blind(actions)


def run_standalone(register_tool: Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None],
                   argv: Sequence[str] | None) -> int:
    """One tool's commands without the ``judge player`` prefix (``python -m judge.player.<tool>``)."""
    parser = argparse.ArgumentParser(prog="judge player", description="Player-side helpers.")
    register_tool(parser.add_subparsers(dest="player_command", metavar="COMMAND", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))
