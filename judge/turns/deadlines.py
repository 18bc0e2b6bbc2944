"""Deadlines from a Timing: phase length, AT snapping, allowed DAYS, absences, grace end.

All datetimes in and out are aware; results are in UTC.  Local arithmetic happens in the
game's zone so that AT times and calendar days survive daylight-saving changes: a local time
that does not exist (the hour skipped in spring) resolves forward, an ambiguous one (the hour
repeated in autumn) to its first occurrence.  The judge never moves a deadline earlier by
itself: callers combine a newly computed deadline with the current one through
``extend_only``; only a master's explicit SET DEADLINE may shorten.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Sequence

from adjudicator.types import PhaseKind

from .timing import Span, Timing

__all__ = [
    "Absence",
    "add_span",
    "AbsenceError",
    "apply_absences",
    "check_absence",
    "extend_only",
    "grace_end",
    "local_moment",
    "next_deadline",
    "resumed_deadline",
    "snap_to_schedule",
]

_SEARCH_DAYS = 8  # one week always holds an allowed day


def _require_aware(name: str, moment: datetime) -> None:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} must be an aware datetime, got naive {moment.isoformat()}")


def _resolve(day: date, clock: time, timing: Timing) -> datetime:
    """The UTC instant of wall-clock ``day clock`` in the game's zone.

    fold=0 gives the zoneinfo semantics we want: in a spring gap the offset from before the
    change applies, which lands after the gap; in an autumn overlap the first occurrence.
    """
    return datetime.combine(day, clock).replace(tzinfo=timing.tz, fold=0).astimezone(timezone.utc)


def add_span(moment: datetime, span: Span, timing: Timing) -> datetime:
    """``moment`` plus ``span``: days on the game's calendar, then elapsed seconds (UTC out)."""
    _require_aware("moment", moment)
    shifted = moment.astimezone(timezone.utc)
    if span.days:
        local = moment.astimezone(timing.tz)
        shifted = _resolve(local.date() + timedelta(days=span.days), local.time().replace(tzinfo=None), timing)
    return shifted + timedelta(seconds=span.seconds)


def snap_to_schedule(timing: Timing, kind: PhaseKind, earliest: datetime) -> datetime:
    """The first instant at or after ``earliest`` that the timing allows for a ``kind`` deadline.

    With AT times: the first AT time of an allowed day not before ``earliest``.  Without:
    ``earliest`` itself on an allowed day, else the start (00:00 local) of the next allowed day.
    """
    _require_aware("earliest", earliest)
    earliest = earliest.astimezone(timezone.utc)
    allowed = timing.allowed_days(kind)
    local_day = earliest.astimezone(timing.tz).date()
    for offset in range(_SEARCH_DAYS + 1):
        day = local_day + timedelta(days=offset)
        if day.weekday() not in allowed:
            continue
        if not timing.at:
            start = _resolve(day, time(0, 0), timing)
            return max(start, earliest)
        for clock in timing.at:
            candidate = _resolve(day, clock, timing)
            if candidate >= earliest:
                return candidate
    raise AssertionError("no allowed day within a week")  # Timing guarantees an allowed day


def next_deadline(timing: Timing, phase_kind: PhaseKind, now: datetime, *, first_phase: bool = False) -> datetime:
    """The deadline of a ``phase_kind`` phase starting at ``now``: its length, then snapped.

    ``first_phase``: the game's opening phase gets twice the length (as the DPjudge does).
    """
    length = timing.length(phase_kind)
    if first_phase:
        length = Span(length.days * 2, length.seconds * 2)
    return snap_to_schedule(timing, phase_kind, add_span(now, length, timing))


def extend_only(old: datetime | None, new: datetime) -> datetime:
    """The judge may lengthen a deadline but never shorten it by itself."""
    _require_aware("new", new)
    if old is None:
        return new
    _require_aware("old", old)
    return max(old, new)


def resumed_deadline(deadline: datetime, paused_at: datetime, now: datetime) -> datetime:
    """The deadline after RESUME: the time the game spent paused is given back (paused with
    two days left and resumed a day later, it is a day later than it was).  A game paused
    after its deadline had passed resumes as late as it was; the caller decides whether
    that earns a fresh deadline."""
    for name, moment in (("deadline", deadline), ("paused_at", paused_at), ("now", now)):
        _require_aware(name, moment)
    return deadline + max(now - paused_at, timedelta(0))


