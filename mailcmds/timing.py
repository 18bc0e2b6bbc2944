"""The TIMING status line: phase lengths, time of day, allowed days, grace and warnings."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import time, timedelta

from .values import ValueSyntaxError, parse_clock, parse_duration

DAYS_RULE = (
    "give the days as a mask such as MTWTF or MTWTF-- (Monday first; '-' for a day off), "
    "-MTWTF- (Sunday first), or names such as MON-FRI or MON,WED,FRI"
)
_MONDAY_FIRST = "MTWTFSS"
_SUNDAY_FIRST = "SMTWTFS"
_DAY_NAMES = [name.upper() for name in calendar.day_name]  # MONDAY .. SUNDAY


@dataclass(frozen=True, slots=True)
class TimingSpec:
    """What a TIMING line sets; ``None`` fields keep the game's current value.

    ``days``: weekday numbers (0 Monday .. 6 Sunday) on which deadlines may fall.
    ``warn``: how long before a deadline reminders go out.  ``reveal``: the reveal
    window of a sealed game after commitments close.
    """

    move: timedelta | None = None
    retreat: timedelta | None = None
    adjust: timedelta | None = None
    at: time | None = None
    days: frozenset[int] | None = None
    grace: timedelta | None = None
    warn: tuple[timedelta, ...] | None = None
    reveal: timedelta | None = None


_KEYWORDS = {
    "MOVE": "move", "MOVES": "move", "MOVEMENT": "move",
    "RETREAT": "retreat", "RETREATS": "retreat",
    "ADJUST": "adjust", "ADJUSTMENT": "adjust", "ADJUSTMENTS": "adjust", "BUILD": "adjust", "BUILDS": "adjust",
    "AT": "at", "DAYS": "days", "GRACE": "grace", "WARN": "warn", "REVEAL": "reveal",
}
TIMING_RULE = (
    "TIMING [MOVE 3D] [RETREAT 1D] [ADJUST 1D] [AT 20:00] [DAYS MTWTF] [GRACE 2D] [WARN 24H,4H] [REVEAL 1D]"
)


def parse_days(text: str) -> frozenset[int]:
    token = text.upper()
    if len(token) <= 7 and all(c == _MONDAY_FIRST[i] or c == "-" for i, c in enumerate(token)):
        days = frozenset(i for i, c in enumerate(token) if c != "-")
    elif len(token) == 7 and all(c == _SUNDAY_FIRST[i] or c == "-" for i, c in enumerate(token)):
        days = frozenset((i - 1) % 7 for i, c in enumerate(token) if c != "-")
    else:
        days = frozenset(_named_days(token, text))
    if not days:
        raise ValueSyntaxError(f"'{text}' allows no day at all: {DAYS_RULE}")
    return days


def _day_number(name: str, text: str) -> int:
    matches = [i for i, day in enumerate(_DAY_NAMES) if len(name) >= 2 and day.startswith(name)]
    if len(matches) != 1:
        raise ValueSyntaxError(f"'{text}' is not a set of days: {DAYS_RULE}")
    return matches[0]


def _named_days(token: str, text: str) -> set[int]:
    days: set[int] = set()
    for item in filter(None, token.split(",")):
        if "-" in item:
            first, _, last = item.partition("-")
            start, end = _day_number(first, text), _day_number(last, text)
            day = start
            days.add(day)
            while day != end:
                day = (day + 1) % 7
                days.add(day)
        else:
            days.add(_day_number(item, text))
    return days


def parse_timing(words: list[str] | tuple[str, ...]) -> TimingSpec:
    if not words:
        raise ValueSyntaxError(f"TIMING needs at least one setting: {TIMING_RULE}")
    values: dict[str, object] = {}
    index = 0
    while index < len(words):
        keyword = words[index].upper()
        field = _KEYWORDS.get(keyword)
        if field is None:
            raise ValueSyntaxError(f"'{words[index]}' is not a TIMING setting: {TIMING_RULE}")
        if field in values:
            raise ValueSyntaxError(f"TIMING gives {keyword} twice")
        if index + 1 >= len(words):
            raise ValueSyntaxError(f"TIMING {keyword} needs a value: {TIMING_RULE}")
        value = words[index + 1]
        if field == "at":
            values[field] = parse_clock(value)
        elif field == "days":
            values[field] = parse_days(value)
        elif field == "warn":
            values[field] = tuple(parse_duration(v) for v in value.split(",") if v)
        else:
            values[field] = parse_duration(value)
        index += 2
    return TimingSpec(**values)  # type: ignore[arg-type]
