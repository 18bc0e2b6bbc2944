"""Readiness as the DPjudge decides it, one scheduler pass at a time."""

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from adjudicator.types import PhaseKind
from judge.turns.readiness import (
    DELAY_AFTER_LATE_NOTICE,
    DELAY_AFTER_PREVIEW,
    Action,
    Decision,
    TurnState,
    decide,
    delay_after_orders,
    grace_budget,
    Outlook,
    may_submit_empty,
    next_due,
    outlook,
)

M, R, A = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT
DEADLINE = datetime(2026, 11, 25, 20, 0, tzinfo=timezone.utc)
BEFORE = DEADLINE - timedelta(days=1)
AFTER = DEADLINE + timedelta(hours=1)
SEVEN = frozenset({"AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"})
ALL_BUT_FRANCE = SEVEN - {"FRANCE"}
TICK = timedelta(minutes=20)


def state(**changes) -> TurnState:
    base = TurnState(phase_kind=M, active=SEVEN, submitted=SEVEN, deadline=DEADLINE, now=BEFORE)
    return replace(base, **changes)


def apply(s: TurnState, d: Decision, step: timedelta = TICK) -> TurnState:
    """What the scheduler stores after a decision, then the clock moves on one tick."""
    return replace(
        s,
        now=s.now + step,
        delay=d.new_delay,
        reminders_sent=s.reminders_sent | d.reminder_offsets,
        graced=s.graced | d.grace_consumed,
        grace_used={p: s.grace_used.get(p, 0) + (p in d.grace_consumed) for p in s.active},
        vacant=s.vacant | d.dismiss,
    )


# --- the FAQ's rules


def test_all_orders_in_nobody_waiting_delay_zero_processes_before_the_deadline():
    decision = decide(state())
    assert decision.action is Action.PROCESS and decision.civil_disorder == frozenset()


def test_a_wait_flag_holds_the_game_until_the_deadline():
    assert decide(state(waiting=frozenset({"ITALY"}))).action is Action.WAIT
    assert decide(state(waiting=frozenset({"ITALY"}), now=DEADLINE)).action is Action.PROCESS


def test_wait_flag_of_a_power_without_orders_due_does_not_count():
    active = SEVEN - {"ITALY"}
    assert decide(state(active=active, waiting=frozenset({"ITALY"}))).action is Action.PROCESS


def test_last_orders_set_delay_one_so_the_game_waits_one_pass():
    s = state(delay=delay_after_orders(all_in=True, late=False))
    first = decide(s)
    assert first.action is Action.WAIT and first.new_delay == 0
    second = decide(apply(s, first))
    assert second.action is Action.PROCESS


def test_late_last_orders_set_delay_zero_even_after_a_late_notice():
    assert delay_after_orders(all_in=True, late=True, current=DELAY_AFTER_LATE_NOTICE) == 0
    assert decide(state(now=AFTER, delay=0)).action is Action.PROCESS


def test_orders_that_do_not_complete_the_phase_keep_the_delay():
    assert delay_after_orders(all_in=False, late=False, current=5) == 5
    assert delay_after_orders(all_in=False, late=True) == 0
    assert delay_after_orders(all_in=True, late=False, current=0) == 1


def test_no_settle_rule_leaves_no_settle_window_after_the_last_orders():
    assert delay_after_orders(all_in=True, late=False, current=0, settle=False) == 0
    assert delay_after_orders(all_in=False, late=False, current=3, settle=False) == 3


def test_deadline_passed_with_orders_missing_sends_late_notices_and_sets_delay_24():
    decision = decide(state(submitted=ALL_BUT_FRANCE, now=AFTER))
    assert decision.action is Action.WAIT
    assert decision.late_notice == {"FRANCE"}
    assert decision.new_delay == DELAY_AFTER_LATE_NOTICE == 24


def test_a_nonzero_delay_only_counts_down():
    decision = decide(state(submitted=ALL_BUT_FRANCE, now=AFTER, delay=7))
    assert decision == Decision(Action.WAIT, decision.reason, 6)


def test_late_notices_repeat_every_25_passes():
    s = state(submitted=ALL_BUT_FRANCE, now=AFTER)
    notices = []
    for tick in range(60):
        d = decide(s)
        if d.late_notice:
            notices.append(tick)
        s = apply(s, d)
    assert notices == [0, 25, 50]