def grace_end(timing: Timing, deadline: datetime) -> datetime | None:
    """When the grace period after ``deadline`` ends; None when the game has no grace period."""
    if timing.grace is None:
        return None
    return add_span(deadline, timing.grace, timing)


def local_moment(
    year: int | None,
    month: int,
    day: int,
    at: time | None,
    zone: Timing | str,
    now: datetime,
    *,
    default_at: time = time(0, 0),
) -> datetime:
    """A date a player or master wrote (SET DEADLINE, SET ABSENCE), as a UTC instant.

    The date is read in ``zone`` (the game's Timing or a player's SET ZONE name).  Without a
    year, the first such date that is not before today (in that zone); without a time of day,
    ``default_at`` (midnight: the start of that day).  Raises ValueError quoting an impossible
    date such as 31 Feb.
    """
    _require_aware("now", now)
    tz = zone.tz if isinstance(zone, Timing) else Timing(zone=zone).tz
    today = now.astimezone(tz).date()
    try:
        chosen = date(year if year is not None else today.year, month, day)
        if year is None and chosen < today:
            chosen = date(today.year + 1, month, day)
    except ValueError:
        shown = f"{year:04d}-" if year is not None else ""
        raise ValueError(f"no such date: {shown}{month:02d}-{day:02d}") from None
    return datetime.combine(chosen, at or default_at).replace(tzinfo=tz, fold=0).astimezone(timezone.utc)


# ----------------------------------------------------------------------------- absences


class AbsenceError(ValueError):
    """A SET ABSENCE that cannot be accepted; the message says why and what would be."""


@dataclass(frozen=True, slots=True)
class Absence:
    """A player's announced absence (SET ABSENCE from TO): no deadline inside [start, end)."""

    power: str
    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        _require_aware("absence start", self.start)
        _require_aware("absence end", self.end)
        if self.end <= self.start:
            raise AbsenceError(
                f"absence of {self.power} ends ({self.end.isoformat()}) before it starts ({self.start.isoformat()})"
            )

    @property
    def length(self) -> timedelta:
        return self.end - self.start

    def covers(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def check_absence(new: Absence, earlier: Sequence[Absence], limit: Span, now: datetime) -> Absence:
    """Accept ``new`` if the total of ``new.power``'s absences in this game stays within
    ``limit``; raises AbsenceError otherwise (or when ``new`` has already ended at ``now``).

    ``earlier`` may hold every power's absences of the game; only ``new.power``'s count.
    """
    _require_aware("now", now)
    if new.end <= now:
        raise AbsenceError(f"absence of {new.power} ending {new.end.isoformat()} is already over")
    used = sum((a.length for a in earlier if a.power == new.power), timedelta())
    allowance = limit.approximate()
    if used + new.length > allowance:
        left = max(allowance - used, timedelta())
        raise AbsenceError(
            f"absence of {new.power} for {_human(new.length)} exceeds this game's limit of "
            f"{_human(allowance)} per player ({_human(left)} left)"
        )
    return new


def apply_absences(
    deadline: datetime,
    absences: Sequence[Absence],
    limit: Span,
    *,
    timing: Timing | None = None,
    kind: PhaseKind = PhaseKind.MOVEMENT,
) -> datetime:
    """Move ``deadline`` out of every absence it falls inside, never by more than ``limit``.

    Pass the absences of the players whose powers must order in this phase.  Absences
    chain: a deadline moved to the end of one absence that lands in another moves again.  With ``timing`` the moved deadline is snapped to AT/DAYS again.  The result is
    never earlier than ``deadline``.
    """
    _require_aware("deadline", deadline)
    original = deadline.astimezone(timezone.utc)
    ceiling = original + limit.approximate()
    moved = original
    for _ in range(len(absences) * 2 + 1):  # each pass can only move forward past one absence
        covering = [a for a in absences if a.covers(moved)]
        if not covering:
            break
        moved = max(a.end for a in covering).astimezone(timezone.utc)
        if timing is not None:
            moved = snap_to_schedule(timing, kind, moved)
        if moved >= ceiling:
            moved = ceiling
            break
    return max(moved, original)


def _human(span: timedelta) -> str:
    days, seconds = span.days, span.seconds
    hours = seconds // 3600
    if days and hours:
        return f"{days}D{hours}H"
    if days:
        return f"{days}D"
    return f"{hours}H"

