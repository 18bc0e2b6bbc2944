"""Random games of any shipped map, played through ``judge adjudicate --batch``.

One ``judge adjudicate --batch`` process answers a document per line, so a game is played
by writing one phase, reading its answer and writing the next phase made from it.  The
orders are random but well formed: holds, moves to neighbours (and, for armies on a
coast, to any coast: a convoy or a void order), supports of neighbours, convoys by
fleets at sea, retreats from the offered list, builds on free build sites and removals.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.types import NEUTRAL, Terrain, Variant, province_of

REPO_ROOT = Path(__file__).resolve().parents[3]


class BatchAdjudicator:
    """A running ``judge adjudicate --batch``: one JSON line in, one JSON line out."""

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "judge.cli", "adjudicate", "--batch"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )

    def answer(self, doc: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(doc) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"judge adjudicate --batch ended: {self.process.stderr.read() if self.process.stderr else ''}"
        return json.loads(line)

    def close(self) -> str:
        """Ends the process; returns what it wrote to standard error."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        return self.process.stderr.read()


@dataclass
class GameLog:
    phases: list[str] = field(default_factory=list)
    winner: str | None = None
    results: int = 0


def _by_power(units: dict[str, list[str]]) -> dict[str, str]:
    """location -> power, from the document's ``units``."""
    return {loc.split()[1]: power for power, listed in units.items() for loc in listed}


def movement_orders(variant: Variant, units: dict[str, list[str]], rng: random.Random) -> dict[str, list[str]]:
    where = {province_of(loc): (loc, power) for loc, power in _by_power(units).items()}
    kinds = {unit.split()[1]: unit.split()[0] for listed in units.values() for unit in listed}
    coasts = [p for p, d in variant.provinces.items() if d.terrain is Terrain.COAST]
    orders: dict[str, list[str]] = {}
    for power, listed in units.items():
        if power == NEUTRAL:  # they hold: no one orders them
            continue
        for unit in listed:
            kind, loc = unit.split()
            province = province_of(loc)
            steps = sorted(variant.fleet_moves.get(loc, ()) if kind == "F" else variant.army_moves[province])
            neighbours = [where[province_of(s)] for s in steps if province_of(s) in where]
            roll = rng.random()
            if roll < 0.15 or (not steps and roll < 0.9):
                order = f"{unit} H"
            elif roll < 0.6 and steps:
                order = f"{unit} - {rng.choice(steps)}"
            elif roll < 0.8 and neighbours:
                other_loc, _ = rng.choice(neighbours)
                other = f"{kinds[other_loc]} {other_loc}"
                other_steps = sorted(variant.army_moves[province_of(other_loc)] if kinds[other_loc] == "A"
                                     else variant.fleet_moves.get(other_loc, ()))
                shared = [s for s in other_steps if province_of(s) in {province_of(x) for x in steps}]
                order = f"{unit} S {other} - {rng.choice(shared)}" if shared and rng.random() < 0.6 else f"{unit} S {other}"
            elif kind == "F" and (variant.provinces[province].terrain is Terrain.SEA or variant.provinces[province].convoys):
                armies = [loc2 for loc2, k in kinds.items() if k == "A" and province_of(loc2) in coasts]
                if armies:
                    order = f"{unit} C A {rng.choice(armies)} - {rng.choice(coasts)}"
                else:
                    order = f"{unit} H"
            elif kind == "A" and province in coasts:
                order = f"{unit} - {rng.choice(coasts)}"  # by convoy, when fleets line up
            else:
                order = f"{unit} H"
            orders.setdefault(power, []).append(order)
    return orders


def retreat_orders(dislodged: list[dict[str, Any]], rng: random.Random) -> dict[str, list[str]]:
    orders: dict[str, list[str]] = {}
    for entry in dislodged:
        options = entry["retreats"]
        if options and rng.random() < 0.8:
            order = f"{entry['unit']} R {rng.choice(options)}"
        else:
            order = f"{entry['unit']} D"
        orders.setdefault(entry["power"], []).append(order)
    return orders


