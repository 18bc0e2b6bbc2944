"""Frozen vocabulary of the rules engine: maps, units, phases, positions.

Locations are plain upper-case strings: a province abbreviation (``"PAR"``) or a
province with a coast (``"SPA/NC"``).  Strings keep positions cheap to build,
hash and serialise; the helpers below are the only place that splits them.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, NamedTuple

from adjudicator.values import value


def province_of(location: str) -> str:
    """``"SPA/NC"`` -> ``"SPA"``; a location without coast is its own province."""
    slash = location.find("/")
    return location if slash < 0 else location[:slash]


def coast_of(location: str) -> str | None:
    """``"SPA/NC"`` -> ``"NC"``; ``None`` when the location names no coast."""
    slash = location.find("/")
    return None if slash < 0 else location[slash + 1 :]


class UnitKind(enum.Enum):
    ARMY = "A"
    FLEET = "F"

    def __str__(self) -> str:
        return self.value


class Terrain(enum.Enum):
    LAND = "land"
    SEA = "sea"
    COAST = "coast"


class Season(enum.Enum):
    SPRING = "S"
    FALL = "F"
    WINTER = "W"


class PhaseKind(enum.Enum):
    MOVEMENT = "M"
    RETREAT = "R"
    ADJUSTMENT = "A"


# Keyed by the members' values: an Enum member hashes through a Python-level __hash__.
NEUTRAL = "NEUTRAL"  # the power of a map's neutral armies (Variant.neutral_armies): no player orders them

_SEASON_RANK = {Season.SPRING.value: 0, Season.FALL.value: 1, Season.WINTER.value: 2}
_KIND_RANK = {PhaseKind.MOVEMENT.value: 0, PhaseKind.RETREAT.value: 1, PhaseKind.ADJUSTMENT.value: 2}


@value(order=True)
class Phase:
    """A phase such as ``S1901M``; ordering follows play order."""

    year: int
    season: Season = field(compare=False)
    kind: PhaseKind = field(compare=False)
    _rank: int = field(default=0, repr=False, compare=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_rank", _SEASON_RANK[self.season._value_] * 3 + _KIND_RANK[self.kind._value_])

    @classmethod
    def parse(cls, text: str) -> "Phase":
        """Parse ``S1901M``-style text; raises ValueError on anything else."""
        if cls is Phase:
            return _parse_phase(text)
        return cls._parse(text)

    @classmethod
    def _parse(cls, text: str) -> Phase:
        text = text.strip().upper()
        if len(text) < 3 or text[0] not in "SFW" or text[-1] not in "MRA" or not text[1:-1].isdigit():
            raise ValueError(f"not a phase: {text!r} (expected e.g. S1901M, F1901R, W1901A)")
        return cls(int(text[1:-1]), _SEASONS[text[0]], _KINDS[text[-1]])

    def __str__(self) -> str:
        return f"{self.season._value_}{self.year}{self.kind._value_}"  # _value_: a plain attribute

    def closes_year(self, following: Phase) -> bool:
        """Does playing this phase end a game year (centres counted), ``following`` being
        the phase after it?  True for the last Fall phase before a Winter or the next
        Spring; judged by season, not by the year's number (Hundred's Fall 1430 follows
        Spring 1425)."""
        if self.kind is PhaseKind.ADJUSTMENT or self.season is Season.SPRING:
            return False
        return following.kind is PhaseKind.ADJUSTMENT or following.season is Season.SPRING


# Phases are values: the texts a batch meets (a few per game year) are each read once.
_parse_phase = functools.lru_cache(maxsize=1024)(Phase._parse)
_SEASONS = {season._value_: season for season in Season}  # dict lookups: an Enum's call is Python-level
_KINDS = {kind._value_: kind for kind in PhaseKind}


@dataclass(frozen=True, slots=True)
class Province:
    abbrev: str
    name: str
    terrain: Terrain
    coasts: tuple[str, ...] = ()  # split coasts only, e.g. ("NC", "SC")
    supply_center: bool = False
    # An archipelago (Ancient Mediterranean's Baleares): a coastal province that armies
    # reach only by convoy and where a fleet may convoy as if at sea.
    convoys: bool = False


@dataclass(frozen=True, slots=True)
class PowerDef:
    name: str  # upper-case English name: "ENGLAND"
    adjective: str  # "English"
    letter: str  # initial used in preference lists and draw votes: "E" (a digit on maps of many powers)
    home_centers: tuple[str, ...]  # where it builds (``claims`` included)
    starting_units: tuple["Unit", ...]
    claims: tuple[str, ...] = ()  # home centres it does not own at the start


@dataclass(frozen=True, eq=False)
class Variant:
    """A map with its powers: everything the engine needs, as immutable data.

    ``army_moves[p]`` is the set of provinces an army in province ``p`` may move to;
    ``fleet_moves[loc]`` the set of locations (with coasts where split) a fleet at
    ``loc`` may move to.  ``aliases`` maps a normalised name (upper case, single
    spaces, no punctuation) to a location.

    The calendar: play starts with ``start_phase`` (normally Spring movement of
    ``start_year``; Chaos starts with the builds of Winter 1900).  A Fall comes
    ``years_to_fall`` years after its Spring and the next Spring ``years_to_spring`` years
    after that Fall (0 and 1 normally; Hundred's 5 and 5 make Spring 1425, Fall 1430,
    Spring 1435).  With ``builds_anywhere`` a power builds in any owned, unoccupied
    supply centre, not only its home centres; with ``builds_any_home`` in any owned,
    unoccupied centre that is a home centre of some power.  Besides ``victory_centers``, a
    map with ``lead_until`` is won by a power leading every other by ``lead_until - year``
    centres (at least one) at the end of a year.  With ``neutral_armies`` every centre that
    is no power's home starts with an army of ``NEUTRAL``, which holds, is disbanded when
    dislodged, and is rebuilt after a Fall while its centre is empty and owned by no power
    (``neutral_centres``).  ``title`` and ``rules`` are what players
    are told of the variant (its full name and special rules, one line each).
    """

    name: str
    provinces: Mapping[str, Province]
    army_moves: Mapping[str, frozenset[str]]
    fleet_moves: Mapping[str, frozenset[str]]
    aliases: Mapping[str, str]
    powers: tuple[PowerDef, ...]
    victory_centers: int
    start_year: int = 1901
    start_phase: Phase | None = None  # None: Spring movement of start_year
    years_to_fall: int = 0
    years_to_spring: int = 1
    builds_anywhere: bool = False
    builds_any_home: bool = False
    lead_until: int | None = None
    neutral_armies: bool = False
    title: str = ""
    rules: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("provinces", "army_moves", "fleet_moves", "aliases"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))
        if self.start_phase is None:
            object.__setattr__(self, "start_phase", Phase(self.start_year, Season.SPRING, PhaseKind.MOVEMENT))
        if not self.title:
            object.__setattr__(self, "title", self.name.replace("_", " ").title())

    def fall_after(self, spring: Phase) -> Phase:
        """The Fall movement phase that follows ``spring``'s season."""
        return Phase(spring.year + self.years_to_fall, Season.FALL, PhaseKind.MOVEMENT)

    def spring_after(self, fall: Phase) -> Phase:
        """The Spring movement phase that follows ``fall``'s year (its Fall or Winter)."""
        return Phase(fall.year + self.years_to_spring, Season.SPRING, PhaseKind.MOVEMENT)

    def power(self, name: str) -> PowerDef:
        for power in self.powers:
            if power.name == name:
                return power
        raise KeyError(name)

    @property
    def supply_centers(self) -> frozenset[str]:
        return frozenset(p.abbrev for p in self.provinces.values() if p.supply_center)

    @property
    def neutral_centres(self) -> frozenset[str]:
        """The centres that get a neutral army (none unless ``neutral_armies``): those that are no power's home."""
        if not self.neutral_armies:
            return frozenset()
        return self.supply_centers.difference(*(p.home_centers for p in self.powers))

    @property
    def headline(self) -> str:
        """The variant in one line: ``"Hundred: 3 powers, 9 of 17 centres to win"``."""
        return (f"{self.title}: {len(self.powers)} powers, {self.victory_centers} of "
                f"{len(self.supply_centers)} centres to win")


