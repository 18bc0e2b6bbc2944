"""A scripted human's proposals to the bot: does it accept a fair peace and refuse a one-sided one?

    python -m benchmarks.negotiation_offers [--games N] [--json PATH]

Positions: the opening and every spring of ``--games`` in-process games of seven DumbBots
(seeds 1..N) up to 1908.  In each, for every pair of surviving powers (the bot, the human),
a fresh negotiator of the bot (``judge.negotiation.negotiator``, level 30) hears four offers from the
human, as the plain-English forms of PRESS read them:

* fair peace: ``PRP (PCE (human bot))``;
* fair peace with a shared DMZ: ``PRP (AND (PCE (human bot)) (DMZ (human bot) (province)))``,
  a province next to units of both that is no centre of the bot;
* one-sided peace, a centre given up: ``PRP (AND (PCE (human bot)) (DMZ (bot) (centre)))``,
  one of the bot's own centres;
* one-sided peace, orders taken: ``PRP (AND (PCE (human bot)) (XDO ((bot's unit) HLD)))``.

Reported per offer: how many were made, the share answered ``YES``, and the answer time
(median and worst, the negotiator's own).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Iterator, Sequence

import maps
from adjudicator import api
from adjudicator.types import Variant
from bot.dumbbot import DumbBot
from daide.messages import Message, from_text
from daide.tokens import TokenTable
from judge.negotiation.negotiator import Negotiator

LEVEL = 30
OFFERS = ("fair peace", "fair peace with a shared DMZ", "one-sided: a centre given up", "one-sided: orders taken")


def positions(variant: Variant, games: int, last_year: int = 1908) -> Iterator[api.Board]:
    yield api.prepare(variant, api.initial_position(variant))
    for seed in range(1, games + 1):
        players = {p.name: DumbBot(seed) for p in variant.powers}
        position = api.initial_position(variant)
        while position.phase.year <= last_year:
            board = api.prepare(variant, position)
            if position.phase.season.name == "SPRING" and position.phase.kind.name == "MOVEMENT" \
                    and position.phase.year > 1901:
                yield board
            orders = {p: api.parse_orders(board, p, [o.canonical() for o in players[p].orders(board, p)])
                      for p in api.requirements(board)}
            outcome = api.adjudicate(board, orders)
            if outcome.winner is not None:
                break
            position = outcome.position


def offers(board: api.Board, table: TokenTable, bot: str, human: str) -> dict[str, Message]:
    """The four offers of ``human`` to ``bot`` in this position (fewer where one cannot be made)."""
    position = board.position
    b, h = table.power_names[bot], table.power_names[human]
    peace = f"PCE ({h} {b})"
    made = {OFFERS[0]: f"PRP ({peace})"}
    centres = set().union(*position.centers.values())
    reach = board.tables.reach
    near: dict[str, set[str]] = {bot: set(), human: set()}
    for unit in position.units:
        if unit.power in near:
            near[unit.power] |= {place[:3] for place in reach[unit.kind].get(unit.location, ())}
    shared = sorted((near[bot] & near[human]) - centres)
    if shared:
        made[OFFERS[1]] = f"PRP (AND ({peace}) (DMZ ({h} {b}) ({table.province_names[shared[0]]})))"
    own = sorted(position.centers.get(bot, ()))
    if own:
        made[OFFERS[2]] = f"PRP (AND ({peace}) (DMZ ({b}) ({table.province_names[own[0]]})))"
    units = sorted(u for u in position.units if u.power == bot)
    if units:
        unit = units[0]
        kind = "AMY" if unit.kind.name == "ARMY" else "FLT"
        made[OFFERS[3]] = f"PRP (AND ({peace}) (XDO (({b} {kind} {table.province_names[unit.province]}) HLD)))"
    return {name: from_text(text) for name, text in made.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A scripted human's fair and one-sided offers to the bot.")
    parser.add_argument("--games", type=int, default=3, help="DumbBot games whose springs give positions (default 3)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    variant = maps.load("standard")
    table = TokenTable.for_variant(variant)
    made = {name: 0 for name in OFFERS}
    accepted = {name: 0 for name in OFFERS}
    seconds: list[float] = []
    boards = 0
    for board in positions(variant, args.games):
        boards += 1
        alive = sorted({u.power for u in board.position.units})
        for bot in alive:
            for human in alive:
                if human == bot:
                    continue
                for name, press in offers(board, table, bot, human).items():
                    started = time.perf_counter()
                    # the answer comes first (a new peace brings the bot's own offers after it)
                    (_, answer), *_ = Negotiator(bot, table, LEVEL).heard(human, (bot,), press, board)
                    seconds.append(time.perf_counter() - started)
                    made[name] += 1
                    accepted[name] += answer[0] == "YES"
    report = {"positions": boards,
              "offers": {name: {"made": made[name], "accepted": accepted[name],
                                "accepted_share": round(accepted[name] / made[name], 3) if made[name] else None}
                         for name in OFFERS},
              "answer_ms_median": round(statistics.median(seconds) * 1000, 3),
              "answer_ms_worst": round(max(seconds) * 1000, 3)}
    print(json.dumps(report, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
