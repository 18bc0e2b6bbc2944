"""TIMING text -> Timing: every clause, the njudge forms, errors that quote the text."""

from datetime import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.types import PhaseKind
from judge.turns.timing import ALL_DAYS, Span, Timing, TimingError, format_timing, parse_span, parse_timing

MON, TUE, WED, THU, FRI, SAT, SUN = range(7)


def test_defaults_are_the_dpjudges_lengths_with_a_four_hour_warning():
    timing = parse_timing("")
    assert timing.length(PhaseKind.MOVEMENT) == Span(days=3)
    assert timing.length(PhaseKind.RETREAT) == Span(days=1)
    assert timing.length(PhaseKind.ADJUSTMENT) == Span(days=1)
    assert timing.warn == (Span(seconds=4 * 3600),)
    assert timing.grace is None and timing.at == () and timing.days == ALL_DAYS
    assert timing.zone == "UTC" and timing.absence_limit == Span(days=14)


def test_phase_lengths_per_phase_type():
    timing = parse_timing("MOVE 2D RETREAT 12H ADJUST 90M")
    assert timing.movement == Span(days=2)
    assert timing.retreat == Span(seconds=12 * 3600)
    assert timing.adjustment == Span(seconds=90 * 60)


@pytest.mark.parametrize(
    "text, span",
    [
        ("30M", Span(seconds=1800)),
        ("12H", Span(seconds=43200)),
        ("3D", Span(days=3)),
        ("2W", Span(days=14)),
        ("1D12H", Span(days=1, seconds=43200)),
        ("1.5D", Span(days=1, seconds=43200)),
        ("72", Span(seconds=72 * 3600)),  # njudge: a bare number is hours
        ("72.0", Span(seconds=72 * 3600)),
        ("3d", Span(days=3)),
        ("0", Span()),
    ],
)
def test_spans(text, span):
    assert parse_span(text) == span


@pytest.mark.parametrize("text", ["3X", "D3", "", "3D-", "three days", "-2H"])
def test_bad_span_is_quoted(text):
    with pytest.raises(TimingError) as caught:
        parse_span(text)
    assert repr(text) in str(caught.value) and "M, H, D or W" in str(caught.value)


def test_long_and_short_phase_names():
    timing = parse_timing("MOVEMENT 4D RETREATS 2D BUILDS 3D")
    assert (timing.movement, timing.retreat, timing.adjustment) == (Span(4), Span(2), Span(3))
    timing = parse_timing("MOV 5D RET 6H ADJ 7H")
    assert (timing.movement, timing.retreat, timing.adjustment) == (Span(5), Span(0, 6 * 3600), Span(0, 7 * 3600))


def test_next_sets_every_phase_and_a_phase_of_its_own_wins_in_any_order():
    assert parse_timing("NEXT 2D").retreat == Span(days=2)
    for text in ("NEXT 1D MOVE 3D", "MOVE 3D NEXT 1D"):
        timing = parse_timing(text)
        assert timing.movement == Span(days=3) and timing.adjustment == Span(days=1)


def test_at_one_or_several_times_of_day():
    assert parse_timing("AT 20:00").at == (time(20, 0),)
    assert parse_timing("AT 20:00,8:30").at == (time(8, 30), time(20, 0))


@pytest.mark.parametrize("bad", ["25:00", "20:60", "8pm", "20"])
def test_bad_at_is_quoted(bad):
    with pytest.raises(TimingError, match="time of day") as caught:
        parse_timing(f"AT {bad}")
    assert repr(bad) in str(caught.value)


def test_njudge_phase_block():
    timing = parse_timing("MOVE CLOCK 1410 NEXT 72 GRACE 168 DAYS -MTWTF- RETREAT NEXT 24")
    assert timing.movement == Span(seconds=72 * 3600)
    assert timing.retreat == Span(seconds=24 * 3600)
    assert timing.adjustment == Span(days=1)  # untouched: the default
    assert timing.at == (time(23, 30),)
    assert timing.grace == Span(seconds=168 * 3600)
    assert timing.days == frozenset({MON, TUE, WED, THU, FRI})
    assert parse_timing("CLOCK -1").at == ()


@pytest.mark.parametrize("bad", ["1440", "-2", "noon"])
def test_bad_clock(bad):
    with pytest.raises(TimingError, match="CLOCK"):
        parse_timing(f"CLOCK {bad}")


@pytest.mark.parametrize(
    "pattern, days",
    [
        ("-MTWTF-", {MON, TUE, WED, THU, FRI}),  # DPjudge, Sunday first
        ("SMTWTFS", set(range(7))),
        ("------S", {SAT}),
        ("MTWTF", {MON, TUE, WED, THU, FRI}),  # Monday first, the rest not allowed
        ("MTWTFSS", set(range(7))),
        ("M-W-F", {MON, WED, FRI}),
        ("MON-FRI", {MON, TUE, WED, THU, FRI}),
        ("SAT,SUN", {SAT, SUN}),
        ("FRI-MON", {FRI, SAT, SUN, MON}),
        ("tue,thursday", {TUE, THU}),
    ],
)
def test_days_patterns(pattern, days):
    assert parse_timing(f"DAYS {pattern}").days == frozenset(days)


