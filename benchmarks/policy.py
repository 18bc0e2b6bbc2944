"""Seeded order choice that makes busy, realistic phases.

Uniformly random orders are mostly holds and lonely moves; real games are
supports, convoys and fights over centres.  The policy picks from the legal
orders the peer lists for each unit (``Game.get_all_possible_orders``) in two
passes: some units commit to moves (weighted towards centres the mover does not
own, towards centres others are already attacking, and towards convoyed moves),
then the rest mostly support those moves (their own power's more often than
others') or convoy them.  A few units get no order or an impossible one, so
that default holds and void orders are exercised too.

Everything iterates in sorted order and draws from one ``random.Random``: the
same seed gives the same orders whatever PYTHONHASHSEED is.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping, Sequence

# Weights and probabilities of the policy; named so the corpus is explainable.
MOVE_SHARE = 0.45  # share of units that commit to a move in the first pass
VIA_CONVOY_FACTOR = 1.5  # convoyed moves, each with fleets reserved to convoy them
CONVOY_RESERVE_SHARE = 0.85  # a fleet able to convoy a chosen convoyed move waits to convoy it
FOREIGN_CENTER_WEIGHT = 5.0
UNOWNED_CENTER_WEIGHT = 4.0
CONTESTED_BONUS = 3.0
FOREIGN_UNIT_BONUS = 5.0  # attacking a foreign unit is what dislodges
CONVOY_MATCH_WEIGHT = 40.0
OWN_SUPPORT_WEIGHT = 10.0
ALLIED_SUPPORT_WEIGHT = 3.0
SUPPORT_HOLD_WEIGHT = 1.0
PLAIN_WEIGHT = 0.5
UNRELATED_WEIGHT = 0.03  # a support or convoy of an order nobody gave
NO_ORDER_SHARE = 0.04  # unit left without an order: holds / disbands by default
VOID_ORDER_SHARE = 0.02  # unit given an impossible move: void, treated as a hold
CIVIL_DISORDER_SHARE = 0.15  # adjustment orders left short (waived builds / default removals)


@dataclass(frozen=True, slots=True)
class MapFacts:
    """What the policy needs to know about the map, taken from the peer once."""

    supply_centers: frozenset[str]
    inland: tuple[str, ...]  # provinces a fleet can never enter
    seas: tuple[str, ...]  # provinces an army can never enter


def _move_destination(order: str) -> str:
    words = order.split()
    return words[3][:3]


def _is_move(order: str) -> bool:
    return order.split()[2] == "-"


def _is_via(order: str) -> bool:
    return order.endswith(" VIA")


def _unit_text(order: str) -> str:
    return " ".join(order.split()[:2])


def _without_via(order: str) -> str:
    return order[: -len(" VIA")] if _is_via(order) else order


def _weighted_choice(rng: random.Random, weighted: Sequence[tuple[str, float]]) -> str:
    total = sum(weight for _, weight in weighted)
    point = rng.random() * total
    for option, weight in weighted:
        point -= weight
        if point < 0:
            return option
    return weighted[-1][0]


def choose_movement_orders(
    rng: random.Random,
    units_by_power: Mapping[str, Sequence[str]],
    options_by_unit: Mapping[str, Sequence[str]],
    owner_of_center: Mapping[str, str],
    facts: MapFacts,
) -> dict[str, list[str]]:
    """Orders (peer notation: ``A YOR - NWY VIA``) for every power of a movement phase."""
    power_of_unit = {unit: power for power, units in units_by_power.items() for unit in units}
    power_at = {unit[2:5]: power for unit, power in power_of_unit.items()}
    all_units = sorted(power_of_unit)
    rng.shuffle(all_units)
    all_units.sort(key=lambda unit: unit[0])  # armies first, so fleets can wait to convoy them
    chosen: dict[str, str] = {}
    attacked: dict[str, int] = {}
    convoyed: set[str] = set()  # "YOR - NWY"

    for unit in all_units:
        moves = [o for o in options_by_unit[unit] if _is_move(o)]
        if not moves or rng.random() >= MOVE_SHARE:
            continue
        can_convoy = any(o.split()[2] == "C" and " ".join(o.split()[4:]) in convoyed for o in options_by_unit[unit])
        if can_convoy and rng.random() < CONVOY_RESERVE_SHARE:
            continue
        power = power_of_unit[unit]
        weighted = []
        for move in moves:
            destination = _move_destination(move)
            weight = 1.0
            if destination in facts.supply_centers:
                owner = owner_of_center.get(destination)
                weight = UNOWNED_CENTER_WEIGHT if owner is None else (
                    FOREIGN_CENTER_WEIGHT if owner != power else 1.0
                )
            weight += CONTESTED_BONUS * attacked.get(destination, 0)
            if power_at.get(destination, power) != power:
                weight += FOREIGN_UNIT_BONUS
            if _is_via(move):
                weight *= VIA_CONVOY_FACTOR
            weighted.append((move, weight))
        move = _weighted_choice(rng, weighted)
        chosen[unit] = move
        if _is_via(move):
            convoyed.add(_without_via(move)[2:])
        destination = _move_destination(move)
        attacked[destination] = attacked.get(destination, 0) + 1

    # Supports name the destination province without its coast.
    moving = {f"{unit} - {_move_destination(order)}" for unit, order in chosen.items()}
    for unit in all_units:
        if unit in chosen:
            continue
        power = power_of_unit[unit]
        weighted = []
        for option in options_by_unit[unit]:
            words = option.split()
            if words[2] == "C":
                weight = CONVOY_MATCH_WEIGHT if " ".join(words[4:]) in convoyed else UNRELATED_WEIGHT
            elif words[2] == "S" and len(words) > 5:
                supported = " ".join(words[3:])
                if supported in moving:
                    ally = power_of_unit.get(" ".join(words[3:5])) == power
                    weight = OWN_SUPPORT_WEIGHT if ally else ALLIED_SUPPORT_WEIGHT
                else:
                    weight = UNRELATED_WEIGHT
            elif words[2] == "S":
                weight = SUPPORT_HOLD_WEIGHT if " ".join(words[3:5]) not in chosen else UNRELATED_WEIGHT
            elif _is_via(option):
                continue  # the fleets have decided already: convoyed moves belong to the first pass
            else:
                weight = PLAIN_WEIGHT
            weighted.append((option, weight))
        if weighted:
            chosen[unit] = _weighted_choice(rng, weighted)

    orders: dict[str, list[str]] = {}
    for power in sorted(units_by_power):
        lines = []
        for unit in sorted(units_by_power[power]):
            roll = rng.random()
            if roll < NO_ORDER_SHARE or unit not in chosen:
                continue
            if roll < NO_ORDER_SHARE + VOID_ORDER_SHARE:
                lines.append(_impossible_move(rng, unit, facts))
            else:
                lines.append(chosen[unit])
        orders[power] = lines
    return orders


def _impossible_move(rng: random.Random, unit: str, facts: MapFacts) -> str:
    """A move no rule allows: a fleet inland or an army out to sea."""
    targets = facts.inland if unit.startswith("F") else facts.seas
    return f"{unit} - {rng.choice(targets)}"


def choose_retreat_orders(
    rng: random.Random,
    dislodged_by_power: Mapping[str, Sequence[str]],
    options_by_unit: Mapping[str, Sequence[str]],
) -> dict[str, list[str]]:
    """Mostly retreats (so two units sometimes meet and both disband), some disbands, a few unordered."""
    orders: dict[str, list[str]] = {}
    for power in sorted(dislodged_by_power):
        lines = []
        for unit in sorted(dislodged_by_power[power]):
            if rng.random() < NO_ORDER_SHARE * 2:
                continue
            weighted = [(o, 3.0 if " R " in o else 1.0) for o in options_by_unit[unit]]
            if weighted:
                lines.append(_weighted_choice(rng, weighted))
        orders[power] = lines
    return orders


def choose_adjustment_orders(
    rng: random.Random,
    build_counts: Mapping[str, int],
    units_by_power: Mapping[str, Sequence[str]],
    build_options_by_power: Mapping[str, Mapping[str, Sequence[str]]],
) -> dict[str, list[str]]:
    """Builds at distinct home centres, removals of random units; some powers fall short."""
    orders: dict[str, list[str]] = {}
    for power in sorted(build_counts):
        count = build_counts[power]
        short = rng.random() < CIVIL_DISORDER_SHARE
        lines: list[str] = []
        if count > 0:
            sites = sorted(build_options_by_power.get(power, {}))
            rng.shuffle(sites)
            wanted = rng.randint(0, count - 1) if short else count
            for site in sites[:wanted]:
                builds = [o for o in build_options_by_power[power][site] if o.endswith(" B")]
                if builds:
                    lines.append(rng.choice(sorted(builds)))
            if short and rng.random() < 0.5:
                lines.append("WAIVE")
        elif count < 0:
            units = sorted(units_by_power[power])
            rng.shuffle(units)
            wanted = rng.randint(0, -count - 1) if short else -count
            lines = [f"{unit} D" for unit in units[:wanted]]
        orders[power] = lines
    return orders
