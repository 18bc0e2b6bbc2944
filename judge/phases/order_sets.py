"""What a power's stored orders cover: canonical order lines keyed by province, merged
as a mail's orders replace earlier ones, and checked against what the phase asks."""

from __future__ import annotations

from typing import Sequence

from adjudicator.api import adjudicate, parse_orders, prepare
from adjudicator.results import Requirement
from adjudicator.types import PhaseKind, Position, Variant, province_of
from judge.phases.requirements import phase_requirements

WAIVE = "WAIVE"


def order_key(canonical: str) -> str | None:
    """The province an order is for (``F SPA/NC - MAO`` -> ``SPA``); None for WAIVE."""
    words = canonical.split()
    if not words or words[0] == WAIVE or len(words) < 2:
        return None
    return province_of(words[1])


def merge_orders(stored: Sequence[str], new: Sequence[str]) -> list[str]:
    """``stored`` with the order of every province named in ``new`` replaced by the new one
    (within one mail the last order for a unit wins); WAIVEs are added."""
    latest: dict[str, str] = {}
    waives = [order for order in stored if order_key(order) is None]
    for order in new:
        key = order_key(order)
        if key is None:
            waives.append(order)
        else:
            latest[key] = order
    kept = [order for order in stored if order_key(order) is not None and order_key(order) not in latest]
    return sorted(kept + list(latest.values())) + waives


def _ordered_provinces(orders: Sequence[str]) -> set[str]:
    return {key for key in map(order_key, orders) if key is not None}


def units_without_orders(variant: Variant, position: Position, power: str, orders: Sequence[str]) -> tuple[str, ...]:
    """The power's units (or dislodged units) that the stored orders do not mention."""
    need = phase_requirements(variant, position).get(power)
    if need is None or need.phase_kind is PhaseKind.ADJUSTMENT:
        return ()
    ordered = _ordered_provinces(orders)
    return tuple(str(unit) for unit in need.units if unit.province not in ordered)


def adjustment_owed(variant: Variant, position: Position, power: str, orders: Sequence[str],
                    rules: frozenset[str] = frozenset()) -> str | None:
    """What an adjustment phase still asks of the power after ``orders``, and what the judge
    does about it at the deadline (the engine's own civil-disorder removals, for the rules
    ``rules``); None when nothing is owed or the phase is no adjustment."""
    board = prepare(variant, position)
    need = phase_requirements(variant, position).get(power)
    if need is None or need.phase_kind is not PhaseKind.ADJUSTMENT or len(orders) >= (need.builds or need.removals):
        return None
    if need.builds:
        left = need.builds - len(orders)
        return (f"{left} of {need.builds} build{'s' if need.builds != 1 else ''}; BUILD or WAIVE "
                f"{'them' if left != 1 else 'it'} now, or at the deadline {'they are' if left != 1 else 'it is'} waived")
    left = need.removals - len(orders)
    parsed = parse_orders(board, power, list(orders))
    results = adjudicate(board, {power: parsed}, rules).results
    chosen = [result.order for result in results if result.power == power and result.reason == "civil disorder"]
    return (f"{left} of {need.removals} removal{'s' if need.removals != 1 else ''}; REMOVE the "
            f"unit{'s' if left != 1 else ''} you choose now, or at the deadline the judge removes "
            f"{', '.join(order.removesuffix(' D') for order in chosen)} (civil disorder: the units farthest "
            "from your home centres first)")


def orders_complete(need: Requirement, orders: Sequence[str]) -> bool:
    """Whether ``orders`` answer everything ``need`` asks of the power."""
    if need.phase_kind is PhaseKind.ADJUSTMENT:
        wanted = need.builds or need.removals
        return len(orders) >= wanted
    ordered = _ordered_provinces(orders)
    return all(unit.province in ordered for unit in need.units)
