"""One player tool run on its own (``python -m judge.player.<tool>``), without the
``judge player`` prefix."""

from __future__ import annotations

import argparse
from typing import Callable, Sequence


def run_standalone(register_tool: Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None],
                   argv: Sequence[str] | None) -> int:
    """One tool's commands without the ``judge player`` prefix (``python -m judge.player.<tool>``)."""
    parser = argparse.ArgumentParser(prog="judge player", description="Player-side helpers.")
    register_tool(parser.add_subparsers(dest="player_command", metavar="COMMAND", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))