def adjustment_orders(variant: Variant, units: dict[str, list[str]], centers: dict[str, list[str]],
                      rng: random.Random) -> dict[str, list[str]]:
    occupied = {province_of(loc) for loc in _by_power(units)}
    orders: dict[str, list[str]] = {}
    for power in sorted(set(units) | set(centers)):
        mine = units.get(power, [])
        owned = set(centers.get(power, []))
        surplus = len(owned) - len(mine)
        if surplus < 0:
            orders[power] = [f"REMOVE {u}" for u in rng.sample(mine, -surplus)]
        elif surplus > 0:
            homes = set(variant.power(power).home_centers) if not variant.builds_anywhere else owned
            sites = sorted((homes & owned) - occupied)
            rng.shuffle(sites)
            for site in sites[:surplus]:
                province = variant.provinces[site]
                fleet_ok = province.terrain is Terrain.COAST
                if fleet_ok and (province.terrain is not Terrain.LAND) and rng.random() < 0.5:
                    location = f"{site}/{rng.choice(province.coasts)}" if province.coasts else site
                    orders.setdefault(power, []).append(f"BUILD F {location}")
                else:
                    orders.setdefault(power, []).append(f"BUILD A {site}")
    return orders


def play(engine: BatchAdjudicator, variant: Variant, start: dict[str, Any], years: int, seed: int) -> GameLog:
    """Play from ``start`` (a contract input document without orders) for ``years`` game
    years or until someone wins; every answer is checked for errors and consistency."""
    rng = random.Random(seed)
    doc = dict(start)
    log = GameLog()
    last_year = start_year = int(doc["phase"][1:-1])
    while True:
        phase = doc["phase"]
        log.phases.append(phase)
        kind = phase[-1]
        if kind == "M":
            orders = movement_orders(variant, doc["units"], rng)
        elif kind == "R":
            orders = retreat_orders([{"power": p, **d} for p, ds in doc["dislodged"].items() for d in ds], rng)
        else:
            orders = adjustment_orders(variant, doc["units"], doc["centers"], rng)
        answer = engine.answer({**doc, "orders": orders})
        assert "error" not in answer, (phase, answer)
        log.results += len(answer["results"])
        _check_answer(variant, answer)
        if answer["winner"]:
            log.winner = answer["winner"]
            return log
        next_phase = answer["next_phase"]
        year = int(next_phase[1:-1])
        if next_phase[0] == "S" and next_phase[-1] == "M" and sum(p.endswith("M") for p in log.phases) >= 2 * years:
            return log
        assert year >= last_year, (phase, next_phase)
        last_year = year
        dislodged: dict[str, list[dict[str, Any]]] = {}
        if next_phase[-1] == "R":
            for entry in answer["dislodged"]:
                if entry["retreats"]:
                    dislodged.setdefault(entry["power"], []).append(
                        {"unit": entry["unit"], "retreats": entry["retreats"]})
        doc = {"map": doc["map"], "phase": next_phase, "units": answer["units"], "centers": answer["centers"],
               "dislodged": dislodged}
        assert year - start_year < 1000


def _check_answer(variant: Variant, answer: dict[str, Any]) -> None:
    provinces = [province_of(unit.split()[1]) for listed in answer["units"].values() for unit in listed]
    assert len(provinces) == len(set(provinces)), "two units in one province"
    owned = [c for listed in answer["centers"].values() for c in listed]
    assert len(owned) == len(set(owned)), "a centre owned twice"
    assert set(owned) <= variant.supply_centers
    powers = {p.name for p in variant.powers}
    assert set(answer["units"]) <= powers | ({NEUTRAL} if variant.neutral_armies else set()) and set(answer["centers"]) <= powers


def start_document(variant: Variant) -> dict[str, Any]:
    from adjudicator.api import initial_position
    from adjudicator.jsonio import position_to_json

    return position_to_json(initial_position(variant), variant.name)
