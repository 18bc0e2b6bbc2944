"""Orders both ways: a DAIDE order tree -> an adjudicator ``Order`` (with the THX note
that SUB earns), and an adjudicated result line -> ``ORD``.

``read_order`` answers MBV with the order when it may be given, or a note that says
why not (NYU, NSU, FAR, NSP, NAS, NSF, NSA, NRS, NRN, NVR, NMB, NMR, HSC, YSC, ESC,
NSC, CST); ``UnreadableOrder`` carries the path of the element that is no order at
all (for HUH's ERR).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Mapping, Sequence

from adjudicator.adjustments import balance
from adjudicator.legality import illegality, retreat_location
from adjudicator.orders import (Build, Convoy, Disband, Hold, Move, Order, Remove, Retreat, SupportHold,
                                SupportMove, Waive)
from adjudicator.results import OrderResult
from adjudicator.tables import Tables
from adjudicator.types import Dislodged, PhaseKind, Position, Unit, UnitKind, coast_of, province_of
from daide.messages import Element
from daide.render import location, our_location, turn, unit as unit_element
from daide.tokens import TokenTable


class UnreadableOrder(ValueError):
    """Not an order in DAIDE's syntax; ``path`` leads to the element at fault."""

    def __init__(self, problem: str, path: tuple[int, ...]) -> None:
        super().__init__(problem)
        self.path = path


@dataclass(frozen=True)
class Verdict:
    """What SUB earns for one order: ``note`` is MBV when ``order`` may be given."""

    note: str
    order: Order | None = None
    unit_key: str = ""  # the province (or WAIVE#n) whose order this one replaces


_KIND = {"AMY": UnitKind.ARMY, "FLT": UnitKind.FLEET}


def _unit_of(table: TokenTable, element: Element, path: tuple[int, ...]) -> tuple[str, UnitKind, str]:
    if type(element) is not tuple or len(element) != 3 or element[1] not in _KIND:
        raise UnreadableOrder("a unit is (power AMY|FLT province)", path)
    power = table.power_of_token.get(element[0])
    if power is None:
        raise UnreadableOrder(f"{element[0]} is no power", path + (0,))
    where = our_location(table, element[2])
    if where is None:
        raise UnreadableOrder("no such province or coast", path + (2,))
    return power, _KIND[element[1]], where


def _province(table: TokenTable, element: Element, path: tuple[int, ...]) -> str:
    where = our_location(table, element)
    if where is None:
        raise UnreadableOrder("no such province", path)
    return where


def read_order(table: TokenTable, tables: Tables, position: Position, power: str, order: Element) -> Verdict:
    """``order`` (an element of SUB) from ``power`` in ``position``."""
    if type(order) is not tuple or not order:
        raise UnreadableOrder("an order is bracketed", ())
    if len(order) == 2 and order[1] == "WVE":
        if table.power_of_token.get(order[0]) != power:
            return Verdict("NYU")
        if position.phase.kind is not PhaseKind.ADJUSTMENT:
            return Verdict("NRS")
        return _checked(tables, position, power, Waive(power), "WAIVE", "NMB")
    owner, kind, where = _unit_of(table, order[0], (0,))
    if len(order) < 2 or type(order[1]) is not str:
        raise UnreadableOrder("an order word follows the unit", (1,))
    word = order[1]
    if owner != power:
        return Verdict("NYU")
    phase = position.phase.kind
    allowed = {PhaseKind.MOVEMENT: {"HLD", "MTO", "SUP", "CVY", "CTO"}, PhaseKind.RETREAT: {"RTO", "DSB"},
               PhaseKind.ADJUSTMENT: {"BLD", "REM"}}[phase]
    known = {"HLD", "MTO", "SUP", "CVY", "CTO", "RTO", "DSB", "BLD", "REM"}
    if word not in known:
        raise UnreadableOrder(f"{word} is no order", (1,))
    if word in ("HLD", "DSB", "BLD", "REM") and len(order) != 2:
        raise UnreadableOrder(f"{word} takes nothing after it", (2,))
    if word not in allowed:
        return Verdict("NRS")
    if phase is PhaseKind.ADJUSTMENT:
        return _adjustment(table, tables, position, power, kind, where, word)
    if phase is PhaseKind.RETREAT:
        return _retreat(table, position, power, kind, where, word, order)
    return _movement(table, tables, position, power, kind, where, word, order)


def _standing(position: Position, province: str) -> Unit | None:
    return next((u for u in position.units if u.province == province), None)


