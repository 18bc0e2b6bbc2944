"""A game's TIMING settings: phase lengths, time of day, allowed days, grace, reminders, zone.

This is the one TIMING grammar: mailcmds reads a master's TIMING line with it (so the
module stays pure: standard library, zoneinfo and adjudicator.types only), the commands
apply the parsed ``TimingChanges`` to the game.

Grammar (keywords and units are case-insensitive except the DAYS pattern letters)::

    timing   := clause*
    clause   := NEXT span                     length of every phase without its own length
              | phase span                    length of one phase type
              | phase clause*                 njudge block: its NEXT is that phase's length, its
                                              other clauses are the game's (``MOVE CLOCK 1410 NEXT 72``)
              | AT hh:mm[,hh:mm...]           deadlines snap forward to one of these times of day
              | CLOCK minutes                 njudge form of AT: minutes past midnight, -1 = none
              | DAYS pattern                  days of the week a deadline may fall on
              | GRACE span                    time after the deadline before late players are dealt with
              | GRACE NONE                    no grace period (the default)
              | WARN span[,span...]           reminders this long before the deadline; WARN 0 = none
              | ZONE Area/City                IANA time zone of the game (default UTC)
              | ABSENCE span                  most absence (SET ABSENCE) one player may take per game
              | REVEAL span                   sealed games: the reveal window after commitments close
    phase    := MOVE | MOVES | MOVEMENT | RETREAT | RETREATS | ADJUST | ADJUSTMENT | ADJUSTMENTS
              | BUILD | BUILDS                (any prefix of at least three letters of the long names)
    span     := (number unit)+ | number       units M(inutes) H(ours) D(ays) W(eeks), e.g. 3D, 1D12H,
                                              90M; a bare number is hours (njudge: ``NEXT 72.0``)
    pattern  := seven characters, Sunday first, each the day's letter or '-'  (DPjudge: -MTWTF-)
              | up to seven characters, Monday first                            (MTWTF = weekdays)
              | day names and ranges separated by commas                        (MON-FRI,SUN)

Day letters in lower case (DPjudge) allow deadlines of retreat and adjustment phases on that
day but not movement deadlines.  Defaults: ``NEXT 1D MOVE 3D`` (the DPjudge's), every day
allowed, no AT, no grace, ``WARN 4H``, ``ZONE UTC``, ``ABSENCE 14D``.  A setting given twice
with different values is an error, so a pasted njudge block (``MOVE CLOCK 1410 NEXT 72``
followed by ``RETREAT CLOCK -1 ...``) cannot silently override itself.

Days and weeks are calendar days in the game's zone (a 3D phase starting at 20:00 ends at
20:00 local even across a DST change); hours and minutes are elapsed time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from adjudicator.types import PhaseKind

__all__ = [
    "ALL_DAYS",
    "TIMING_SYNTAX",
    "Span",
    "Timing",
    "TimingChanges",
    "TimingError",
    "canonical_zone",
    "format_timing",
    "parse_span",
    "parse_timing",
    "parse_timing_changes",
]

#: The one-line form quoted in error replies and the HELP page (the full grammar is above).
TIMING_SYNTAX = (
    "TIMING [NEXT 1D] [MOVE 3D] [RETREAT 1D] [ADJUST 1D] [AT 20:00[,08:00]] [CLOCK 1200] "
    "[DAYS -MTWTF-] [GRACE 2D|NONE] [WARN 24H,4H|0] [ZONE Europe/Paris] [ABSENCE 14D] [REVEAL 1D]"
)

ALL_DAYS: frozenset[int] = frozenset(range(7))  # datetime.weekday(): Monday = 0
_MAX_SPAN_DAYS = 366  # longer spans are typing mistakes (and overflow date arithmetic)
_SUNDAY_FIRST = "SMTWTFS"
_MONDAY_FIRST = "MTWTFSS"
_DAY_NAMES = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
_UNIT_SECONDS = {"M": 60, "H": 3600}
_UNIT_DAYS = {"D": 1, "W": 7}


class TimingError(ValueError):
    """A TIMING text or value that cannot be accepted; the message quotes it."""


@lru_cache(maxsize=1)
def _zones_by_folded_name() -> dict[str, str]:
    return {name.casefold(): name for name in available_timezones()}


def canonical_zone(name: str) -> str:
    """The IANA spelling of a zone name given in any case (``europe/paris`` -> ``Europe/Paris``).

    Raises TimingError quoting the name when no such zone exists.
    """
    try:
        ZoneInfo(name)
        return name
    except (ZoneInfoNotFoundError, ValueError):
        pass
    found = _zones_by_folded_name().get(name.strip().casefold())
    if found is None:
        raise TimingError(f"unknown time zone {name!r} (expected an IANA name such as Europe/Paris or UTC)")
    return found


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A length of time: calendar ``days`` (in the game's zone) plus elapsed ``seconds``."""

    days: int = 0
    seconds: int = 0

    def __post_init__(self) -> None:
        if self.days < 0 or self.seconds < 0:
            raise TimingError(f"a time span cannot be negative: {self.days}D {self.seconds}s")

    @classmethod
    def of(cls, *, weeks: int = 0, days: int = 0, hours: float = 0, minutes: float = 0) -> "Span":
        return cls(weeks * 7 + days, round(hours * 3600 + minutes * 60))

    @property
    def is_zero(self) -> bool:
        return self.days == 0 and self.seconds == 0

    def approximate(self) -> timedelta:
        """The span as elapsed time, counting a day as 24 hours (for offsets and limits)."""
        return timedelta(days=self.days, seconds=self.seconds)

    def __str__(self) -> str:
        if self.is_zero:
            return "0H"
        parts = []
        weeks, days = divmod(self.days, 7)
        hours, rest = divmod(self.seconds, 3600)
        minutes, seconds = divmod(rest, 60)
        for count, unit in ((weeks, "W"), (days, "D"), (hours, "H"), (minutes, "M")):
            if count:
                parts.append(f"{count}{unit}")
        if seconds:  # only reachable through Span.of with fractional minutes
            parts.append(f"{seconds}S")
        return "".join(parts)