def test_before_the_deadline_without_all_orders_nothing_happens():
    decision = decide(state(submitted=ALL_BUT_FRANCE))
    assert decision == Decision(Action.WAIT, decision.reason, 0)


def test_paused_game_does_nothing_even_when_ready_or_late():
    for s in (state(paused=True), state(paused=True, submitted=ALL_BUT_FRANCE, now=AFTER, delay=3)):
        decision = decide(s)
        assert decision.action is Action.WAIT and decision.new_delay == s.delay
        assert not (decision.late_notice or decision.dismiss or decision.reminders)


# --- reminders (TIMING WARN)


def test_reminder_goes_to_powers_without_orders_at_the_warn_offset():
    early = decide(state(submitted=ALL_BUT_FRANCE, now=DEADLINE - timedelta(hours=5)))
    assert not early.reminders
    due = decide(state(submitted=ALL_BUT_FRANCE - {"ITALY"}, now=DEADLINE - timedelta(hours=4)))
    assert due.reminders == {"FRANCE", "ITALY"}
    assert due.reminder_offsets == {timedelta(hours=4)}
    assert due.action is Action.WAIT and due.new_delay == 0


def test_each_warn_offset_is_sent_once():
    s = state(submitted=ALL_BUT_FRANCE, now=DEADLINE - timedelta(hours=3), reminders_sent=frozenset({timedelta(hours=4)}))
    assert not decide(s).reminders


def test_several_warn_offsets():
    warn = (timedelta(days=1), timedelta(hours=6))
    s = state(submitted=ALL_BUT_FRANCE, now=DEADLINE - timedelta(hours=30), warn=warn)
    sent = []
    while s.now < DEADLINE:
        d = decide(s)
        if d.reminders:
            sent.append((DEADLINE - s.now, d.reminder_offsets))
        s = apply(s, d)
    assert sent == [(timedelta(days=1), {timedelta(days=1)}), (timedelta(hours=6), {timedelta(hours=6)})]


def test_offsets_already_due_together_make_one_reminder():
    warn = (timedelta(days=1), timedelta(hours=4))
    d = decide(state(submitted=ALL_BUT_FRANCE, now=DEADLINE - timedelta(hours=2), warn=warn))
    assert d.reminders == {"FRANCE"} and d.reminder_offsets == set(warn)


def test_no_reminders_with_warn_off_or_when_all_orders_are_in_or_only_vacant_powers_lack_them():
    assert not decide(state(submitted=ALL_BUT_FRANCE, now=DEADLINE - timedelta(hours=1), warn=())).reminders
    assert not decide(state(waiting=frozenset({"ITALY"}), now=DEADLINE - timedelta(hours=1))).reminders
    vacant = state(submitted=ALL_BUT_FRANCE, vacant=frozenset({"FRANCE"}), now=DEADLINE - timedelta(hours=1))
    assert not decide(vacant).reminders


# --- retreats and adjustments default at the deadline


@pytest.mark.parametrize("kind", [R, A])
def test_retreat_and_adjustment_phases_default_at_the_deadline(kind):
    active = frozenset({"FRANCE", "ITALY"})
    before = decide(state(phase_kind=kind, active=active, submitted=frozenset({"ITALY"})))
    assert before.action is Action.WAIT
    at = decide(state(phase_kind=kind, active=active, submitted=frozenset({"ITALY"}), now=DEADLINE))
    assert at.action is Action.PROCESS and at.civil_disorder == {"FRANCE"}
    assert not at.late_notice and not at.grace_consumed


# --- after the grace period


def grace_state(**changes) -> TurnState:
    return state(**{"submitted": ALL_BUT_FRANCE, "grace_end": DEADLINE + timedelta(days=2), **changes})


def test_within_grace_late_notices_as_usual():
    d = decide(grace_state(now=AFTER))
    assert d.late_notice == {"FRANCE"} and d.action is Action.WAIT and not d.dismiss


def test_default_after_grace_dismisses_late_players_and_waits_for_the_master():
    s = grace_state(now=DEADLINE + timedelta(days=2), delay=12)
    d = decide(s)
    assert d.action is Action.WAIT and d.dismiss == {"FRANCE"} and d.waiting_for_master
    following = decide(apply(s, d))
    assert following.action is Action.WAIT and not following.dismiss


def test_dismissed_power_taken_over_and_ordering_lets_the_game_go_on():
    s = grace_state(now=DEADLINE + timedelta(days=3), vacant=frozenset(), submitted=SEVEN)
    assert decide(s).action is Action.PROCESS