class Unit(NamedTuple):
    """A unit on the board.  Units compare, order and hash by location only (at most one unit
    stands in a place).  A named tuple: the engine builds some in every phase, and a tuple is
    the cheapest frozen value to build; ``by_location`` makes the comparisons."""

    location: str
    kind: UnitKind
    power: str

    @property
    def province(self) -> str:
        return province_of(self.location)

    def __str__(self) -> str:
        return f"{self.kind._value_} {self.location}"  # _value_: plain attribute, faster than .value


def _by_location(cls: type) -> type:
    """Equality, ordering and hashing of ``cls`` (a named tuple whose first field is the
    location) by location alone, as a frozen dataclass with the other fields left out of the
    comparison would have them; never equal to, nor ordered against, anything else."""
    location = tuple.__getitem__

    def same_kind(other: object) -> bool:
        return type(other) is cls

    cls.__eq__ = lambda self, other: same_kind(other) and location(self, 0) == location(other, 0)  # type: ignore[method-assign,assignment,misc]
    cls.__ne__ = lambda self, other: not (same_kind(other) and location(self, 0) == location(other, 0))  # type: ignore[method-assign,assignment,misc]
    cls.__hash__ = lambda self: hash((location(self, 0),))  # type: ignore[method-assign,assignment,misc]
    for name, test in (("__lt__", str.__lt__), ("__le__", str.__le__), ("__gt__", str.__gt__), ("__ge__", str.__ge__)):
        def compare(self: tuple, other: object, test: object = test) -> bool:
            if not same_kind(other):
                return NotImplemented
            return test(location(self, 0), location(other, 0))  # type: ignore[operator,call-overload]
        setattr(cls, name, compare)
    return cls


_by_location(Unit)


@value()
class Dislodged:
    """A unit dislodged in a movement phase, waiting for its retreat order."""

    unit: Unit
    attacker_from: str | None
    retreats: tuple[str, ...]  # locations it may retreat to, already net of all exclusions


@value(eq=False)
class Position:
    """The board at the start of ``phase``.  ``centers`` maps power -> owned centres."""

    phase: Phase
    units: tuple[Unit, ...]
    centers: Mapping[str, frozenset[str]]
    dislodged: tuple[Dislodged, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.centers, MappingProxyType):
            object.__setattr__(
                self,
                "centers",
                MappingProxyType({p: frozenset(c) for p, c in self.centers.items()}),
            )

    def unit_at(self, province: str) -> Unit | None:
        """The (not dislodged) unit in ``province`` (coast ignored), if any.

        A scan of ``units``: for occasional questions.  Code asking many (the engine's
        parse and adjudication) asks an ``adjudicator.board.Board``, built once."""
        wanted = province_of(province)
        for unit in self.units:
            if province_of(unit.location) == wanted:
                return unit
        return None

    def owner_of(self, center: str) -> str | None:
        for power, owned in self.centers.items():
            if center in owned:
                return power
        return None