_DEFAULT_LENGTHS = {
    PhaseKind.MOVEMENT: Span(days=3),
    PhaseKind.RETREAT: Span(days=1),
    PhaseKind.ADJUSTMENT: Span(days=1),
}


@dataclass(frozen=True, slots=True)
class Timing:
    """How a game sets its deadlines (see the module docstring for the text form)."""

    movement: Span = _DEFAULT_LENGTHS[PhaseKind.MOVEMENT]
    retreat: Span = _DEFAULT_LENGTHS[PhaseKind.RETREAT]
    adjustment: Span = _DEFAULT_LENGTHS[PhaseKind.ADJUSTMENT]
    at: tuple[time, ...] = ()  # sorted times of day in the game's zone; () = any time
    days: frozenset[int] = ALL_DAYS  # weekdays (Monday = 0) any deadline may fall on
    movement_days: frozenset[int] = ALL_DAYS  # weekdays a movement deadline may fall on
    grace: Span | None = None  # None: no grace period
    warn: tuple[Span, ...] = (Span(seconds=4 * 3600),)  # reminder offsets, largest first
    zone: str = "UTC"
    absence_limit: Span = Span(days=14)
    reveal: Span | None = None  # sealed-order games only; kept here so one TIMING text says it all
    tz: ZoneInfo = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "zone", canonical_zone(self.zone))
        object.__setattr__(self, "tz", ZoneInfo(self.zone))
        if not self.days:
            raise TimingError("DAYS allows no day at all: at least one day must be allowed")
        if not (self.movement_days & self.days):
            raise TimingError("DAYS allows no day for movement deadlines (use upper-case letters)")
        object.__setattr__(self, "movement_days", self.movement_days & self.days)
        object.__setattr__(self, "at", tuple(sorted(set(self.at))))
        object.__setattr__(self, "warn", tuple(sorted(set(self.warn), reverse=True)))
        for kind in PhaseKind:
            if self.length(kind).is_zero:
                raise TimingError(f"the {kind.name.lower()} phase length cannot be zero")

    def length(self, kind: PhaseKind) -> Span:
        return {
            PhaseKind.MOVEMENT: self.movement,
            PhaseKind.RETREAT: self.retreat,
            PhaseKind.ADJUSTMENT: self.adjustment,
        }[kind]

    def warn_offsets(self) -> tuple[timedelta, ...]:
        """The WARN spans as elapsed time before the deadline (for TurnState.warn)."""
        return tuple(w.approximate() for w in self.warn)

    def allowed_days(self, kind: PhaseKind) -> frozenset[int]:
        return self.movement_days if kind is PhaseKind.MOVEMENT else self.days

    def with_changes(self, text: str) -> "Timing":
        """This timing with the clauses of ``text`` applied on top (a master's SET TIMING)."""
        return parse_timing(text, base=self)

    def __str__(self) -> str:
        return format_timing(self)


# ----------------------------------------------------------------------------- parsing

_SPAN_PART = re.compile(r"(\d+(?:\.\d+)?)([MHDW])")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")

_PHASE_WORDS = {
    PhaseKind.MOVEMENT: ("MOVEMENT", "MOVES"),
    PhaseKind.RETREAT: ("RETREATS",),
    PhaseKind.ADJUSTMENT: ("ADJUSTMENTS", "BUILDS"),
}


def _phase_of(word: str) -> PhaseKind | None:
    if len(word) < 3:
        return None
    for kind, names in _PHASE_WORDS.items():
        if any(name.startswith(word) for name in names):
            return kind
    return None


