"""Canonical order forms: every plainly legal movement order of a map, as text, worked out once.

Most order lines a judge receives are already canonical (``A PAR - BUR``,
``F NTH S A LON - BEL``: what its own replies show and what client programs
write).  For such a line the parser's work is only to find the units it names
and to check the order's geography, and the geography does not depend on the
position.  So for each variant this module lists, once, the canonical text of
every hold, move (without convoy) and support whose geography is legal for a unit
standing where the text says, with what the parser would read from it: looking
a line up replaces splitting it and asking the tables.  The units are still
found on the board, per phase (``adjudicator.api``); a line that is not listed
(other spellings, convoys, supports of moves the supported unit could not make
by itself, anything illegal) goes through the lenient parser and the legality
check as before, so the forms change how fast, never what, is understood.

A form (``Form``, a named tuple: read by name, or taken apart in one step in the hot
loop) starts with the order's note for the resolver, ``(province, shape, target)``
(``adjudicator.resolve.Note``), so the form itself serves as the note and a
phase's notes are objects already in memory.  A hold or a move is the same order in every
position where its unit stands as written, so its form carries that order already made for
each power of the map, ``orders[tables.power_ordinal[power]]`` (orders are values: equal
to one made anew, and a phase need not build them).
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

from adjudicator.memo import per_variant
from adjudicator.orders import Hold, Move, Order
from adjudicator.resolve import CONVOY, HOLD, MOVE, SUPPORT_HOLD, SUPPORT_MOVE
from adjudicator.tables import Tables, tables_for
from adjudicator.types import Unit, UnitKind, Variant, province_of


class Form(NamedTuple):
    """What the parser reads from one canonical line; fields a shape does not use are ``None``."""

    province: str  # the ordered unit's province
    shape: int  # the resolver's kind code: HOLD, MOVE, SUPPORT_HOLD or SUPPORT_MOVE
    target: str  # adjudicator.resolve.order_shape's target ("" for a hold)
    location: str  # where the ordered unit stands (with its coast)
    kind: UnitKind  # the ordered unit's kind
    canonical: str  # the order's canonical text (a support may name a fleet by its coast, this text by its province)
    supported_kind: UnitKind | None  # a support's: the kind of unit that must stand ...
    supported_province: str | None  # ... in this province
    supported_to: str | None  # a support of a move's destination, as written
    orders: tuple[Order, ...] | None  # a hold's or a move's order for each power (power_ordinal)
    # A move by convoy over sea, or a convoy: the question the position must still answer
    # (``canonical_lines``: is there a chain of fleets, and for a convoy the army to carry)
    by_sea: int = 0  # NOT_BY_SEA, MOVE_BY_SEA or CONVOY_BY_SEA


NOT_BY_SEA, MOVE_BY_SEA, CONVOY_BY_SEA = range(3)


@per_variant
def forms_for(variant: Variant) -> Mapping[str, Form]:
    """Canonical text -> form, for every plainly legal hold, move and support of ``variant``
    (memoised per variant, like ``tables_for``: derived from immutable data only)."""
    return _build(tables_for(variant))


def _stands(tables: Tables) -> list[tuple[UnitKind, str]]:
    """Every (kind, location) a unit may stand on."""
    armies = [(UnitKind.ARMY, p) for p in tables.army_adj if p not in tables.sea]
    fleets = [(UnitKind.FLEET, loc) for loc in sorted(tables.fleet_locations)]
    return armies + fleets


def _targets(tables: Tables, kind: UnitKind, province: str) -> dict[str, str]:
    """Where a unit of ``kind`` in ``province`` could move by itself, as a supporter may
    write it -> the province: provinces, and for fleets also the coasts they reach."""
    if kind is UnitKind.ARMY:
        return {p: p for p in tables.army_adj.get(province, ())}
    found: dict[str, str] = {}
    for location in tables.fleet_locations:
        if tables.prov_of[location] == province:
            for step in tables.fleet_adj[location]:
                found[step] = found[province_of(step)] = province_of(step)
    return found


def _build(tables: Tables) -> dict[str, Form]:
    forms: dict[str, Form] = {}
    stands = _stands(tables)
    # who may stand in a province (a supported unit is named by its province)
    kinds_in: dict[str, set[UnitKind]] = {}
    for kind, location in stands:
        kinds_in.setdefault(tables.prov_of[location], set()).add(kind)
    # target province -> (origin, kind, the target as written) of every move a unit could make by itself
    movers_into: dict[str, list[tuple[str, UnitKind, str]]] = {}
    for origin, origin_kinds in kinds_in.items():
        for other_kind in origin_kinds:
            for written, target in _targets(tables, other_kind, origin).items():
                movers_into.setdefault(target, []).append((origin, other_kind, written))
    for kind, location in stands:
        province = tables.prov_of[location]
        head = f"{kind.value} {location}"
        hold = f"{head} H"
        units = [Unit(location, kind, power.name) for power in tables.variant.powers]  # as power_ordinal counts
        forms[hold] = Form(province, HOLD, "", location, kind, hold, None, None, None, tuple(map(Hold, units)))
        for step in tables.steps[kind].get(location, ()):
            there = tables.prov_of[step]
            move = f"{head} - {step}"
            forms[move] = Form(province, MOVE, there, location, kind, move, None, None, None,
                           tuple(Move(unit, step) for unit in units))
        for target in tables.reach[kind].get(location, ()):
            for other_kind in kinds_in.get(target, ()):
                canonical = f"{head} S {other_kind.value} {target}"
                form = Form(province, SUPPORT_HOLD, target, location, kind, canonical, other_kind, target, None, None)
                for written in _names_of(tables, target, other_kind):
                    forms[f"{head} S {other_kind.value} {written}"] = form
            for origin, other_kind, written in movers_into.get(target, ()):
                if origin != province:
                    canonical = f"{head} S {other_kind.value} {origin} - {written}"
                    form = Form(province, SUPPORT_MOVE, target, location, kind, canonical, other_kind, origin, written, None)
                    for origin_written in _names_of(tables, origin, other_kind):
                        forms[f"{head} S {other_kind.value} {origin_written} - {written}"] = form
        if kind is UnitKind.ARMY:
            _add_moves_by_convoy(tables, forms, province, units)
        elif province in tables.convoy_seas:
            _add_convoys(tables, forms, location)
    return forms


def _add_moves_by_convoy(tables: Tables, forms: dict[str, Form], province: str, units: list[Unit]) -> None:
    """``A LON - NWY VIA CONVOY``: to a neighbour (legal as it stands) or, from a coast, to
    any other coast (legal when a chain of fleets joins them, asked per position)."""
    adjacent = tables.army_adj.get(province, frozenset())
    coasts = tables.coastal if province in tables.coastal else frozenset()
    for destination in sorted(adjacent | coasts):
        if destination == province or "/" in destination:
            continue
        text = f"A {province} - {destination} VIA CONVOY"
        forms[text] = Form(province, MOVE, destination, province, UnitKind.ARMY, text, None, None, None,
                           tuple(Move(unit, destination, True) for unit in units),
                           NOT_BY_SEA if destination in adjacent else MOVE_BY_SEA)


def _add_convoys(tables: Tables, forms: dict[str, Form], location: str) -> None:
    """``F NTH C A LON - NWY``, for the coasts the seas next to the fleet's touch (a longer
    convoy is read the long way): legal when an army stands there and a chain of fleets
    through this one joins the coasts, asked per position."""
    province = tables.prov_of[location]
    near = {province, *tables.sea_touching.get(province, ())}
    coasts = sorted(p for p in tables.coastal if not near.isdisjoint(tables.sea_touching.get(p, ())))
    for army_from in coasts:
        for army_to in coasts:
            if army_from != army_to:
                text = f"F {location} C A {army_from} - {army_to}"
                forms[text] = Form(province, CONVOY, "", location, UnitKind.FLEET, text, UnitKind.ARMY, army_from, army_to,
                                   None, CONVOY_BY_SEA)


def _names_of(tables: Tables, province: str, kind: UnitKind) -> list[str]:
    """How a supported unit of ``kind`` in ``province`` may be written: the province, and a
    fleet also by the coast it stands on (the canonical text names the province only; the
    supported unit is whatever stands there, as for the lenient parser)."""
    if kind is UnitKind.ARMY:
        return [province]
    return [province] + sorted(loc for loc in tables.fleet_locations if loc != province and tables.prov_of[loc] == province)
