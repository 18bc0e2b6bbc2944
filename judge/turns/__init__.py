"""Turn processing decisions, pure: timing, deadlines, readiness, press after the deadline,
draw votes and deadline display.  No database and no clock: ``now`` is always a parameter.

The scheduler pass (judge/turns/scheduler.py, the one module here with I/O) loads each due game, builds a ``TurnState`` and
applies the ``Decision`` that ``decide`` returns; see readiness.py for the contract.
"""

from .deadlines import (
    Absence,
    AbsenceError,
    add_span,
    apply_absences,
    check_absence,
    extend_only,
    grace_end,
    local_moment,
    next_deadline,
    resumed_deadline,
    snap_to_schedule,
)
from .display import format_deadline, format_remaining, zone_or_error
from .draws import Ballot, DrawError, Outcome, OutcomeKind, missing_votes, parse_draw_powers, tally
from .press import LATE_SEND, NO_LATE_RECEIVE, late_press_refusal, rules_refusal
from .readiness import (
    Action,
    Decision,
    TurnState,
    decide,
    delay_after_orders,
    grace_budget,
    may_submit_empty,
    next_due,
    NO_SETTLE,
    Outlook,
    outlook,
)
from .timing import Span, Timing, TimingError, format_timing, parse_span, parse_timing

__all__ = [
    "Absence", "AbsenceError", "Action", "Ballot", "Decision", "DrawError", "LATE_SEND",
    "NO_LATE_RECEIVE", "NO_SETTLE", "Outcome", "Outlook", "outlook", "OutcomeKind", "Span", "Timing", "TimingError", "TurnState",
    "add_span", "apply_absences", "check_absence", "decide", "delay_after_orders",
    "extend_only", "format_deadline", "format_remaining", "format_timing", "grace_budget",
    "grace_end", "late_press_refusal", "rules_refusal", "local_moment", "may_submit_empty", "missing_votes", "next_due", "next_deadline",
    "parse_draw_powers", "parse_span", "parse_timing", "resumed_deadline", "snap_to_schedule", "tally",
    "zone_or_error",
]