def parse_span(text: str) -> Span:
    """``3D``, ``1D12H``, ``90M``, ``2W``, ``0`` or a bare number of hours (``72.0``)."""
    word = text.strip().upper()
    if _NUMBER.fullmatch(word):
        word = f"{word}H"
    parts = _SPAN_PART.findall(word)
    if not parts or "".join(n + u for n, u in parts) != word:
        raise TimingError(
            f"not a time span: {text!r} (expected a number with a unit M, H, D or W, "
            "e.g. 3D, 12H, 1D12H, 30M; a bare number means hours)"
        )
    days, seconds = 0.0, 0.0
    for number, unit in parts:
        if len(number.partition(".")[0]) > 6:  # a year is 525600 minutes; more digits overflow floats
            raise TimingError(f"time span {text!r} is longer than a year")
        if unit in _UNIT_DAYS:
            days += float(number) * _UNIT_DAYS[unit]
        else:
            seconds += float(number) * _UNIT_SECONDS[unit]
    whole_days = int(days)
    seconds += (days - whole_days) * 86400  # 1.5D = 1 day 12 hours
    span = Span(whole_days, round(seconds))
    if span.approximate() > timedelta(days=_MAX_SPAN_DAYS):
        raise TimingError(f"time span {text!r} is longer than a year")
    return span


def _parse_clock(text: str) -> time:
    match = _CLOCK.fullmatch(text)
    if not match or int(match[1]) > 23 or int(match[2]) > 59:
        raise TimingError(f"not a time of day: {text!r} (expected hh:mm on a 24-hour clock, e.g. 20:00)")
    return time(int(match[1]), int(match[2]))


def _parse_days(text: str) -> tuple[frozenset[int], frozenset[int]]:
    """-> (days any deadline may fall on, days a movement deadline may fall on)."""
    if any(char not in "SMTWFsmtwf-" for char in text):
        return _parse_day_names(text)
    # Seven characters are read Sunday first (the DPjudge's form) when they fit; shorter
    # patterns, and seven that do not fit (MTWTFSS), are read Monday first.
    orders = ((_SUNDAY_FIRST, 6), (_MONDAY_FIRST, 0)) if len(text) == 7 else ((_MONDAY_FIRST, 0),)
    for order, offset in orders:
        days: set[int] = set()
        movement: set[int] = set()
        for position, char in enumerate(text):
            if position >= 7 or (char != "-" and char.upper() != order[position]):
                break
            if char == "-":
                continue
            weekday = (position + offset) % 7
            days.add(weekday)
            if char.isupper():
                movement.add(weekday)
        else:
            if not days:
                raise TimingError(f"DAYS {text!r} allows no day at all")
            return frozenset(days), frozenset(movement)
    raise TimingError(
        f"not a DAYS pattern: {text!r} (expected seven characters Sunday first such as -MTWTF-, "
        "Monday-first letters such as MTWTF, or day names such as MON-FRI,SUN; "
        "lower case excludes movement deadlines)"
    )


def _parse_day_names(text: str) -> tuple[frozenset[int], frozenset[int]]:
    days: set[int] = set()
    for item in text.upper().split(","):
        ends = item.split("-")
        try:
            indexes = [_DAY_NAMES.index(end[:3]) for end in ends if len(end) >= 2]
        except ValueError:
            indexes = []
        if len(ends) not in (1, 2) or len(indexes) != len(ends):
            raise TimingError(
                f"not a day or day range: {item!r} in DAYS {text!r} (expected e.g. MON-FRI or SAT,SUN)"
            )
        first, last = indexes[0], indexes[-1]
        day = first
        while True:
            days.add(day)
            if day == last:
                break
            day = (day + 1) % 7
    return frozenset(days), frozenset(days)


_Setting = tuple[str, object]
_KEYWORDS = frozenset({"NEXT", "AT", "CLOCK", "DAYS", "GRACE", "WARN", "ZONE", "ABSENCE", "ABSENCES", "REVEAL"})


