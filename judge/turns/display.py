"""Deadlines as people read them: in their own zone (SET ZONE), and as time left.

English names are spelled out here rather than taken from strftime, whose %a and %b follow
the process locale.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from .timing import TimingError, canonical_zone

__all__ = ["format_deadline", "format_remaining", "zone_or_error"]

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def zone_or_error(name: str) -> ZoneInfo:
    """The ZoneInfo for a SET ZONE argument, any case; ValueError quoting it when unknown."""
    try:
        return ZoneInfo(canonical_zone(name))
    except TimingError as exc:
        raise ValueError(str(exc)) from None


def format_deadline(deadline_utc: datetime, zone: str | ZoneInfo = "UTC") -> str:
    """``Sat 21 Nov 2026 20:00 CET``: the deadline in ``zone`` with that zone's abbreviation."""
    if deadline_utc.tzinfo is None:
        raise ValueError(f"deadline must be an aware datetime, got naive {deadline_utc.isoformat()}")
    tz = zone if isinstance(zone, ZoneInfo) else zone_or_error(zone)
    local = deadline_utc.astimezone(tz)
    abbreviation = local.tzname() or local.strftime("%z")
    return (
        f"{_WEEKDAYS[local.weekday()]} {local.day} {_MONTHS[local.month - 1]} {local.year} "
        f"{local.hour:02d}:{local.minute:02d} {abbreviation}"
    )


def _plural(count: int, unit: str) -> str:
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def format_remaining(deadline: datetime, now: datetime) -> str:
    """Time to the deadline in the two largest units: ``2 days 3 hours``, ``45 minutes``.

    Rounded down (never promises more time than there is); ``less than a minute`` under one
    minute; ``passed`` once the deadline is reached.
    """
    left = deadline - now
    if left <= timedelta(0):
        return "passed"
    minutes_total = int(left.total_seconds()) // 60
    if minutes_total == 0:
        return "less than a minute"
    days, rest = divmod(minutes_total, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    first = next(i for i, (count, _) in enumerate(parts) if count)
    shown = [_plural(count, unit) for count, unit in parts[first : first + 2] if count]
    return " ".join(shown)
