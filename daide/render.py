"""The game's state as DAIDE messages: MAP, MDF, HLO, NOW, SCO, MIS, SMR, TME.

Everything is built from adjudicator values (``Variant``, ``Position``,
``Requirement``) and a ``TokenTable`` made for that variant, so any map the judge
can play can be sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from adjudicator.types import NEUTRAL, Phase, PhaseKind, Position, Season, Terrain, Unit, UnitKind, Variant, coast_of, province_of
from daide.messages import Element, Message, Text
from daide.tokens import COAST_SUFFIXES, COAST_TOKENS, TokenTable

_SEASONS = {
    (Season.SPRING, PhaseKind.MOVEMENT): "SPR", (Season.SPRING, PhaseKind.RETREAT): "SUM",
    (Season.FALL, PhaseKind.MOVEMENT): "FAL", (Season.FALL, PhaseKind.RETREAT): "AUT",
    (Season.WINTER, PhaseKind.ADJUSTMENT): "WIN",
}
_PHASES = {name: key for key, name in _SEASONS.items()}


def turn(phase: Phase) -> tuple:
    """``(SPR 1901)``."""
    return (_SEASONS[(phase.season, phase.kind)], phase.year)


def phase_of(element: Element) -> Phase | None:
    """``(SPR 1901)`` -> Phase, or None when it is no turn."""
    if type(element) is not tuple or len(element) != 2 or element[0] not in _PHASES or type(element[1]) is not int:
        return None
    season, kind = _PHASES[element[0]]
    return Phase(element[1], season, kind)


def location(table: TokenTable, where: str) -> Element:
    """``"STP/NC"`` -> ``(STP NCS)``; ``"PAR"`` -> ``PAR``."""
    name = table.province_names[province_of(where)]
    coast = coast_of(where)
    return name if coast is None else (name, COAST_TOKENS[coast])


def our_location(table: TokenTable, element: Element) -> str | None:
    """The inverse of ``location``; None when ``element`` names no province (or coast)."""
    provinces = table.province_of_token
    if type(element) is str:
        return provinces.get(element)
    if type(element) is tuple and len(element) == 2 and element[0] in provinces and element[1] in COAST_SUFFIXES:
        return f"{provinces[element[0]]}/{COAST_SUFFIXES[element[1]]}"
    return None


def unit(table: TokenTable, u: Unit) -> tuple:
    """``(ENG FLT (STP NCS))``."""
    owner = "UNO" if u.power == NEUTRAL else table.power_names[u.power]  # a map's neutral armies: no power's
    return (owner, "AMY" if u.kind is UnitKind.ARMY else "FLT", location(table, u.location))


def map_message(variant: Variant) -> Message:
    return ("MAP", (Text(variant.name),))


def mdf(variant: Variant, table: TokenTable) -> Message:
    powers = tuple(sorted(table.power_names[p.name] for p in variant.powers))
    homes: dict[str, str] = {}
    lists: list[tuple] = []
    for power in sorted(variant.powers, key=lambda p: table.power_names[p.name]):
        centres = sorted(table.province_names[c] for c in power.home_centers)
        homes.update({c: power.name for c in power.home_centers})
        lists.append((table.power_names[power.name], *centres))
    unowned = sorted(table.province_names[c] for c in variant.supply_centers if c not in homes)
    lists.append(("UNO", *unowned))
    others = tuple(sorted(table.province_names[a] for a, p in variant.provinces.items() if not p.supply_center))
    adjacencies = tuple(_adjacency(variant, table, a) for a in sorted(variant.provinces, key=table.province_names.__getitem__))
    return ("MDF", powers, (tuple(lists), others), adjacencies)


def _adjacency(variant: Variant, table: TokenTable, abbrev: str) -> tuple:
    province = variant.provinces[abbrev]
    entries: list[Element] = [table.province_names[abbrev]]
    if province.terrain is not Terrain.SEA:
        armies = sorted(table.province_names[p] for p in variant.army_moves.get(abbrev, ()))
        entries.append(("AMY", *armies))
    if province.terrain is not Terrain.LAND:
        spots: list[tuple[str, Element]] = [(f"{abbrev}/{c}", ("FLT", COAST_TOKENS[c])) for c in province.coasts]
        spots = spots or [(abbrev, "FLT")]
        for spot, head in spots:
            reach = sorted((location(table, l) for l in variant.fleet_moves.get(spot, ())), key=_sort_key)
            entries.append((head, *reach))
    return tuple(entries)


def _sort_key(element: Element) -> str:
    return element if type(element) is str else " ".join(element)  # type: ignore[arg-type]


MAX_SECONDS = 8191  # the largest DAIDE integer


@dataclass(frozen=True)
class Timing:
    """Deadlines in seconds (0: none) for HLO's variant options and TME."""

    movement: int = 0
    retreat: int = 0
    build: int = 0


