"""``judge bot --host H --port P [--power POW --passcode N]``: play a power on a DAIDE server
with the strategic bot (judge/edge/daide_player.py)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import Any


def register(subparsers: Any) -> None:
    from bot.budget_options import add_budget_options

    parser = subparsers.add_parser(
        "bot", help="play one power in a DAIDE server's game with the strategic bot",
        description="Connect to a DAIDE server (ours or any other), join its game (or take a seat back with "
                    "--power and --passcode) and play the power it deals with the strategic bot (value map and "
                    "Refined Evolutionary Search).  Logs to standard error; refusals (HUH, REJ) are logged and "
                    "play goes on; a lost connection is reopened with IAM.  Exit status 0 when the game is over "
                    "(OFF), 1 when the server refuses us or its map is unknown to the judge, 3 when the server "
                    "cannot be reached.",
    )
    parser.add_argument("--host", required=True, help="the DAIDE server's host name or address")
    parser.add_argument("--port", required=True, type=int, help="its port")
    parser.add_argument("--power", help="with --passcode: take back this power's seat (IAM), e.g. FRANCE or FRA")
    parser.add_argument("--passcode", type=int, help="the passcode the server gave in HLO")
    parser.add_argument("--name", default="dipjudge-bot", help="the name sent with NME (default dipjudge-bot)")
    add_budget_options(parser)
    parser.add_argument("--seed", type=int, default=0, help="the bot's random seed (default 0)")
    parser.add_argument("--retries", type=int, default=5, help="reconnections after a lost connection (default 5)")
    parser.add_argument("--verbose", action="store_true", help="log every message, not only what matters")
    parser.set_defaults(func=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    from bot.budget_options import budget_from
    from bot.search import StrategicBot
    from judge.edge.daide_player import DaideBot

    if (args.power is None) != (args.passcode is None):
        print("judge bot: --power and --passcode go together (the passcode is the one HLO gave)", file=sys.stderr)
        return 2
    budget = budget_from(args.parser, args)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    power = _power_name(args.power) if args.power else None
    player = StrategicBot(args.seed, budget)
    client = DaideBot(args.host, args.port, player, name=args.name, power=power, passcode=args.passcode,
                      retries=args.retries)
    return asyncio.run(client.run())


def _power_name(text: str) -> str:
    """``FRA`` or ``france`` -> ``FRANCE`` (the standard map's powers); other names as given."""
    import maps

    wanted = text.strip().upper()
    for power in maps.load("standard").powers:
        if wanted in (power.name, power.name[:3]):
            return power.name
    return wanted
