"""A corpus of realistic standard-map phases, played by the peer engine.

Seeded games are played from Spring 1901 with the orders of
``benchmarks.policy``; before each phase is processed, the position and the
orders are recorded as one input document of shared/contracts/adjudicate.md
(``map``, ``phase``, ``units``, ``centers``, ``dislodged`` in retreat phases,
``orders``, ``rules``).  The corpus is JSON Lines, so both engines read exactly
the same phases, and ``judge adjudicate --batch`` can read it too.

Orders are written in the contract's notation (``A YOR - NWY VIA CONVOY``); the
peer's spelling (``... VIA``) is produced by ``peer_order_text``.

Run ``python -m benchmarks.positions --seed 1`` to (re)write the default corpus.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any, Iterator, Sequence

from benchmarks import policy

Record = dict[str, Any]

DATA_DIR = Path(__file__).resolve().parent / "data"
DEFAULT_SEED = 1
DEFAULT_GAMES = 12
DEFAULT_YEARS = 10


def default_corpus_path(seed: int, games: int, years: int) -> Path:
    return DATA_DIR / f"corpus-s{seed}-g{games}-y{years}.jsonl"


def contract_order_text(peer_text: str) -> str:
    return peer_text[: -len(" VIA")] + " VIA CONVOY" if peer_text.endswith(" VIA") else peer_text


def peer_order_text(contract_text: str) -> str:
    return contract_text[: -len(" CONVOY")] if contract_text.endswith(" VIA CONVOY") else contract_text


def _map_facts(game: Any) -> policy.MapFacts:
    provinces = sorted({loc.upper()[:3] for loc in game.map.locs})
    kinds = {p: game.map.area_type(p) for p in provinces}
    return policy.MapFacts(
        supply_centers=frozenset(game.map.scs),
        inland=tuple(p for p in provinces if kinds[p] == "LAND"),
        seas=tuple(p for p in provinces if kinds[p] == "WATER"),
    )


def free_retreats(game: Any, retreats: list[str]) -> list[str]:
    """The peer's retreat list net of occupied provinces, as the contract wants it.

    (The peer keeps occupied provinces in its lists and refuses them only when a
    retreat there is ordered.)"""
    occupied = {unit[2:5] for power in game.powers.values() for unit in power.units}
    return [location for location in retreats if location[:3] not in occupied]


def record_of(game: Any, orders: dict[str, list[str]]) -> Record:
    """The contract input document for the game's current phase and these (peer-notation) orders."""
    state = game.get_state()
    phase = game.get_current_phase()
    record: Record = {
        "map": "standard",
        "phase": phase,
        "units": {p: sorted(u for u in units if not u.startswith("*")) for p, units in sorted(state["units"].items())},
        "centers": {p: sorted(c) for p, c in sorted(state["centers"].items())},
    }
    if phase.endswith("R"):
        record["dislodged"] = {
            power: [
                {"unit": unit, "retreats": sorted(free_retreats(game, retreats))} for unit, retreats in sorted(by_unit.items())
            ]
            for power, by_unit in sorted(state["retreats"].items())
            if by_unit
        }
    record["orders"] = {p: [contract_order_text(o) for o in lines] for p, lines in sorted(orders.items()) if lines}
    record["rules"] = []
    return record


def _options_by_unit(game: Any, possible: dict[str, list[str]], dislodged: bool) -> dict[str, list[str]]:
    options: dict[str, list[str]] = {}
    for power in game.powers.values():
        units = list(power.retreats) if dislodged else list(power.units)
        for unit in units:
            options[unit] = sorted(o for o in possible.get(unit[2:5], []) if o.startswith(unit + " "))
    return options


def _orders_for_phase(game: Any, rng: random.Random, facts: policy.MapFacts) -> dict[str, list[str]]:
    possible = game.get_all_possible_orders()
    kind = game.get_current_phase()[-1]
    if kind == "M":
        owner = {c: p.name for p in game.powers.values() for c in p.centers}
        units = {p.name: sorted(p.units) for p in game.powers.values()}
        return policy.choose_movement_orders(rng, units, _options_by_unit(game, possible, False), owner, facts)
    if kind == "R":
        dislodged = {p.name: sorted(p.retreats) for p in game.powers.values() if p.retreats}
        return policy.choose_retreat_orders(rng, dislodged, _options_by_unit(game, possible, True))
    state = game.get_state()
    counts = {power: build["count"] for power, build in state["builds"].items()}
    for power in game.powers.values():  # removals are not capped by build sites
        if len(power.units) > len(power.centers):
            counts[power.name] = len(power.centers) - len(power.units)
    sites = {
        power: {loc: sorted(possible.get(loc, [])) for loc in build["homes"]}
        for power, build in state["builds"].items()
    }
    units = {p.name: sorted(p.units) for p in game.powers.values()}
    return policy.choose_adjustment_orders(rng, counts, units, sites)


def play_game(seed: int, years: int) -> Iterator[Record]:
    """Every phase of one seeded game from S1901M through the Winter of the last year."""
    from diplomacy import Game  # the peer: a benchmark extra, imported only here

    rng = random.Random(seed)
    game = Game()
    facts = _map_facts(game)
    last_year = 1900 + years
    while not game.is_game_done:
        phase = game.get_current_phase()
        if int(phase[1:-1]) > last_year:
            break
        orders = _orders_for_phase(game, rng, facts)
        yield record_of(game, orders)
        for power, lines in orders.items():
            game.set_orders(power, lines)
        game.process()


def generate_corpus(seed: int = DEFAULT_SEED, games: int = DEFAULT_GAMES, years: int = DEFAULT_YEARS) -> list[Record]:
    records: list[Record] = []
    for index in range(games):
        records.extend(play_game(seed * 1000 + index, years))
    return records


def save_corpus(path: Path, records: Sequence[Record]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")


def load_corpus(path: Path) -> list[Record]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def ensure_corpus(seed: int = DEFAULT_SEED, games: int = DEFAULT_GAMES, years: int = DEFAULT_YEARS) -> list[Record]:
    """The corpus for these parameters, generated and saved on first use."""
    path = default_corpus_path(seed, games, years)
    if path.exists():
        return load_corpus(path)
    records = generate_corpus(seed, games, years)
    save_corpus(path, records)
    return records


def describe(records: Sequence[Record]) -> str:
    kinds = {"M": 0, "R": 0, "A": 0}
    orders = supports = convoys = units = 0
    for record in records:
        kinds[record["phase"][-1]] += 1
        if record["phase"].endswith("M"):
            units += sum(len(u) for u in record["units"].values())
            for lines in record["orders"].values():
                orders += len(lines)
                supports += sum(" S " in line for line in lines)
                convoys += sum(" C " in line for line in lines)
    movement = max(kinds["M"], 1)
    return (
        f"{len(records)} phases: {kinds['M']} movement, {kinds['R']} retreat, {kinds['A']} adjustment; "
        f"per movement phase: {units / movement:.1f} units, {orders / movement:.1f} orders, "
        f"{supports / movement:.1f} supports, {convoys / movement:.1f} convoy orders"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES)
    parser.add_argument("--years", type=int, default=DEFAULT_YEARS)
    parser.add_argument("--out", type=Path, default=None, help="default: benchmarks/data/corpus-s<S>-g<G>-y<Y>.jsonl")
    args = parser.parse_args(argv)
    records = generate_corpus(args.seed, args.games, args.years)
    path = args.out or default_corpus_path(args.seed, args.games, args.years)
    save_corpus(path, records)
    print(f"{path}: {describe(records)}")


if __name__ == "__main__":
    main()
