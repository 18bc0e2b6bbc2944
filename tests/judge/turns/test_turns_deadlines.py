"""Deadlines: lengths, AT snapping, DAYS skipping, DST, extend-only, grace, absences."""

from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.types import PhaseKind
from judge.turns.deadlines import (
    Absence,
    AbsenceError,
    add_span,
    apply_absences,
    check_absence,
    extend_only,
    grace_end,
    local_moment,
    next_deadline,
    snap_to_schedule,
)
from judge.turns.timing import Span, parse_timing

M, R, A = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT
PARIS = ZoneInfo("Europe/Paris")
NEW_YORK = ZoneInfo("America/New_York")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


def local(zone: ZoneInfo, *args: int) -> datetime:
    return datetime(*args, tzinfo=zone)


def test_plain_length_without_at_or_days():
    timing = parse_timing("MOVE 3D RETREAT 1D ADJUST 12H")
    now = utc(2026, 11, 18, 10, 17)  # a Wednesday
    assert next_deadline(timing, M, now) == utc(2026, 11, 21, 10, 17)
    assert next_deadline(timing, R, now) == utc(2026, 11, 19, 10, 17)
    assert next_deadline(timing, A, now) == utc(2026, 11, 18, 22, 17)


def test_results_are_utc():
    timing = parse_timing("ZONE Asia/Tokyo AT 09:00")
    deadline = next_deadline(timing, M, local(PARIS, 2026, 6, 1, 12, 0))
    assert deadline.utcoffset() == timedelta(0)
    assert deadline.astimezone(ZoneInfo("Asia/Tokyo")).time() == time(9, 0)


def test_at_snaps_forward_to_the_time_of_day():
    timing = parse_timing("MOVE 1D AT 20:00")
    assert next_deadline(timing, M, utc(2026, 11, 18, 10, 0)) == utc(2026, 11, 19, 20, 0)
    # already past 20:00 on the day the length ends: the next day's 20:00
    assert next_deadline(timing, M, utc(2026, 11, 18, 21, 0)) == utc(2026, 11, 20, 20, 0)
    # exactly on the time: kept
    assert next_deadline(timing, M, utc(2026, 11, 18, 20, 0)) == utc(2026, 11, 19, 20, 0)


def test_several_at_times_take_the_first_one_after_the_length():
    timing = parse_timing("MOVE 12H AT 08:00,20:00")
    assert next_deadline(timing, M, utc(2026, 11, 18, 1, 0)) == utc(2026, 11, 18, 20, 0)
    assert next_deadline(timing, M, utc(2026, 11, 18, 13, 0)) == utc(2026, 11, 19, 8, 0)


def test_at_is_in_the_games_zone():
    timing = parse_timing("MOVE 1D AT 20:00 ZONE Europe/Paris")
    assert next_deadline(timing, M, utc(2026, 11, 18, 10, 0)) == local(PARIS, 2026, 11, 19, 20, 0)


def test_days_skip_the_weekend_to_the_next_allowed_day_at_the_at_time():
    timing = parse_timing("MOVE 2D AT 20:00 DAYS -MTWTF-")
    friday = utc(2026, 11, 20, 12, 0)  # +2D = Sunday 12:00 -> Monday 20:00
    assert next_deadline(timing, M, friday) == utc(2026, 11, 23, 20, 0)


def test_days_without_at_move_to_the_start_of_the_next_allowed_day():
    timing = parse_timing("MOVE 1D DAYS MTWTF ZONE Europe/Paris")
    friday = local(PARIS, 2026, 11, 20, 15, 30)  # +1D = Saturday 15:30 -> Monday 00:00 Paris
    assert next_deadline(timing, M, friday) == local(PARIS, 2026, 11, 23, 0, 0)


def test_days_are_judged_in_the_games_zone_not_in_utc():
    # 23:30 UTC on Friday is already Saturday in Tokyo.
    timing = parse_timing("MOVE 1D DAYS MON-FRI ZONE Asia/Tokyo")
    deadline = next_deadline(timing, M, utc(2026, 11, 19, 23, 30))
    assert deadline.astimezone(ZoneInfo("Asia/Tokyo")).weekday() == 0  # Monday


def test_lower_case_days_move_only_movement_deadlines():
    timing = parse_timing("NEXT 1D DAYS SMTWTFs")  # no movement deadline on Saturday
    friday = utc(2026, 11, 20, 9, 0)
    assert next_deadline(timing, R, friday) == utc(2026, 11, 21, 9, 0)
    assert next_deadline(timing, M, friday) == utc(2026, 11, 22, 0, 0)


def test_first_phase_gets_twice_the_length():
    timing = parse_timing("MOVE 3D")
    assert next_deadline(timing, M, utc(2026, 1, 1), first_phase=True) == utc(2026, 1, 7)