def test_civil_disorder_after_grace_processes_with_defaults_even_during_a_delay():
    rules = frozenset({"CIVIL_DISORDER"})
    within = decide(grace_state(now=AFTER, rules=rules))
    assert within.action is Action.WAIT and within.late_notice == {"FRANCE"}
    over = decide(grace_state(now=DEADLINE + timedelta(days=2), rules=rules, delay=10))
    assert over.action is Action.PROCESS and over.civil_disorder == {"FRANCE"} and not over.dismiss


def test_civil_disorder_without_grace_acts_at_the_deadline():
    s = state(submitted=ALL_BUT_FRANCE, now=DEADLINE, rules=frozenset({"CIVIL_DISORDER"}))
    d = decide(s)
    assert d.action is Action.PROCESS and d.civil_disorder == {"FRANCE"}


def test_without_grace_and_without_civil_disorder_the_game_waits_for_ever():
    s = state(submitted=ALL_BUT_FRANCE, now=DEADLINE + timedelta(days=30))
    d = decide(s)
    assert d.action is Action.WAIT and d.late_notice == {"FRANCE"} and not d.dismiss


def test_civil_preview_sends_a_preview_and_waits_for_process_bang():
    rules = frozenset({"CIVIL_PREVIEW"})
    s = grace_state(now=DEADLINE + timedelta(days=2), rules=rules)
    d = decide(s)
    assert d.action is Action.PREVIEW and d.civil_disorder == {"FRANCE"} and d.waiting_for_master
    assert d.new_delay == DELAY_AFTER_PREVIEW == 72
    previews = [0]
    for tick in range(1, 80):
        s = apply(s, d)
        d = decide(s)
        assert d.action is not Action.PROCESS
        if d.action is Action.PREVIEW:
            previews.append(tick)
    assert previews == [0, 73]  # again about a day later


def test_civil_disorder_and_civil_preview_are_exclusive():
    with pytest.raises(ValueError, match="mutually exclusive"):
        state(rules=frozenset({"CIVIL_DISORDER", "CIVIL_PREVIEW"}))


# --- grace budget


def test_grace_budget_parsing():
    assert grace_budget(frozenset({"GRACE_BUDGET 2"})) == 2
    assert grace_budget(frozenset({"GRACE_BUDGET_3"})) == 3
    assert grace_budget(frozenset({"GRACE_BUDGET=0"})) == 0
    assert grace_budget(frozenset({"CIVIL_DISORDER"})) is None
    with pytest.raises(ValueError, match="'GRACE_BUDGET many'"):
        grace_budget(frozenset({"GRACE_BUDGET many"}))


def test_a_late_power_with_uses_left_consumes_one_and_gets_the_grace_period():
    s = grace_state(now=AFTER, rules=frozenset({"GRACE_BUDGET 2"}), grace_used={"FRANCE": 1})
    d = decide(s)
    assert d.grace_consumed == {"FRANCE"} and d.late_notice == {"FRANCE"} and not d.dismiss
    again = decide(apply(s, d))
    assert not again.grace_consumed  # charged once per phase


def test_grace_is_charged_even_while_a_delay_counts_down():
    d = decide(grace_state(now=AFTER, rules=frozenset({"GRACE_BUDGET 1"}), delay=5))
    assert d.grace_consumed == {"FRANCE"} and d.new_delay == 4


def test_a_power_out_of_budget_is_dismissed_at_the_deadline():
    s = grace_state(now=DEADLINE, rules=frozenset({"GRACE_BUDGET 2"}), grace_used={"FRANCE": 2})
    d = decide(s)
    assert d.dismiss == {"FRANCE"} and not d.grace_consumed


def test_budget_shared_phase_civil_disorder_waits_for_the_graced_power():
    rules = frozenset({"GRACE_BUDGET 1", "CIVIL_DISORDER"})
    s = grace_state(
        submitted=SEVEN - {"FRANCE", "ITALY"}, now=AFTER, rules=rules, grace_used={"FRANCE": 1, "ITALY": 0}
    )
    d = decide(s)
    assert d.action is Action.WAIT and d.grace_consumed == {"ITALY"}
    assert d.late_notice == {"FRANCE", "ITALY"}
    over = decide(apply(s, d, step=timedelta(days=2)))
    assert over.action is Action.PROCESS and over.civil_disorder == {"FRANCE", "ITALY"}