def _settings(text: str) -> list[_Setting]:
    """Tokens -> (field name, value) pairs, in the order given."""
    tokens = text.split()
    settings: list[_Setting] = []
    scope: PhaseKind | None = None  # the phase of an njudge block, whose NEXT is its length
    i = 0

    def value(keyword: str) -> str:
        if i + 1 >= len(tokens):
            raise TimingError(f"TIMING {text!r}: {keyword} needs a value after it")
        return tokens[i + 1]

    while i < len(tokens):
        word = tokens[i].upper()
        kind = _phase_of(word)
        if kind is not None:
            following = value(word)
            if following.upper() in _KEYWORDS:  # njudge block: MOVE CLOCK 1410 NEXT 72 ...
                scope = kind
                i += 1
                continue
            scope = None
            settings.append((kind.name.lower(), parse_span(following)))
        elif word == "NEXT":
            settings.append((scope.name.lower() if scope else "next", parse_span(value(word))))
        elif word == "AT":
            settings.append(("at", tuple(_parse_clock(t) for t in value(word).split(","))))
        elif word == "CLOCK":
            minutes = value(word)
            if not re.fullmatch(r"-?\d+", minutes) or not -1 <= int(minutes) < 1440:
                raise TimingError(
                    f"not a CLOCK value: {minutes!r} (expected minutes past midnight 0-1439, or -1 for none)"
                )
            at = () if int(minutes) < 0 else (time(int(minutes) // 60, int(minutes) % 60),)
            settings.append(("at", at))
        elif word == "DAYS":
            days, movement = _parse_days(value(word))
            settings.append(("days", days))
            settings.append(("movement_days", movement))
        elif word == "GRACE":
            raw = value(word)
            settings.append(("grace", None if raw.upper() == "NONE" else parse_span(raw)))
        elif word == "WARN":
            spans = tuple(parse_span(t) for t in value(word).split(","))
            settings.append(("warn", tuple(s for s in spans if not s.is_zero)))
        elif word == "ZONE":
            settings.append(("zone", value(word)))
        elif word in ("ABSENCE", "ABSENCES"):
            settings.append(("absence_limit", parse_span(value(word))))
        elif word == "REVEAL":
            settings.append(("reveal", parse_span(value(word))))
        else:
            raise TimingError(
                f"TIMING {text!r}: unknown setting {tokens[i]!r} (expected NEXT, MOVE, RETREAT, "
                "ADJUST, AT, CLOCK, DAYS, GRACE, WARN, ZONE, ABSENCE or REVEAL)"
            )
        i += 2
    return settings


@dataclass(frozen=True, slots=True)
class TimingChanges:
    """What one TIMING text sets, to be applied on top of a game's timing.

    ``settings`` are ``(Timing field, value)`` pairs sorted by field, NEXT already spread
    over the phases the text gives no length of its own.  A master's TIMING line names only
    what it changes, so the parsed value is this, not a ``Timing``.
    """

    text: str
    settings: tuple[tuple[str, object], ...]

    def apply(self, base: Timing | None = None) -> Timing:
        """``base`` (default: the defaults) with these settings; TimingError quotes the text."""
        try:
            return replace(base or Timing(), **dict(self.settings))  # type: ignore[arg-type]  # parsed per field
        except TimingError as exc:
            raise TimingError(f"TIMING {self.text!r}: {exc}") from None


def parse_timing_changes(text: str) -> TimingChanges:
    """Parse a TIMING text (grammar above) into the settings it gives.

    Raises TimingError quoting the text on anything it cannot read; what only a whole
    Timing can check (zone names, zero lengths, no movement day) is checked by ``apply``.
    """
    chosen: dict[str, object] = {}
    for name, setting in _settings(text):
        if name in chosen and chosen[name] != setting:
            raise TimingError(f"TIMING {text!r} sets {name.replace('_', ' ')} twice with different values")
        chosen[name] = setting
    next_length = chosen.pop("next", None)
    if next_length is not None:  # NEXT is the length of every phase not given its own
        for kind in PhaseKind:
            chosen.setdefault(kind.name.lower(), next_length)
    return TimingChanges(text, tuple(sorted(chosen.items())))


def parse_timing(text: str, base: Timing | None = None) -> Timing:
    """Parse a TIMING text (grammar above) on top of ``base`` (default: the defaults).

    Raises TimingError quoting the text on anything it cannot accept.
    """
    return parse_timing_changes(text).apply(base)


def format_timing(timing: Timing) -> str:
    """The canonical text of ``timing``; ``parse_timing(format_timing(t)) == t``."""
    parts = [f"MOVE {timing.movement}", f"RETREAT {timing.retreat}", f"ADJUST {timing.adjustment}"]
    if timing.at:
        parts.append("AT " + ",".join(t.strftime("%H:%M") for t in timing.at))
    if timing.days != ALL_DAYS or timing.movement_days != timing.days:
        pattern = ""
        for position in range(7):
            weekday = (position + 6) % 7  # Sunday first
            letter = _SUNDAY_FIRST[position]
            if weekday not in timing.days:
                pattern += "-"
            else:
                pattern += letter if weekday in timing.movement_days else letter.lower()
        parts.append(f"DAYS {pattern}")
    if timing.grace is not None:
        parts.append(f"GRACE {timing.grace}")
    parts.append("WARN " + (",".join(str(w) for w in timing.warn) if timing.warn else "0"))
    parts.append(f"ZONE {timing.zone}")
    parts.append(f"ABSENCE {timing.absence_limit}")
    if timing.reveal is not None:
        parts.append(f"REVEAL {timing.reveal}")
    return " ".join(parts)