def test_lower_case_days_exclude_movement_deadlines_only():
    timing = parse_timing("DAYS SmTWTFs")
    assert timing.days == ALL_DAYS
    assert timing.allowed_days(PhaseKind.MOVEMENT) == frozenset({SUN, TUE, WED, THU, FRI})
    assert timing.allowed_days(PhaseKind.RETREAT) == ALL_DAYS


@pytest.mark.parametrize("bad", ["XMTWTF-", "-MTWTF-X", "-------", "MTWTFSSS", "MON-FUN", "mtwtf"])
def test_bad_days_are_refused_with_the_text(bad):
    with pytest.raises(TimingError) as caught:
        parse_timing(f"DAYS {bad}")
    assert bad in str(caught.value)


def test_grace_warn_zone_absence():
    timing = parse_timing("GRACE 2D WARN 1D,12H,4H ZONE Europe/Paris ABSENCE 10D")
    assert timing.grace == Span(days=2)
    assert timing.warn == (Span(days=1), Span(seconds=12 * 3600), Span(seconds=4 * 3600))
    assert timing.zone == "Europe/Paris" and str(timing.tz) == "Europe/Paris"
    assert timing.absence_limit == Span(days=10)
    assert parse_timing("WARN 0").warn == ()
    assert parse_timing("GRACE 2D").with_changes("GRACE NONE").grace is None


def test_unknown_zone_quotes_it():
    with pytest.raises(TimingError, match="'Mars/Olympus'"):
        parse_timing("ZONE Mars/Olympus")


def test_unknown_setting_names_what_is_accepted():
    with pytest.raises(TimingError) as caught:
        parse_timing("MOVE 3D SOON 2D")
    message = str(caught.value)
    assert "'MOVE 3D SOON 2D'" in message and "'SOON'" in message and "GRACE" in message


def test_missing_value_is_an_error():
    with pytest.raises(TimingError, match="GRACE needs a value"):
        parse_timing("MOVE 3D GRACE")


def test_conflicting_repeats_are_refused_but_identical_ones_are_fine():
    with pytest.raises(TimingError, match="twice"):
        parse_timing("MOVE CLOCK 1410 NEXT 72 RETREAT CLOCK -1 NEXT 24")
    assert parse_timing("AT 20:00 AT 20:00").at == (time(20, 0),)


def test_zero_length_phase_is_refused():
    with pytest.raises(TimingError, match="cannot be zero"):
        parse_timing("MOVE 0")


def test_with_changes_keeps_what_is_not_mentioned():
    base = parse_timing("MOVE 2D AT 20:00 ZONE Europe/Berlin")
    changed = base.with_changes("GRACE 1D")
    assert changed.movement == Span(days=2) and changed.at == (time(20, 0),)
    assert changed.zone == "Europe/Berlin" and changed.grace == Span(days=1)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "MOVE 3D RETREAT 1D ADJUST 1D AT 20:00 DAYS -MTWTF- GRACE 2D WARN 4H ZONE Europe/Paris",
        "NEXT 36H MOVE 1W AT 08:00,20:00 DAYS SmTWTFs WARN 0 ABSENCE 3D ZONE America/New_York",
        "MOVE 1D12H DAYS MON-FRI GRACE 0",
    ],
)
def test_canonical_text_round_trips(text):
    timing = parse_timing(text)
    assert parse_timing(format_timing(timing)) == timing
    assert str(timing) == format_timing(timing)


@given(st.integers(0, 60), st.integers(0, 86400 * 3))
def test_span_text_round_trips(days, seconds):
    span = Span(days, seconds - seconds % 60)  # the text form counts whole minutes
    assert parse_span(str(span)) == span


def test_timing_values_compare_and_hash_by_settings():
    assert parse_timing("MOVE 3D") == Timing()
    assert hash(parse_timing("ZONE UTC")) == hash(Timing())


def test_reveal_window_for_sealed_games_round_trips():
    timing = parse_timing("REVEAL 1D")
    assert timing.reveal == Span(days=1)
    assert parse_timing(format_timing(timing)) == timing
    assert parse_timing("").reveal is None


def test_zone_names_in_any_case_are_spelled_the_iana_way():
    assert parse_timing("ZONE europe/paris").zone == "Europe/Paris"
    assert parse_timing("ZONE utc").zone == "UTC"


@pytest.mark.parametrize("text", ["99999999D", "999999W", "9" * 20 + "H", "9" * 400 + "D"])
def test_absurdly_long_spans_are_refused(text):
    with pytest.raises(TimingError, match="longer than a year"):
        parse_span(text)