def _movement(table: TokenTable, tables: Tables, position: Position, power: str, kind: UnitKind, where: str,
              word: str, order: tuple) -> Verdict:
    mine = _standing(position, province_of(where))
    if mine is None or mine.kind is not kind:
        return Verdict("NSU")
    if mine.power != power:
        return Verdict("NYU")
    key = mine.province
    fleet = kind is UnitKind.FLEET
    if word == "HLD":
        return _checked(tables, position, power, Hold(mine), key)
    if word == "MTO":
        if len(order) != 3:
            raise UnreadableOrder("MTO takes one province", (2,))
        target = _province(table, order[2], (2,))
        if fleet and coast_of(target) is None and tables.variant.provinces[target].coasts and \
                province_of(target) in tables.reachable(mine.location, True):
            return Verdict("CST")
        steps = tables.fleet_adj if fleet else tables.army_adj
        if target not in steps.get(mine.location if fleet else key, ()):
            return Verdict("FAR")
        return _checked(tables, position, power, Move(mine, target), key)
    if word == "CTO":
        if len(order) != 5 or order[3] != "VIA" or type(order[4]) is not tuple:
            raise UnreadableOrder("CTO takes a province, VIA and (seas)", (3,))
        target = _province(table, order[2], (2,))
        if fleet:
            return Verdict("NSA")
        route = tuple(_province(table, sea, (4, i)) for i, sea in enumerate(order[4]))
        for sea in route:
            fleet_there = _standing(position, sea)
            if sea not in tables.sea or fleet_there is None or fleet_there.kind is not UnitKind.FLEET:
                return Verdict("NSF")
        chain = (key, *route, province_of(target))
        if not route or any(b not in tables.any_adj.get(a, ()) for a, b in zip(chain, chain[1:])):
            return Verdict("FAR")
        return _checked(tables, position, power, Move(mine, target, True, route), key)
    if word == "SUP":
        if len(order) not in (3, 5) or (len(order) == 5 and order[3] != "MTO"):
            raise UnreadableOrder("SUP takes (unit) or (unit) MTO province", (2,))
        _, other_kind, other_where = _unit_of(table, order[2], (2,))
        other = _standing(position, province_of(other_where))
        if other is None or other.kind is not other_kind:
            return Verdict("NSU")
        reach = tables.reachable(mine.location, fleet)
        if len(order) == 3:
            if other.province not in reach:
                return Verdict("FAR")
            return _checked(tables, position, power, SupportHold(mine, other), key)
        target = _province(table, order[4], (4,))
        if province_of(target) not in reach or province_of(target) == other.province:
            return Verdict("FAR")
        return _checked(tables, position, power, SupportMove(mine, other, province_of(target)), key)
    # CVY
    if len(order) != 5 or order[3] != "CTO":
        raise UnreadableOrder("CVY takes (unit) CTO province", (2,))
    if not fleet or key not in tables.sea:
        return Verdict("NAS")
    _, other_kind, other_where = _unit_of(table, order[2], (2,))
    army = _standing(position, province_of(other_where))
    if army is None or army.kind is not UnitKind.ARMY or other_kind is not UnitKind.ARMY:
        return Verdict("NSA")
    target = _province(table, order[4], (4,))
    return _checked(tables, position, power, Convoy(mine, army.province, province_of(target)), key, "FAR")


def _retreat(table: TokenTable, position: Position, power: str, kind: UnitKind, where: str, word: str,
             order: tuple) -> Verdict:
    entry: Dislodged | None = next((d for d in position.dislodged if d.unit.province == province_of(where)), None)
    if entry is None or entry.unit.kind is not kind:
        return Verdict("NRN")
    if entry.unit.power != power:
        return Verdict("NYU")
    if word == "DSB":
        return Verdict("MBV", Disband(entry.unit), entry.unit.province)
    if len(order) != 3:
        raise UnreadableOrder("RTO takes one province", (2,))
    target = retreat_location(entry, _province(table, order[2], (2,)))
    if target is None:
        return Verdict("NVR")
    return Verdict("MBV", Retreat(entry.unit, target), entry.unit.province)


def _adjustment(table: TokenTable, tables: Tables, position: Position, power: str, kind: UnitKind, where: str,
                word: str) -> Verdict:
    province = province_of(where)
    surplus = balance(position, power)
    if word == "REM":
        standing = _standing(position, province)
        if standing is None or standing.kind is not kind:
            return Verdict("NSU")
        if standing.power != power:
            return Verdict("NYU")
        if surplus >= 0:
            return Verdict("NMR")
        return Verdict("MBV", Remove(standing), province)
    if surplus <= 0:
        return Verdict("NMB")
    if province not in tables.supply_centers:
        return Verdict("NSC")
    if province not in tables.build_homes.get(power, ()):
        return Verdict("HSC")
    if province not in position.centers.get(power, ()):
        return Verdict("YSC")
    if _standing(position, province) is not None:
        return Verdict("ESC")
    if kind is UnitKind.FLEET and coast_of(where) is None and tables.variant.provinces[province].coasts:
        return Verdict("CST")
    return _checked(tables, position, power, Build(power, kind, where), province, "NSC")


def _checked(tables: Tables, position: Position, power: str, order: Order, key: str, otherwise: str = "FAR") -> Verdict:
    """The engine's own legality check has the last word (``otherwise`` when it refuses)."""
    if illegality(tables, position, power, order) is not None:
        return Verdict(otherwise)
    return Verdict("MBV", order, key)