def hello(table: TokenTable, power: str, passcode: int, timing: Timing, level: int = 0,
          extra: Sequence[Element] = ()) -> Message:
    options: list[Element] = [("LVL", level)]
    for token, seconds in (("MTL", timing.movement), ("RTL", timing.retreat), ("BTL", timing.build)):
        if 0 < seconds <= MAX_SECONDS:  # longer limits do not fit a DAIDE integer: none is announced
            options.append((token, seconds))
    options.extend(extra)
    return ("HLO", (table.power_names[power],), (passcode,), tuple(options))


def now(table: TokenTable, position: Position) -> Message:
    body: list[Element] = [turn(position.phase)]
    body.extend(unit(table, u) for u in position.units)
    for d in position.dislodged:
        body.append((*unit(table, d.unit), "MRT", tuple(location(table, l) for l in d.retreats)))
    return ("NOW", *body)


def supply_centres(variant: Variant, table: TokenTable, centers: Mapping[str, Iterable[str]]) -> Message:
    owned: set[str] = set()
    groups: list[Element] = []
    for power in sorted(variant.powers, key=lambda p: table.power_names[p.name]):
        mine = sorted(table.province_names[c] for c in centers.get(power.name, ()))
        owned.update(centers.get(power.name, ()))
        groups.append((table.power_names[power.name], *mine))
    groups.append(("UNO", *sorted(table.province_names[c] for c in variant.supply_centers - owned)))
    return ("SCO", *groups)


def missing(table: TokenTable, position: Position, power: str, ordered_units: set[str], adjustment: int = 0) -> Message:
    """MIS for ``power``: unordered units (movement), unordered dislodged units with their
    retreats (retreat), or ``(n)`` in an adjustment phase: removals still to order when
    positive, builds still open when negative."""
    kind = position.phase.kind
    if kind is PhaseKind.ADJUSTMENT:
        return ("MIS", (adjustment,))
    if kind is PhaseKind.RETREAT:
        return ("MIS", *[(*unit(table, d.unit), "MRT", tuple(location(table, l) for l in d.retreats))
                         for d in position.dislodged if d.unit.power == power and d.unit.province not in ordered_units])
    return ("MIS", *[unit(table, u) for u in position.units if u.power == power and u.province not in ordered_units])


@dataclass(frozen=True)
class PlayerSummary:
    power: str
    name: str
    version: str
    centres: int
    eliminated_in: int | None = None


def summary(table: TokenTable, phase: Phase, players: Sequence[PlayerSummary]) -> Message:
    rows: list[Element] = []
    for p in sorted(players, key=lambda p: table.power_names[p.power]):
        row: tuple = (table.power_names[p.power], (Text(p.name),), (Text(p.version),), p.centres)
        rows.append(row + ((p.eliminated_in,) if p.eliminated_in is not None else ()))
    return ("SMR", turn(phase), *rows)


def time_left(seconds: int) -> Message | None:
    """TME (seconds), or None when the time left does not fit a DAIDE integer."""
    return ("TME", (max(0, seconds),)) if seconds <= MAX_SECONDS else None