# --- daylight saving time (Europe/Paris: 29 Mar 2026 02:00 -> 03:00; 25 Oct 2026 03:00 -> 02:00)


def test_at_time_stays_on_the_wall_clock_across_spring_forward():
    timing = parse_timing("MOVE 1D AT 20:00 ZONE Europe/Paris")
    before = next_deadline(timing, M, local(PARIS, 2026, 3, 27, 19, 0))  # Sat 28 Mar 20:00 CET
    after = next_deadline(timing, M, local(PARIS, 2026, 3, 28, 19, 0))  # Sun 29 Mar 20:00 CEST
    assert before == utc(2026, 3, 28, 19, 0)
    assert after == utc(2026, 3, 29, 18, 0)
    assert after.astimezone(PARIS).time() == time(20, 0)


def test_days_are_calendar_days_and_hours_are_elapsed_across_dst():
    saturday_evening = local(PARIS, 2026, 3, 28, 20, 0)
    by_days = next_deadline(parse_timing("MOVE 1D ZONE Europe/Paris"), M, saturday_evening)
    by_hours = next_deadline(parse_timing("MOVE 24H ZONE Europe/Paris"), M, saturday_evening)
    assert by_days.astimezone(PARIS).replace(tzinfo=None) == datetime(2026, 3, 29, 20, 0)
    assert by_days - saturday_evening == timedelta(hours=23)
    assert by_hours - saturday_evening == timedelta(hours=24)
    assert by_hours.astimezone(PARIS).hour == 21


def test_at_time_inside_the_spring_gap_resolves_forward():
    timing = parse_timing("MOVE 12H AT 02:30 ZONE Europe/Paris")
    deadline = next_deadline(timing, M, local(PARIS, 2026, 3, 28, 14, 0))
    assert deadline == utc(2026, 3, 29, 1, 30)  # 03:30 CEST: the 02:30 that does not exist, moved on
    assert deadline >= local(PARIS, 2026, 3, 28, 14, 0) + timedelta(hours=12)


def test_at_time_in_the_autumn_overlap_takes_the_first_occurrence():
    timing = parse_timing("MOVE 12H AT 02:30 ZONE Europe/Paris")
    deadline = next_deadline(timing, M, local(PARIS, 2026, 10, 24, 14, 0))
    assert deadline == utc(2026, 10, 25, 0, 30)  # 02:30 CEST, the first of the two


def test_new_york_fall_back_keeps_the_evening_deadline():
    timing = parse_timing("MOVE 3D AT 21:00 ZONE America/New_York")
    deadline = next_deadline(timing, M, local(NEW_YORK, 2026, 10, 30, 9, 0))  # DST ends 1 Nov
    assert deadline.astimezone(NEW_YORK).replace(tzinfo=None) == datetime(2026, 11, 2, 21, 0)
    assert deadline == utc(2026, 11, 3, 2, 0)


@settings(max_examples=150, deadline=None)
@given(
    now=st.datetimes(datetime(2025, 1, 1), datetime(2028, 12, 31), timezones=st.just(timezone.utc)),
    text=st.sampled_from(
        [
            "MOVE 3D AT 20:00 DAYS -MTWTF- ZONE Europe/Paris",
            "NEXT 36H AT 02:30,14:00 DAYS SmTWTFs ZONE America/New_York",
            "MOVE 1D DAYS SAT,SUN ZONE Australia/Lord_Howe",
            "MOVE 90M ZONE Asia/Kolkata",
        ]
    ),
    kind=st.sampled_from(list(PhaseKind)),
)
def test_never_earlier_than_the_length_and_always_on_schedule(now, text, kind):
    timing = parse_timing(text)
    deadline = next_deadline(timing, kind, now)
    assert deadline >= add_span(now, timing.length(kind), timing)
    wall = deadline.astimezone(timing.tz)
    assert wall.weekday() in timing.allowed_days(kind)
    if timing.at:
        # the wall time is an AT time, or the AT time shifted over a DST gap
        assert any(
            abs((datetime.combine(wall.date(), at) - wall.replace(tzinfo=None)).total_seconds()) <= 3600
            for at in timing.at
        )
    assert snap_to_schedule(timing, kind, deadline) == deadline  # already on schedule


def test_extend_only_never_shortens():
    old = utc(2026, 11, 25, 20, 0)
    assert extend_only(old, utc(2026, 11, 24, 20, 0)) == old
    assert extend_only(old, utc(2026, 11, 26, 20, 0)) == utc(2026, 11, 26, 20, 0)
    assert extend_only(None, old) == old
    with pytest.raises(ValueError, match="aware"):
        extend_only(None, datetime(2026, 11, 25))


def test_grace_end():
    deadline = utc(2026, 11, 25, 20, 0)
    assert grace_end(parse_timing("GRACE 2D"), deadline) == utc(2026, 11, 27, 20, 0)
    assert grace_end(parse_timing("GRACE 0"), deadline) == deadline
    assert grace_end(parse_timing(""), deadline) is None


