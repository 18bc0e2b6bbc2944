"""Argument values: game names, power tokens, phases, dates, zones, addresses.

Each ``parse_*`` function returns a typed value or raises :class:`ValueSyntaxError`
whose message says what would be accepted.  Nothing here reads the clock: a date
written without a year keeps ``year=None`` and the handler fills it in.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import time


class ValueSyntaxError(ValueError):
    """An argument that is not of the expected form; the message is meant for players."""


GAME_NAME_RULE = "a game name is 1-30 letters, digits, '_' or '-', not starting with '-'"
_GAME_RE = re.compile(r"[a-z0-9_][a-z0-9_\-]{0,29}")


def _matched(text: str, token: str, pattern: re.Pattern[str], expected: str) -> str:
    """``token`` (``text`` with its case normalised) when ``pattern`` matches it whole;
    else an error quoting ``text`` and saying it is not ``expected``."""
    if not pattern.fullmatch(token):
        raise ValueSyntaxError(f"'{text}' is not {expected}")
    return token


def parse_game(text: str) -> str:
    """A game name, lower-cased."""
    return _matched(text, text.lower(), _GAME_RE, f"a game name: {GAME_NAME_RULE}")


_POWER_RE = re.compile(r"[A-Z][A-Z0-9_#\-]{0,29}")


def parse_power(text: str) -> str:
    """A power (or observer / player id) token, upper-cased: ``FRANCE``, ``F``, ``MASTER``."""
    return _matched(text, text.upper(), _POWER_RE,
                    "a power: give its name (FRANCE), its initial (F) or MASTER")


def split_power_at_game(text: str) -> tuple[str, str]:
    """``power@game`` -> (``POWER``, ``game``)."""
    if text.count("@") != 1:
        raise ValueSyntaxError(f"'{text}' is not of the form power@game")
    power, game = text.split("@")
    if not power or not game:
        raise ValueSyntaxError(f"'{text}' is not of the form power@game")
    return parse_power(power), parse_game(game)


def split_signon_id(text: str) -> tuple[str, str]:
    """``power@game`` or the Ken Lowe judge's ``Xgame`` (power initial then game name)."""
    if "@" in text:
        return split_power_at_game(text)
    if len(text) < 2 or not text[0].isalnum():  # a digit is an initial on maps of many powers (Chaos)
        raise ValueSyntaxError(
            f"'{text}' names no power and game: write power@game (france@mygame) "
            "or the power's initial followed by the game (Fmygame)"
        )
    return text[0].upper(), parse_game(text[1:])


