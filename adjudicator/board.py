"""A ``Board``: one position prepared for the engine's questions, built once by ``prepare``.

Parsing and adjudicating a phase ask "which unit stands in this province?" hundreds
of times.  ``Position`` answers from its tuple of units; a ``Board`` holds the
lookup tables derived from it (and the variant's ``Tables``), so that a caller
handling one phase builds them once and passes the board to every call
(``api.parse_orders(board, ...)``, ``api.adjudicate(board, ...)``).

A Board is a value: every field is computed in ``prepare`` and never changed
afterwards (the dicts are plain dicts for lookup speed; nothing writes to them).
It caches nothing and remembers nothing about the calls it is passed to, so it
may be shared, kept or dropped freely.
"""

from __future__ import annotations

from operator import attrgetter
from types import MappingProxyType
from typing import Mapping

from adjudicator.adjustments import balances
from adjudicator.forms import Form, forms_for
from adjudicator.tables import Tables, tables_for
from adjudicator.types import PhaseKind, Position, Unit, UnitKind, Variant, province_of
from adjudicator.values import value


@value(eq=False)
class Board:
    variant: Variant
    position: Position
    tables: Tables  # tables_for(variant)
    units: Mapping[str, Unit]  # province -> the (not dislodged) unit standing there
    provinces: tuple[str, ...]  # the province of each of position.units, in order
    # Asked only in a movement phase (empty on the board of a retreat or adjustment phase):
    fleet_seas: frozenset[str]  # sea provinces holding a fleet (convoy legality)
    index: Mapping[str, int]  # province -> its unit's index in position.units
    powers: tuple[str, ...]  # the power of each of position.units, in order
    forms: Mapping[str, Form]  # forms_for(variant): the map's canonical movement orders
    # Asked only in an adjustment phase (empty otherwise): adjustments.balances(position),
    # centres minus units of every power, for the check of each build and removal.
    surpluses: Mapping[str, int]

    def unit_at(self, location: str) -> Unit | None:
        """The unit in the province of ``location`` (coast ignored), if any."""
        return self.units.get(self.tables.prov_of.get(location) or province_of(location))


_location = attrgetter("location")
_power = attrgetter("power")


def prepare(variant: Variant, position: Position) -> Board:
    """The board of ``position`` on ``variant``: derived lookup tables, computed once."""
    tables = tables_for(variant)
    prov_of = tables.prov_of
    units = position.units
    try:
        provinces = tuple(map(prov_of.__getitem__, map(_location, units)))  # no Python loop: C-level maps
    except KeyError:  # a location the map does not know (the engine reports it later)
        provinces = tuple([prov_of.get(u.location) or province_of(u.location) for u in units])
    by_province = dict(zip(provinces, units))
    kind = position.phase.kind
    if kind is not PhaseKind.MOVEMENT:
        surpluses = balances(position) if kind is PhaseKind.ADJUSTMENT else _NO_SURPLUSES
        return Board(variant, position, tables, by_province, provinces, _NO_SEAS, _NO_INDEX, (), _NO_FORMS, surpluses)
    # Only a fleet stands at sea (an army there is refused wherever a position is read), so the
    # seas holding a fleet are the seas holding a unit.
    fleet_seas = tables.sea.intersection(provinces)
    if tables.archipelagos:  # an army may stand there too
        fleet_seas |= {p for p in tables.archipelagos.intersection(provinces) if by_province[p].kind is UnitKind.FLEET}
    index = dict(zip(provinces, range(len(provinces))))
    powers = tuple(map(_power, units))
    return Board(variant, position, tables, by_province, provinces, fleet_seas, index, powers, forms_for(variant), _NO_SURPLUSES)


_NO_SEAS: frozenset[str] = frozenset()
_NO_INDEX: Mapping[str, int] = MappingProxyType({})
_NO_FORMS: Mapping[str, Form] = MappingProxyType({})
_NO_SURPLUSES: Mapping[str, int] = MappingProxyType({})