def test_budget_without_a_grace_setting_changes_nothing():
    s = state(submitted=ALL_BUT_FRANCE, now=AFTER, rules=frozenset({"GRACE_BUDGET 1"}))
    d = decide(s)
    assert not d.grace_consumed and d.late_notice == {"FRANCE"} and not d.dismiss


def test_budget_is_not_charged_in_retreat_phases():
    s = grace_state(phase_kind=R, now=AFTER, rules=frozenset({"GRACE_BUDGET 1"}))
    d = decide(s)
    assert d.action is Action.PROCESS and not d.grace_consumed


# --- waiting rules


def test_always_wait_holds_until_the_deadline():
    rules = frozenset({"ALWAYS_WAIT"})
    assert decide(state(rules=rules)).action is Action.WAIT
    assert decide(state(rules=rules, now=DEADLINE)).action is Action.PROCESS


def test_no_minor_wait_ignores_wait_flags_outside_movement():
    rules = frozenset({"NO_MINOR_WAIT", "ALWAYS_WAIT"})
    retreat = state(phase_kind=R, rules=rules, waiting=SEVEN)
    assert decide(retreat).action is Action.PROCESS
    assert decide(replace(retreat, phase_kind=M)).action is Action.WAIT


# --- after the deadline


def test_no_empty_order_list_after_the_deadline():
    assert may_submit_empty(BEFORE, DEADLINE)
    assert not may_submit_empty(DEADLINE, DEADLINE)
    assert not may_submit_empty(AFTER, DEADLINE)


def test_turn_state_validation():
    with pytest.raises(ValueError, match="aware"):
        state(now=datetime(2026, 11, 25))
    with pytest.raises(ValueError, match="negative"):
        state(delay=-1)


# --- when the game next needs a pass


def test_next_due_for_an_idle_game_is_its_first_reminder_then_its_deadline():
    s = state(submitted=ALL_BUT_FRANCE)
    assert next_due(s) == DEADLINE - timedelta(hours=4)
    reminded = replace(s, reminders_sent=frozenset({timedelta(hours=4)}))
    assert next_due(reminded) == DEADLINE


def test_next_due_is_now_when_a_pass_would_act():
    assert next_due(state()) == BEFORE  # ready: process
    assert next_due(state(delay=1)) == BEFORE  # a DELAY step
    assert next_due(state(submitted=ALL_BUT_FRANCE, now=AFTER)) == AFTER  # late notice


def test_next_due_after_a_late_notice_counts_the_delay_every_pass():
    s = state(submitted=ALL_BUT_FRANCE, now=AFTER, delay=DELAY_AFTER_LATE_NOTICE)
    assert next_due(s) == AFTER


def test_next_due_is_nothing_when_only_a_change_can_help():
    abandoned = state(
        submitted=ALL_BUT_FRANCE,
        now=DEADLINE + timedelta(days=3),
        grace_end=DEADLINE + timedelta(days=2),
        vacant=frozenset({"FRANCE"}),
    )
    assert decide(abandoned).waiting_for_master and next_due(abandoned) is None
    assert next_due(state(paused=True, submitted=ALL_BUT_FRANCE, now=AFTER)) is None


def test_next_due_with_all_orders_in_and_a_wait_flag_is_the_deadline():
    assert next_due(state(waiting=frozenset({"ITALY"}))) == DEADLINE


@pytest.mark.parametrize("changes, expected", [
    ({"submitted": ALL_BUT_FRANCE}, None),  # orders missing: the deadline decides
    ({}, Outlook.NOW),
    ({"delay": 1}, Outlook.SETTLE),
    ({"delay": 1, "now": AFTER}, Outlook.SETTLE),  # the settle window is kept past the deadline
    ({"waiting": frozenset({"FRANCE"})}, Outlook.DEADLINE),
    ({"waiting": frozenset({"FRANCE"}), "now": AFTER}, Outlook.NOW),
    ({"rules": frozenset({"ALWAYS_WAIT"})}, Outlook.DEADLINE),
    ({"paused": True}, Outlook.PAUSED),
])
def test_outlook_says_when_an_all_in_phase_is_processed(changes, expected):
    assert outlook(state(**changes)) is expected
    if expected is Outlook.NOW:  # what the worker runs after the mail is exactly a processing pass
        assert decide(state(**changes)).action is Action.PROCESS