def split_tokens(words: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Words split further at commas, upper-cased, empties dropped: ``F,G R`` -> F G R."""
    out: list[str] = []
    for word in words:
        out.extend(part.upper() for part in word.split(",") if part)
    return tuple(out)


# --- phases -----------------------------------------------------------------------

_PHASE_RE = re.compile(r"([SFW])(\d{1,4})([MRA])")  # a variant's years may be short (Ancient Mediterranean: S1M)


def is_phase(text: str) -> bool:
    return _PHASE_RE.fullmatch(text.upper()) is not None


def parse_phase(text: str) -> str:
    """A phase such as ``S1901M``, upper-cased (season S/F/W, year, M/R/A)."""
    return _matched(text, text.upper(), _PHASE_RE,
                    "a phase: write season, year and type, e.g. S1901M, F1901R, W1901A")


# --- times and dates --------------------------------------------------------------

_CLOCK_RE = re.compile(r"(\d{1,2}):(\d{2})")


def parse_clock(text: str) -> time:
    match = _CLOCK_RE.fullmatch(text)
    if not match or int(match[1]) > 23 or int(match[2]) > 59:
        raise ValueSyntaxError(f"'{text}' is not a time of day: write hh:mm on a 24-hour clock, e.g. 20:00")
    return time(int(match[1]), int(match[2]))


_MONTHS = {name.upper(): number for number, name in enumerate(calendar.month_abbr) if name}
_MONTHS.update({name.upper(): number for number, name in enumerate(calendar.month_name) if name})
_MONTHS["SEPT"] = 9
_WEEKDAYS = {name.upper() for name in (*calendar.day_abbr, *calendar.day_name)}
_ISO_DATE_RE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:T(\d{1,2}:\d{2}))?")

DATE_RULE = (
    "write a date as 2025-01-14 or 14 Jan 2025, optionally followed by a time such as 20:00 "
    "(the year may be left out)"
)


@dataclass(frozen=True, slots=True)
class DateSpec:
    """A calendar date, perhaps with a time of day, in the game's (or player's) zone.

    ``year`` is ``None`` when the player left it out (the handler chooses the next
    such date); ``at`` is ``None`` when no time was given.
    """

    year: int | None
    month: int
    day: int
    at: time | None = None

    def __str__(self) -> str:
        year = f"{self.year:04d}-" if self.year is not None else ""
        at = f" {self.at.hour:02d}:{self.at.minute:02d}" if self.at else ""
        return f"{year}{self.month:02d}-{self.day:02d}{at}"


def _checked_date(year: int | None, month: int, day: int, at: time | None, text: str) -> DateSpec:
    if not 1 <= month <= 12:
        raise ValueSyntaxError(f"'{text}' has no month {month}: {DATE_RULE}")
    last = calendar.monthrange(year if year is not None else 2000, month)[1]  # 2000: leap
    if not 1 <= day <= last:
        raise ValueSyntaxError(f"'{text}': that month has no day {day}")
    if year is not None and not 1900 <= year <= 9999:
        raise ValueSyntaxError(f"'{text}': the year {year} is out of range")
    return DateSpec(year, month, day, at)


def parse_date(words: list[str] | tuple[str, ...]) -> DateSpec:
    """A date from words: ``2025-01-14 [20:00]``, ``2025-01-14T20:00``,
    ``[Tue] 14 Jan [2025] [20:00]``, ``Jan 14 [2025] [20:00]``."""
    text = " ".join(words)
    tokens = [w.strip(",").upper() for w in words if w.strip(",")]
    if tokens and tokens[0].rstrip(".") in _WEEKDAYS:
        tokens = tokens[1:]
    if not tokens:
        raise ValueSyntaxError(f"no date given: {DATE_RULE}")
    at: time | None = None
    if len(tokens) > 1 and _CLOCK_RE.fullmatch(tokens[-1]):
        at = parse_clock(tokens.pop())
    iso = _ISO_DATE_RE.fullmatch(tokens[0])
    if iso and len(tokens) == 1:
        if iso[4]:
            if at is not None:
                raise ValueSyntaxError(f"'{text}' gives two times: {DATE_RULE}")
            at = parse_clock(iso[4])
        return _checked_date(int(iso[1]), int(iso[2]), int(iso[3]), at, text)
    if len(tokens) in (2, 3):
        first, second = tokens[0], tokens[1].rstrip(".")
        if first.isdigit() and second in _MONTHS:
            day, month = int(first), _MONTHS[second]
        elif first.rstrip(".") in _MONTHS and second.isdigit():
            day, month = int(second), _MONTHS[first.rstrip(".")]
        else:
            raise ValueSyntaxError(f"'{text}' is not a date: {DATE_RULE}")
        year = None
        if len(tokens) == 3:
            if not (tokens[2].isdigit() and len(tokens[2]) == 4):
                raise ValueSyntaxError(f"'{text}': '{tokens[2]}' is not a year: {DATE_RULE}")
            year = int(tokens[2])
        return _checked_date(year, month, day, at, text)
    raise ValueSyntaxError(f"'{text}' is not a date: {DATE_RULE}")


# --- zones, addresses, rules --------------------------------------------------------

_ZONE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+){0,2}")
ZONE_RULE = "a time zone is an IANA name such as Europe/Paris, America/New_York or UTC"


def parse_zone(text: str) -> str:
    """A time-zone name (form only: whether the zone exists is checked by the handler)."""
    if not _ZONE_RE.fullmatch(text) or len(text) > 64:
        raise ValueSyntaxError(f"'{text}' is not a time zone: {ZONE_RULE}")
    return text


_ADDRESS_RE = re.compile(r"[^@\s<>(),;:\"\[\]]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*")


def parse_address(text: str) -> str:
    address = text.strip("<>")
    if not _ADDRESS_RE.fullmatch(address) or len(address) > 254 or not address.isprintable():
        raise ValueSyntaxError(f"'{text}' is not an e-mail address: write it as name@example.org")
    return address


_RULE_RE = re.compile(r"[A-Z][A-Z0-9_]{0,39}")


def parse_rule_name(text: str) -> str:
    return _matched(text, text.upper(), _RULE_RE,
                    "a rule name: rule names are letters, digits and '_', e.g. NO_PRESS")