# ---- results -> ORD -------------------------------------------------------------

_RESULT = {"moves": "SUC", "holds": "SUC", "supports": "SUC", "convoys": "SUC", "bounce": "BNC", "cut": "CUT",
           "no_convoy": "DSR", "void": "NSO", "retreats": "SUC", "disbanded": "SUC", "builds": "SUC",
           "removes": "SUC", "waived": "SUC"}
_DISLODGED = {"HLD": "SUC", "MTO": "BNC", "CTO": "BNC", "SUP": "CUT", "CVY": "SUC"}


def order_element(table: TokenTable, position: Position, result: OrderResult,
                  convoy_routes: Mapping[tuple[str, str], tuple[str, ...]] = {}) -> tuple:
    """The DAIDE form of a result line's canonical order, on the board it was given on."""
    words = result.order.split()
    if words == ["WAIVE"]:
        return (table.power_names[result.power], "WVE")
    kind = UnitKind(words[0])
    own = Unit(words[1], kind, result.power)
    head = unit_element(table, own)
    verb = words[2]
    if verb == "H":
        return (head, "HLD")
    if verb == "-":
        target = words[3]
        if len(words) > 4:  # VIA CONVOY
            route = convoy_routes.get((own.province, province_of(target)), ())
            return (head, "CTO", location(table, target), "VIA", tuple(location(table, s) for s in route))
        return (head, "MTO", location(table, target))
    if verb in ("S", "C"):
        other_kind, other_at = UnitKind(words[3]), words[4]
        standing = _standing(position, province_of(other_at))
        other = Unit(standing.location if standing else other_at, other_kind, standing.power if standing else result.power)
        if verb == "C":
            return (head, "CVY", unit_element(table, other), "CTO", location(table, words[6]))
        if len(words) > 5:
            return (head, "SUP", unit_element(table, other), "MTO", location(table, province_of(words[6])))
        return (head, "SUP", unit_element(table, other))
    if verb == "R":
        return (head, "RTO", location(table, words[3]))
    if verb == "B":
        return (head, "BLD")
    # "D": a disband in a retreat phase, a removal in an adjustment phase
    return (head, "REM" if position.phase.kind is PhaseKind.ADJUSTMENT else "DSB")


def result_element(result: OrderResult, order: tuple, dislodged: frozenset[str]) -> tuple:
    verb = order[1]
    if result.result == "dislodged":
        return (_DISLODGED.get(verb, "SUC"), "RET")
    code = _RESULT.get(result.result, "NSO")
    if verb == "RTO" and result.result == "disbanded":
        code = "BNC"
    if verb in ("MTO", "CTO") and result.result == "no_convoy":
        code = "DSR" if verb == "CTO" else "NSO"
    province = province_of(order[0][2]) if type(order[0][2]) is str else order[0][2][0]
    return (code, "RET") if result.result != "dislodged" and province in dislodged else (code,)


def convoy_routes(tables: Tables, results: Sequence[OrderResult]) -> dict[tuple[str, str], tuple[str, ...]]:
    """(army province, destination) -> the seas of a chain of the phase's convoying fleets."""
    fleets: dict[tuple[str, str], set[str]] = {}
    for r in results:
        words = r.order.split()
        if len(words) == 7 and words[2] == "C":
            fleets.setdefault((province_of(words[4]), province_of(words[6])), set()).add(province_of(words[1]))
    routes = {}
    for (start, end), seas in fleets.items():
        routes[(start, end)] = _chain(tables, start, end, seas)
    return routes


def _chain(tables: Tables, start: str, end: str, seas: set[str]) -> tuple[str, ...]:
    queue: deque[tuple[str, ...]] = deque((s,) for s in sorted(seas) if s in tables.any_adj.get(start, ()))
    seen = {path[0] for path in queue}
    while queue:
        path = queue.popleft()
        if end in tables.any_adj.get(path[-1], ()):
            return path
        for sea in sorted(seas - seen):
            if sea in tables.any_adj.get(path[-1], ()):
                seen.add(sea)
                queue.append(path + (sea,))
    return ()


def ord_messages(table: TokenTable, tables: Tables, position: Position, results: Sequence[OrderResult],
                 dislodged: Sequence[Dislodged]) -> list[tuple]:
    """``ORD (turn) (order) (result)`` for every result line of the phase played from ``position``."""
    routes = convoy_routes(tables, results)
    gone = frozenset(d.unit.province for d in dislodged)
    messages = []
    for r in results:
        try:
            order = order_element(table, position, r, routes)
        except (ValueError, KeyError, IndexError):
            continue  # a line no engine read (an unparseable mail order, reported void): no DAIDE form
        messages.append(("ORD", turn(position.phase), order, result_element(r, order, gone)))
    return messages

