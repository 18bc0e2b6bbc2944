"""Map files: the text of a ``.map`` file -> a ``Variant``.

Pure: the caller reads the file (``maps.load``) and passes its text and name.
Every problem is refused with a ``MapError`` naming the file, the line and what
is wrong, so that a variant author can fix the file without reading this code.

The format (``maps/standard.map`` is the worked example)::

    # comment                     '#' starts a comment; blank lines are ignored
    map standard                  header: the variant's name (default: the file name)
    title Standard Diplomacy      the name players read (default: the name, capitalised)
    rule Free text                a special rule, told to players (repeatable)
    base standard                 take [provinces], [coasts] and [adjacencies] from that
                                  map; this file then gives only [powers]
    victory 18                    centres needed to win (default: more than half)
    start 1901                    first year (default 1901), or the first phase (W1900A)
    years-to-fall 0               years from a Spring to its Fall (default 0)
    years-to-spring 1             years from a Fall to the next Spring (default 1)
    builds home                   build sites: home (owned home centres, the default),
                                  anywhere (any owned supply centre) or any-home (any
                                  owned centre that is some power's home centre)
    lead-until 2021               a power also wins by leading every other by (that year -
                                  the year) centres, at least one, at the end of a year
    neutral-armies yes            every centre that is no power's home holds a neutral army
                                  (it holds, is disbanded when dislodged, and is rebuilt
                                  after a Fall while its centre is empty and unowned)

    [provinces]
    ABBR TERRAIN CENTRE Full name [= alias, alias, ...]
        TERRAIN is land, sea, coast or archipelago; CENTRE is SC (a supply centre) or -.
        An archipelago is a coastal province where a fleet may convoy as if at sea;
        armies reach it by convoy, or by the army moves it lists (most list none).
    [coasts]
    PROVINCE COAST COAST ...      split coasts (NC, SC, EC, WC) of a coastal province
    [adjacencies]
    LOCATION [A: PROVINCE ...] [F: LOCATION ...] [A>: PROVINCE ...] [F>: LOCATION ...]
        army moves (between land/coast provinces) and fleet moves (between sea/coast
        locations); ``A>:`` and ``F>:`` list one-way moves, whose neighbour must not list
        the way back (North Sea Wars' trade provinces).  A split-coast province gives its army moves on the province and
        its fleet moves per coast (``SPA/NC F: GAS MAO POR``); fleet neighbours with
        split coasts name the coast.  Every adjacency is listed from both ends: a
        one-way adjacency is an error, which catches most typing mistakes.
    [powers]
    NAME Adjective Letter homes: CENTRE ... [claims: CENTRE ...] units: UNIT, UNIT, ...
        e.g. ``RUSSIA Russian R homes: MOS SEV STP WAR units: A MOS, F SEV, F STP/SC, A WAR``
        The letter (a letter or a digit) is the power's initial in power lists.
        A power owns its home centres at the start; ``claims:`` are home centres it does
        not own at the start (it builds there once it has taken them).

Names are case-insensitive; abbreviations are stored upper case.  Aliases are
stored normalised (see ``normalise_name``) and must be unique across the map.

In the resulting ``Variant``: ``army_moves`` has a key for every province (empty
for seas); ``fleet_moves`` has a key for every location a fleet can stand on (each
coast of a split-coast province, every other province; empty for land) and none
for a bare split-coast province.  ``aliases`` maps every normalised abbreviation,
full name and alias to its province abbreviation (coasts are not aliases: the
order parser reads them separately).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from collections.abc import Callable

from adjudicator.types import NEUTRAL, Phase, PhaseKind, PowerDef, Province, Season, Terrain, Unit, UnitKind, Variant

COAST_NAMES: dict[str, str] = {
    "NC": "north coast",
    "SC": "south coast",
    "EC": "east coast",
    "WC": "west coast",
}

_SECTIONS = ("provinces", "coasts", "adjacencies", "powers")
_GEOGRAPHY = _SECTIONS[:3]  # what a map with a ``base`` takes from it
_HEADERS = {
    "map": "map NAME", "base": "base MAP", "victory": "victory N", "start": "start YEAR|PHASE",
    "years-to-fall": "years-to-fall N", "years-to-spring": "years-to-spring N",
    "builds": "builds home|anywhere|any-home", "lead-until": "lead-until YEAR", "neutral-armies": "neutral-armies yes|no", "title": "title TEXT", "rule": "rule TEXT",
}
_ABBREV = re.compile(r"[A-Z][A-Z0-9]*\Z")
_DROPPED = str.maketrans("", "", ".'’")
_NOT_ALNUM = re.compile(r"[^A-Z0-9]+")


class MapError(ValueError):
    """A map file that cannot be used; ``str()`` reads ``file:line: problem``."""

    def __init__(self, filename: str, line: int, problem: str) -> None:
        super().__init__(f"{filename}:{line}: {problem}")
        self.filename = filename
        self.line = line
        self.problem = problem


def normalise_name(text: str) -> str:
    """Upper case, periods and apostrophes dropped, other punctuation as single spaces.

    ``"Mid-Atlantic Ocean"`` -> ``"MID ATLANTIC OCEAN"``, ``"St. Petersburg"`` ->
    ``"ST PETERSBURG"``.  Used for map aliases and by the order parser.
    """
    return _NOT_ALNUM.sub(" ", text.upper().translate(_DROPPED)).strip()


@dataclass
class _ProvinceDraft:
    abbrev: str
    name: str
    terrain: Terrain
    supply_center: bool
    line: int
    coasts: tuple[str, ...] = ()
    convoys: bool = False


@dataclass
class _PowerDraft:
    name: str
    adjective: str
    letter: str
    homes: list[str]
    units: list[Unit]
    line: int
    claims: list[str] = field(default_factory=list)


@dataclass
class _Reader:
    filename: str
    map_name: str | None = None
    victory: int | None = None
    start_year: int = 1901
    start_phase: Phase | None = None
    years_to_fall: int = 0
    years_to_spring: int = 1
    builds_anywhere: bool = False
    builds_any_home: bool = False
    lead_until: int | None = None
    neutral_armies: bool = False
    title: str = ""
    rules: list[str] = field(default_factory=list)
    base: str | None = None
    provinces: dict[str, _ProvinceDraft] = field(default_factory=dict)
    names: dict[str, tuple[str, int]] = field(default_factory=dict)  # alias -> (abbrev, line)
    coast_lines: dict[str, int] = field(default_factory=dict)
    army: dict[str, list[str]] = field(default_factory=dict)
    fleet: dict[str, list[str]] = field(default_factory=dict)
    adjacency_lines: dict[str, int] = field(default_factory=dict)
    one_way: set[tuple[str, str, str]] = field(default_factory=set)  # (A|F, from, to) listed with A>: or F>:
    powers: dict[str, _PowerDraft] = field(default_factory=dict)
    last_line: int = 0

    def error(self, line: int, problem: str) -> MapError:
        return MapError(self.filename, line, problem)

    # -- header ---------------------------------------------------------------

    def header(self, line: int, words: list[str]) -> None:
        key = words[0].lower()
        if key in ("title", "rule") and len(words) > 1:
            if key == "title":
                self.title = " ".join(words[1:])
            else:
                self.rules.append(" ".join(words[1:]))
            return
        if len(words) != 2 or key not in _HEADERS:
            raise self.error(
                line,
                f"unexpected {' '.join(words)!r} before the first section (expected "
                + ", ".join(repr(h) for h in _HEADERS.values()) + " or a [section])",
            )
        value = words[1]
        if key == "map":
            self.map_name = value.lower()
        elif key == "base":
            self.base = value.lower()
        elif key == "builds":
            if value.lower() not in ("home", "anywhere", "any-home"):
                raise self.error(line, f"builds must be 'home', 'anywhere' or 'any-home', not {value!r}")
            self.builds_anywhere = value.lower() == "anywhere"
            self.builds_any_home = value.lower() == "any-home"
        elif key == "neutral-armies":
            if value.lower() not in ("yes", "no"):
                raise self.error(line, f"neutral-armies must be 'yes' or 'no', not {value!r}")
            self.neutral_armies = value.lower() == "yes"
        elif key == "start" and not value.isdigit():
            try:
                self.start_phase = Phase.parse(value)
            except ValueError:
                raise self.error(line, f"start needs a year (1901) or a phase (S1901M, W1900A), not {value!r}") from None
            if self.start_phase.kind is PhaseKind.RETREAT:
                raise self.error(line, f"a game cannot start with a retreat phase ({value})")
            self.start_year = self.start_phase.year
        else:
            number = int(value) if value.isdigit() else -1
            if number < 0 or (number == 0 and key not in ("years-to-fall",)):
                raise self.error(line, f"{key} needs a {'whole' if key == 'years-to-fall' else 'positive whole'} number, not {value!r}")
            if key == "victory":
                self.victory = number
            elif key == "lead-until":
                self.lead_until = number
            elif key == "start":
                self.start_year = number
            elif key == "years-to-fall":
                self.years_to_fall = number
            else:
                self.years_to_spring = number

    # -- [provinces] ---------------------------------------------------------

    def province(self, line: int, text: str) -> None:
        left, _, alias_text = text.partition("=")
        words = left.split()
        if len(words) < 4:
            raise self.error(line, f"expected 'ABBR TERRAIN SC|- Full name', got {text.strip()!r}")
        abbrev, terrain_word, centre_word = words[0].upper(), words[1].lower(), words[2].upper()
        convoys = terrain_word == "archipelago"
        if convoys:
            terrain_word = Terrain.COAST.value
        name = " ".join(words[3:])
        if not _ABBREV.match(abbrev):
            raise self.error(line, f"bad province abbreviation {words[0]!r} (letters and digits, starting with a letter)")
        if abbrev in self.provinces:
            raise self.error(line, f"duplicate province {abbrev!r} (first declared on line {self.provinces[abbrev].line})")
        try:
            terrain = Terrain(terrain_word)
        except ValueError:
            raise self.error(line, f"unknown terrain {words[1]!r} for {abbrev} (expected land, sea, coast or archipelago)") from None
        if centre_word not in ("SC", "-"):
            raise self.error(line, f"expected SC or - after the terrain of {abbrev}, got {words[2]!r}")
        self.provinces[abbrev] = _ProvinceDraft(abbrev, name, terrain, centre_word == "SC", line, convoys=convoys)
        aliases = [a.strip() for a in alias_text.split(",")] if alias_text.strip() else []
        for alias in [abbrev, name, *aliases]:
            self.add_name(line, alias, abbrev)

    def add_name(self, line: int, alias: str, abbrev: str) -> None:
        key = normalise_name(alias)
        if not key:
            raise self.error(line, f"empty alias for {abbrev}")
        if key in self.names:
            owner, first = self.names[key]
            if owner == abbrev and first == line:
                return  # the full name is the abbreviation itself (FEZ  Fez)
            raise self.error(line, f"duplicate alias {alias!r}: already names {owner} (line {first})")
        self.names[key] = (abbrev, line)

    # -- [coasts] ---------------------------------------------------------------

    def coasts(self, line: int, words: list[str]) -> None:
        province = self.known_province(line, words[0], "coasts")
        if province.abbrev in self.coast_lines:
            raise self.error(line, f"coasts of {province.abbrev} already given on line {self.coast_lines[province.abbrev]}")
        if province.terrain is not Terrain.COAST:
            raise self.error(line, f"{province.abbrev} is {province.terrain.value}; only coastal provinces have split coasts")
        coasts = [w.upper() for w in words[1:]]
        if len(coasts) < 2:
            raise self.error(line, f"a split-coast province needs at least two coasts; {province.abbrev} has {coasts}")
        for coast in coasts:
            if coast not in COAST_NAMES:
                raise self.error(line, f"bad coast {coast!r} for {province.abbrev} (expected one of {', '.join(COAST_NAMES)})")
        if len(set(coasts)) != len(coasts):
            raise self.error(line, f"coast listed twice for {province.abbrev}: {' '.join(coasts)}")
        province.coasts = tuple(coasts)
        self.coast_lines[province.abbrev] = line

    def known_province(self, line: int, word: str, where: str) -> _ProvinceDraft:
        abbrev = word.upper()
        if abbrev not in self.provinces:
            raise self.error(line, f"unknown province {word!r} in {where}")
        return self.provinces[abbrev]

    def location(self, line: int, word: str, where: str) -> tuple[_ProvinceDraft, str | None]:
        """Split ``"SPA/NC"`` into its province draft and coast, refusing unknown ones."""
        province_word, slash, coast = word.partition("/")
        province = self.known_province(line, province_word, where)
        if not slash:
            return province, None
        coast = coast.upper()
        if coast not in province.coasts:
            have = f"has coasts {', '.join(province.coasts)}" if province.coasts else "has no split coasts"
            raise self.error(line, f"bad coast {word!r} in {where}: {province.abbrev} {have}")
        return province, coast

    def marked_lists(self, line: int, words: list[str], markers: tuple[str, ...], owner: str,
                     where: str) -> dict[str, list[str]]:
        """Words grouped under the markers before them (``A: ... F: ...``), keyed by the
        marker as written in ``markers`` (any case accepted); each marker at most once,
        and no word before the first marker."""
        by_case = {marker.lower(): marker for marker in markers}
        lists: dict[str, list[str]] = {}
        current: list[str] | None = None
        for word in words:
            marker = by_case.get(word.lower())
            if marker is not None:
                if marker in lists:
                    raise self.error(line, f"{marker} given twice for {owner}")
                current = lists.setdefault(marker, [])
            elif current is None:
                raise self.error(line, f"expected {' or '.join(repr(m) for m in markers)} before {word!r} {where}")
            else:
                current.append(word)
        return lists

    # -- [adjacencies] ----------------------------------------------------------

    def adjacency(self, line: int, words: list[str]) -> None:
        province, coast = self.location(line, words[0], "adjacency")
        subject = province.abbrev if coast is None else f"{province.abbrev}/{coast}"
        if subject in self.adjacency_lines:
            raise self.error(line, f"adjacencies of {subject} already given on line {self.adjacency_lines[subject]}")
        self.adjacency_lines[subject] = line
        lists = self.marked_lists(line, words[1:], ("A:", "F:", "A>:", "F>:"), subject, f"in the adjacencies of {subject}")
        if not lists:
            raise self.error(line, f"no 'A:' or 'F:' list for {subject}")
        for kind, table, read in (("A", self.army, self.army_neighbours), ("F", self.fleet, self.fleet_neighbours)):
            both, one_way = lists.get(f"{kind}:"), lists.get(f"{kind}>:")
            if both is None and one_way is None:
                continue
            table[subject] = read(line, province, coast, [*(both or ()), *(one_way or ())])
            self.one_way.update((kind, subject, target) for target in table[subject][len(both or ()):])

    def army_neighbours(self, line: int, province: _ProvinceDraft, coast: str | None, words: list[str]) -> list[str]:
        if coast is not None:
            raise self.error(line, f"army moves belong to the province {province.abbrev}, not to the coast {province.abbrev}/{coast}")
        if province.terrain is Terrain.SEA:
            raise self.error(line, f"{province.abbrev} is a sea: it cannot have army moves")
        result: list[str] = []
        for word in words:
            neighbour, neighbour_coast = self.location(line, word, "adjacency")
            if neighbour_coast is not None:
                raise self.error(line, f"army moves name provinces, not coasts: {word!r}")
            if neighbour.terrain is Terrain.SEA:
                raise self.error(line, f"{neighbour.abbrev} is a sea: an army in {province.abbrev} cannot move there")
            self.check_neighbour(line, province.abbrev, neighbour.abbrev, result)
        return result

    def fleet_neighbours(self, line: int, province: _ProvinceDraft, coast: str | None, words: list[str]) -> list[str]:
        subject = province.abbrev if coast is None else f"{province.abbrev}/{coast}"
        if province.terrain is Terrain.LAND:
            raise self.error(line, f"{province.abbrev} is land: it cannot have fleet moves")
        if province.coasts and coast is None:
            raise self.error(line, f"bad coast: fleet moves of {province.abbrev} are given per coast "
                             f"({', '.join(f'{province.abbrev}/{c}' for c in province.coasts)})")
        result: list[str] = []
        for word in words:
            neighbour, neighbour_coast = self.location(line, word, "adjacency")
            if neighbour.terrain is Terrain.LAND:
                raise self.error(line, f"{neighbour.abbrev} is land: a fleet in {subject} cannot move there")
            if neighbour.coasts and neighbour_coast is None:
                raise self.error(line, f"bad coast: {word!r} has split coasts; name one "
                                 f"({', '.join(f'{neighbour.abbrev}/{c}' for c in neighbour.coasts)})")
            target = neighbour.abbrev if neighbour_coast is None else f"{neighbour.abbrev}/{neighbour_coast}"
            self.check_neighbour(line, subject, target, result)
        return result

    def check_neighbour(self, line: int, subject: str, target: str, result: list[str]) -> None:
        if target.partition("/")[0] == subject.partition("/")[0]:
            raise self.error(line, f"{subject} cannot be adjacent to itself")
        if target in result:
            raise self.error(line, f"{target} listed twice in the adjacencies of {subject}")
        result.append(target)

    # -- [powers] -----------------------------------------------------------------

    def power(self, line: int, words: list[str]) -> None:
        if len(words) < 3:
            raise self.error(line, f"expected 'NAME Adjective Letter homes: ... units: ...', got {' '.join(words)!r}")
        name, adjective, letter = words[0].upper(), words[1], words[2].upper()
        if not _ABBREV.match(name):
            raise self.error(line, f"bad power name {words[0]!r} (letters and digits)")
        if name in self.powers:
            raise self.error(line, f"duplicate power {name} (first declared on line {self.powers[name].line})")
        if name == NEUTRAL:
            raise self.error(line, f"{NEUTRAL} is the power of neutral armies, not a power of the map (see neutral-armies)")
        if len(letter) != 1 or not (letter.isascii() and letter.isalnum()):
            raise self.error(line, f"the letter of {name} must be one letter or digit, not {words[2]!r}")
        for other in self.powers.values():
            if other.letter == letter:
                raise self.error(line, f"letter {letter} of {name} is already used by {other.name}")
        parts = {marker: [w for word in listed for w in word.split(",") if w]
                 for marker, listed in self.marked_lists(line, words[3:], ("homes:", "claims:", "units:"), name,
                                                         f"for {name}").items()}
        homes = [self.home_centre(line, name, word) for word in parts.get("homes:", [])]
        claims = [self.home_centre(line, name, word) for word in parts.get("claims:", [])]
        if len(set(homes + claims)) != len(homes + claims):
            raise self.error(line, f"a home centre of {name} is listed twice")
        units = self.starting_units(line, name, parts.get("units:", []))
        self.powers[name] = _PowerDraft(name, adjective, letter, homes, units, line, claims)

    def home_centre(self, line: int, power: str, word: str) -> str:
        province = self.known_province(line, word, f"the home centres of {power}")
        if not province.supply_center:
            raise self.error(line, f"home centre {province.abbrev} of {power} is not a supply centre")
        for other in self.powers.values():
            if province.abbrev in other.homes or province.abbrev in other.claims:
                raise self.error(line, f"{province.abbrev} is already a home centre of {other.name}")
        return province.abbrev

    def starting_units(self, line: int, power: str, words: list[str]) -> list[Unit]:
        if len(words) % 2:
            raise self.error(line, f"units of {power} must be written as pairs like 'A PAR, F BRE'")
        units: list[Unit] = []
        occupied = {u.province for p in self.powers.values() for u in p.units}
        for kind_word, where in zip(words[::2], words[1::2]):
            kind_word = kind_word.upper()
            if kind_word not in ("A", "F"):
                raise self.error(line, f"unit type must be A or F, not {kind_word!r} (units of {power})")
            province, coast = self.location(line, where, f"the units of {power}")
            kind = UnitKind(kind_word)
            location = province.abbrev if coast is None else f"{province.abbrev}/{coast}"
            if kind is UnitKind.ARMY and (province.terrain is Terrain.SEA or coast is not None):
                raise self.error(line, f"an army cannot stand on {where!r}")
            if kind is UnitKind.FLEET:
                if province.terrain is Terrain.LAND:
                    raise self.error(line, f"a fleet cannot stand on land ({province.abbrev})")
                if province.coasts and coast is None:
                    raise self.error(line, f"bad coast: a fleet in {province.abbrev} must name its coast "
                                     f"({', '.join(f'{province.abbrev}/{c}' for c in province.coasts)})")
            if province.abbrev in occupied:
                raise self.error(line, f"two starting units in {province.abbrev}")
            occupied.add(province.abbrev)
            units.append(Unit(location, kind, power))
        return units

    # -- whole-file checks --------------------------------------------------------------

    def finish(self, default_name: str) -> Variant:
        end = self.last_line
        if not self.provinces:
            raise self.error(end, "no [provinces] declared")
        if not self.powers:
            raise self.error(end, "no [powers] declared")
        for moves, kind in ((self.army, "A"), (self.fleet, "F")):
            for subject, neighbours in moves.items():
                for target in neighbours:
                    if (kind, subject, target) in self.one_way:
                        if subject in moves.get(target, ()):
                            raise self.error(self.adjacency_lines[subject], f"{subject} {kind}>: lists {target} as one-way, "
                                             f"but {target} lists {subject} back (use {kind}: for a two-way move)")
                    elif subject not in moves.get(target, ()):
                        raise self.error(
                            self.adjacency_lines[subject],
                            f"one-way adjacency: {subject} {kind}: lists {target}, "
                            f"but {target} does not list {subject} in its {kind}: moves",
                        )
        for province in self.provinces.values():
            locations = [province.abbrev] + [f"{province.abbrev}/{c}" for c in province.coasts]
            if not any(loc in self.army or loc in self.fleet for loc in locations):
                raise self.error(province.line, f"{province.abbrev} has no adjacencies")
        centres = sum(p.supply_center for p in self.provinces.values())
        victory = self.victory if self.victory is not None else centres // 2 + 1
        if victory > centres:
            raise self.error(end, f"victory needs {victory} centres but the map has only {centres}")
        provinces = {
            p.abbrev: Province(p.abbrev, p.name, p.terrain, p.coasts, p.supply_center, p.convoys)
            for p in self.provinces.values()
        }
        army_moves = {abbrev: frozenset(self.army.get(abbrev, ())) for abbrev in provinces}
        fleet_moves: dict[str, frozenset[str]] = {}
        for p in provinces.values():
            for loc in [f"{p.abbrev}/{c}" for c in p.coasts] if p.coasts else [p.abbrev]:
                fleet_moves[loc] = frozenset(self.fleet.get(loc, ()))
        powers = tuple(
            PowerDef(p.name, p.adjective, p.letter, tuple(p.homes + p.claims), tuple(p.units), tuple(p.claims))
            for p in self.powers.values()
        )
        return Variant(
            name=self.map_name or default_name,
            provinces=provinces,
            army_moves=army_moves,
            fleet_moves=fleet_moves,
            aliases={alias: abbrev for alias, (abbrev, _) in self.names.items()},
            powers=powers,
            victory_centers=victory,
            start_year=self.start_year,
            start_phase=self.start_phase,
            years_to_fall=self.years_to_fall,
            years_to_spring=self.years_to_spring,
            builds_anywhere=self.builds_anywhere,
            builds_any_home=self.builds_any_home,
            lead_until=self.lead_until,
            neutral_armies=self.neutral_armies,
            title=self.title,
            rules=tuple(self.rules),
        )


BaseReader = Callable[[str], tuple[str, str]]  # map name -> (its text, its file name)


def parse_map(text: str, filename: str, read_base: BaseReader | None = None) -> Variant:
    """Parse a map file's text; ``filename`` names it in errors and gives the default name.
    ``read_base`` gives the text of the map a ``base`` header names (without it, a map
    with a base is refused)."""
    reader = _Reader(filename)
    _read(reader, text, geography=True, header=True, powers=True, read_base=read_base)
    stem = filename.replace("\\", "/").rsplit("/", 1)[-1]
    return reader.finish(stem[:-4] if stem.endswith(".map") else stem)


def _read(reader: _Reader, text: str, *, geography: bool, header: bool, powers: bool,
          read_base: BaseReader | None) -> None:
    """Feed the lines of one file to ``reader``: its header (unless it is a base), its
    geography sections and its powers (only those wanted; the others are skipped)."""
    section: str | None = None
    handlers = {
        "provinces": lambda n, content: reader.province(n, content),
        "coasts": lambda n, content: reader.coasts(n, content.split()),
        "adjacencies": lambda n, content: reader.adjacency(n, content.split()),
        "powers": lambda n, content: reader.power(n, content.split()),
    }
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        reader.last_line = number
        content = raw.partition("#")[0].strip()
        if not content:
            continue
        if content.startswith("["):
            name = content.strip("[]").strip().lower()
            if not content.endswith("]") or name not in _SECTIONS:
                raise reader.error(number, f"unknown section {content!r} (expected one of "
                                   f"{', '.join(f'[{s}]' for s in _SECTIONS)})")
            if name in seen:
                raise reader.error(number, f"section [{name}] appears twice")
            expected = _SECTIONS.index(name)
            if any(_SECTIONS.index(s) > expected for s in seen):
                raise reader.error(number, f"section [{name}] must come before {', '.join(f'[{s}]' for s in seen if _SECTIONS.index(s) > expected)}")
            if section is None and header and reader.base is not None:
                if name in _GEOGRAPHY:
                    raise reader.error(number, f"a map with a base ({reader.base}) gives only [powers], not [{name}]")
                _read_base(reader, number, read_base)
            seen.add(name)
            section = name
            continue
        if section is None:
            if header:
                if content.split()[0].lower() == "base" and reader.base is not None:
                    raise reader.error(number, "only one base map")
                reader.header(number, content.split())
        elif (section in _GEOGRAPHY and geography) or (section == "powers" and powers):
            handlers[section](number, content)
    if header and reader.base is not None and not seen:
        _read_base(reader, reader.last_line, read_base)


def _read_base(reader: _Reader, line: int, read_base: BaseReader | None) -> None:
    name = reader.base
    assert name is not None
    if read_base is None:
        raise reader.error(line, f"base map {name!r} cannot be read here")
    try:
        text, base_file = read_base(name)
    except LookupError as exc:
        raise reader.error(line, f"base map {name!r}: {exc}") from None
    own_file, own_last = reader.filename, reader.last_line
    reader.filename = base_file
    _read(reader, text, geography=True, header=False, powers=False, read_base=None)
    reader.filename, reader.last_line = own_file, own_last