# --- absences

LIMIT = Span(days=14)


def test_deadline_inside_an_absence_moves_to_its_end():
    deadline = utc(2026, 11, 25, 20, 0)
    away = Absence("FRANCE", utc(2026, 11, 24), utc(2026, 11, 27, 12, 0))
    assert apply_absences(deadline, [away], LIMIT) == utc(2026, 11, 27, 12, 0)


def test_deadline_outside_absences_is_unchanged():
    deadline = utc(2026, 11, 25, 20, 0)
    earlier = Absence("FRANCE", utc(2026, 11, 20), utc(2026, 11, 25, 20, 0))  # ends exactly at it
    later = Absence("ITALY", utc(2026, 11, 26), utc(2026, 11, 28))
    assert apply_absences(deadline, [earlier, later], LIMIT) == deadline


def test_absences_chain():
    deadline = utc(2026, 11, 25, 20, 0)
    first = Absence("FRANCE", utc(2026, 11, 25), utc(2026, 11, 27))
    second = Absence("ITALY", utc(2026, 11, 26), utc(2026, 11, 29))
    assert apply_absences(deadline, [second, first], LIMIT) == utc(2026, 11, 29)


def test_absence_extension_is_capped_by_the_limit():
    deadline = utc(2026, 11, 25, 20, 0)
    long_away = Absence("FRANCE", utc(2026, 11, 20), utc(2027, 1, 20))
    assert apply_absences(deadline, [long_away], Span(days=3)) == utc(2026, 11, 28, 20, 0)


def test_moved_deadline_snaps_to_the_schedule_again():
    timing = parse_timing("AT 20:00 DAYS -MTWTF-")
    deadline = utc(2026, 11, 25, 20, 0)  # Wednesday
    away = Absence("FRANCE", utc(2026, 11, 25), utc(2026, 11, 27, 21, 0))  # ends Friday 21:00
    moved = apply_absences(deadline, [away], LIMIT, timing=timing, kind=M)
    assert moved == utc(2026, 11, 30, 20, 0)  # Monday 20:00


def test_check_absence_within_the_limit():
    now = utc(2026, 11, 20)
    taken = [Absence("FRANCE", utc(2026, 10, 1), utc(2026, 10, 11)), Absence("ITALY", utc(2026, 10, 1), utc(2026, 10, 31))]
    fits = Absence("FRANCE", utc(2026, 12, 1), utc(2026, 12, 5))
    assert check_absence(fits, taken, LIMIT, now) == fits
    too_long = Absence("FRANCE", utc(2026, 12, 1), utc(2026, 12, 6))
    with pytest.raises(AbsenceError, match=r"14D per player \(4D left\)"):
        check_absence(too_long, taken, LIMIT, now)


def test_check_absence_refuses_the_past_and_backwards_ranges():
    with pytest.raises(AbsenceError, match="already over"):
        check_absence(Absence("FRANCE", utc(2026, 1, 1), utc(2026, 1, 2)), [], LIMIT, utc(2026, 2, 1))
    with pytest.raises(AbsenceError, match="before it starts"):
        Absence("FRANCE", utc(2026, 1, 2), utc(2026, 1, 1))


# --- dates as written in commands


def test_local_moment_reads_the_date_in_the_zone():
    now = utc(2026, 11, 21, 12, 0)
    assert local_moment(2026, 11, 25, time(20, 0), "Europe/Paris", now) == utc(2026, 11, 25, 19, 0)
    assert local_moment(2026, 11, 25, None, "UTC", now) == utc(2026, 11, 25, 0, 0)
    assert local_moment(2026, 11, 25, None, "UTC", now, default_at=time(23, 59)) == utc(2026, 11, 25, 23, 59)
    assert local_moment(2026, 7, 1, time(12, 0), parse_timing("ZONE Europe/Paris"), now) == utc(2026, 7, 1, 10, 0)


def test_local_moment_without_a_year_takes_the_next_such_date():
    now = utc(2026, 11, 21, 12, 0)
    assert local_moment(None, 11, 21, None, "UTC", now) == utc(2026, 11, 21)  # today still counts
    assert local_moment(None, 1, 14, time(20, 0), "UTC", now) == utc(2027, 1, 14, 20, 0)
    # 23:30 UTC on 21 Nov is already 22 Nov in Tokyo: "21 Nov" there means next year
    late = utc(2026, 11, 21, 23, 30)
    assert local_moment(None, 11, 21, None, "Asia/Tokyo", late).year == 2027


def test_local_moment_refuses_impossible_dates():
    with pytest.raises(ValueError, match="02-30"):
        local_moment(2026, 2, 30, None, "UTC", utc(2026, 1, 1))
