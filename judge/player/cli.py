"""``judge player ...``: tools a player runs on their own machine (escrow, blind)."""

from __future__ import annotations

import argparse


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    player = subparsers.add_parser(
        "player",
        help="player-side helpers: the last-number escrow, blinded-assignment arithmetic",
        description="Tools players run with their own keys; nothing here talks to the judge.",
    )
    actions = player.add_subparsers(dest="player_command", metavar="COMMAND", required=True)
    from judge.player.blind import register_blind
    from judge.player.escrow import register_escrow

    register_escrow(actions)
    register_blind(actions)


