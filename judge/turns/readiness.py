"""What one scheduler pass must do for one game, decided as the DPjudge decides it.

The DPjudge checks every game every twenty minutes.  A game is ready when all active powers
have orders, either the deadline has passed or nobody has set WAIT, and DELAY is zero.  A
ready game is processed.  Otherwise a non-zero DELAY is counted down and nothing else
happens; at zero, past the deadline, a late notice goes out and DELAY becomes 24 (about eight
hours); before it, nothing (here: the TIMING WARN reminders, as the DPjudge's TIMING WARN
does).  The last orders set DELAY to 1 (a settle window) unless they came late, then 0.

Added from the DPjudge's rules and TIMING:

* Retreat and adjustment phases are processed at the deadline with defaults for the powers
  without orders (no late notice, no grace).
* When the grace period of a movement phase ends with powers still late:
  by default the late players are dismissed and the game waits for the master or a TAKEOVER;
  with RULE CIVIL_DISORDER the phase is processed with civil-disorder defaults; with RULE
  CIVIL_PREVIEW the master is sent a preview (with those defaults) and the game waits for
  PROCESS!, DELAY becoming 72 so the preview repeats daily.  Without a GRACE setting a
  CIVIL_DISORDER or CIVIL_PREVIEW game acts at the deadline, any other game waits for ever.
* RULE GRACE_BUDGET n: the grace period is a per-player allowance.  A power late at a
  deadline with uses left consumes one (announced) and gets the grace period; a power with
  none left is dealt with at the deadline as if its grace had run out.  Civil-disorder
  processing and the automatic preview wait until every late power's grace has run out.
  Without a GRACE setting the budget changes nothing.
* RULE NO_SETTLE: no settle window: the last orders leave DELAY at 0, so the phase is
  processed right after the mail that completed it (unless someone waits);
* RULE ALWAYS_WAIT: never process before the deadline (as if every power had set WAIT);
  RULE NO_MINOR_WAIT: wait flags count in movement phases only.

Everything here is pure: the caller loads a ``TurnState``, calls ``decide`` and applies the
``Decision`` in the same transaction (store ``new_delay``, add ``reminder_offsets`` to the
phase's sent reminders, add ``grace_consumed`` to the phase's graced set and each player's
used count, mark ``dismiss`` powers vacant, then mail and/or process).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Mapping

from adjudicator.types import PhaseKind

__all__ = [
    "Action",
    "Decision",
    "TurnState",
    "decide",
    "delay_after_orders",
    "Outlook",
    "outlook",
    "grace_budget",
    "may_submit_empty",
    "next_due",
    "DELAY_AFTER_LATE_NOTICE",
    "DELAY_AFTER_PREVIEW",
    "DELAY_AFTER_LAST_ORDERS",
    "NO_SETTLE",
]

DELAY_AFTER_LAST_ORDERS = 1  # one pass to panic and change them
DELAY_AFTER_LATE_NOTICE = 24  # about eight hours at the default 20-minute tick
DELAY_AFTER_PREVIEW = 72  # about a day: the automatic preview repeats daily

CIVIL_DISORDER = "CIVIL_DISORDER"
CIVIL_PREVIEW = "CIVIL_PREVIEW"
GRACE_BUDGET = "GRACE_BUDGET"
ALWAYS_WAIT = "ALWAYS_WAIT"
NO_SETTLE = "NO_SETTLE"
NO_MINOR_WAIT = "NO_MINOR_WAIT"


def grace_budget(rules: frozenset[str]) -> int | None:
    """n from ``GRACE_BUDGET n`` (or ``GRACE_BUDGET_n`` / ``GRACE_BUDGET=n``); None without it.

    Raises ValueError quoting the rule when n is not a whole number >= 0.
    """
    for rule in rules:
        head = rule.upper()
        if not head.startswith(GRACE_BUDGET):
            continue
        rest = head[len(GRACE_BUDGET) :].strip(" _=")
        if not rest.isdigit():
            raise ValueError(f"RULE {rule!r}: expected GRACE_BUDGET followed by a whole number, e.g. GRACE_BUDGET 2")
        return int(rest)
    return None


@dataclass(frozen=True, slots=True)
class TurnState:
    """Everything about one game's current phase that readiness depends on."""

    phase_kind: PhaseKind
    active: frozenset[str]  # powers that must order (the engine's requirements)
    submitted: frozenset[str]  # powers whose orders are in
    deadline: datetime
    now: datetime
    waiting: frozenset[str] = frozenset()  # powers with WAIT set
    grace_end: datetime | None = None  # deadlines.grace_end(); None: no grace period
    delay: int = 0
    paused: bool = False
    rules: frozenset[str] = frozenset()
    grace_used: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))  # per power, this game
    graced: frozenset[str] = frozenset()  # powers already charged a grace use this phase
    vacant: frozenset[str] = frozenset()  # powers without a player (dismissed, resigned)
    warn: tuple[timedelta, ...] = (timedelta(hours=4),)  # TIMING WARN offsets
    reminders_sent: frozenset[timedelta] = frozenset()  # WARN offsets already sent this phase

    def __post_init__(self) -> None:
        for name in ("deadline", "now"):
            moment = getattr(self, name)
            if moment.tzinfo is None:
                raise ValueError(f"TurnState.{name} must be an aware datetime")
        if self.delay < 0:
            raise ValueError(f"DELAY cannot be negative: {self.delay}")
        if CIVIL_DISORDER in self.rules and CIVIL_PREVIEW in self.rules:
            raise ValueError("RULE CIVIL_DISORDER and RULE CIVIL_PREVIEW are mutually exclusive")
        if not isinstance(self.grace_used, MappingProxyType):
            object.__setattr__(self, "grace_used", MappingProxyType(dict(self.grace_used)))

    @property
    def missing(self) -> frozenset[str]:
        return self.active - self.submitted

    @property
    def past_deadline(self) -> bool:
        return self.now >= self.deadline


class Action(enum.Enum):
    PROCESS = "process"  # adjudicate now (with civil-disorder defaults for Decision.civil_disorder)
    PREVIEW = "preview"  # send the master a preview with those defaults; change nothing else
    WAIT = "wait"  # do not process this pass


@dataclass(frozen=True, slots=True)
class Decision:
    """What the scheduler must do this pass; fields left empty mean 'nothing of that kind'."""

    action: Action
    reason: str
    new_delay: int
    civil_disorder: frozenset[str] = frozenset()  # powers whose orders default (PROCESS/PREVIEW)
    late_notice: frozenset[str] = frozenset()  # send a late notice naming these powers
    reminders: frozenset[str] = frozenset()  # send a reminder to these powers
    reminder_offsets: frozenset[timedelta] = frozenset()  # WARN offsets now used up
    dismiss: frozenset[str] = frozenset()  # late players to dismiss (powers become vacant)
    grace_consumed: frozenset[str] = frozenset()  # powers charged one grace use (announce it)
    waiting_for_master: bool = False  # nothing will happen without the master or a TAKEOVER


def decide(state: TurnState) -> Decision:
    """The Decision for one scheduler pass over ``state`` (see the module docstring)."""
    if state.paused:
        return Decision(Action.WAIT, "paused by the master", state.delay)

    missing = state.missing
    budget = grace_budget(state.rules)
    consumed, out_of_grace = _grace_accounting(state, missing, budget)

    if not missing and state.delay == 0 and (state.past_deadline or not _someone_waits(state)):
        return Decision(Action.PROCESS, "all orders are in", 0, grace_consumed=consumed)

    if state.phase_kind is not PhaseKind.MOVEMENT and missing and state.past_deadline and state.delay == 0:
        return Decision(
            Action.PROCESS,
            f"{state.phase_kind.name.lower()} deadline passed: defaults for the powers without orders",
            0,
            civil_disorder=missing,
        )

    expired = _expired(state, missing, out_of_grace)
    if expired:
        decision = _after_grace(state, missing, expired, consumed)
        if decision is not None:
            return decision

    if state.delay > 0:
        return Decision(Action.WAIT, "counting DELAY down", state.delay - 1, grace_consumed=consumed)

    if state.past_deadline and missing:
        return Decision(
            Action.WAIT,
            "deadline passed with orders missing",
            DELAY_AFTER_LATE_NOTICE,
            late_notice=missing,
            grace_consumed=consumed,
        )

    if not state.past_deadline:
        due = frozenset(
            w for w in state.warn if w > timedelta(0) and w not in state.reminders_sent and state.now >= state.deadline - w
        )
        to_remind = missing - state.vacant
        if due and to_remind:
            return Decision(
                Action.WAIT,
                "reminder before the deadline",
                state.delay,
                reminders=to_remind,
                reminder_offsets=due,
            )

    reason = "waiting for the deadline" if not missing else "waiting for orders"
    return Decision(Action.WAIT, reason, state.delay, grace_consumed=consumed)


def _someone_waits(state: TurnState) -> bool:
    if NO_MINOR_WAIT in state.rules and state.phase_kind is not PhaseKind.MOVEMENT:
        return False
    if ALWAYS_WAIT in state.rules:
        return True
    return bool(state.waiting & state.active)  # only powers with orders due may hold the game


def _grace_accounting(
    state: TurnState, missing: frozenset[str], budget: int | None
) -> tuple[frozenset[str], frozenset[str]]:
    """-> (powers charged a grace use now, powers with no grace left this phase)."""
    if (
        budget is None
        or state.grace_end is None
        or state.phase_kind is not PhaseKind.MOVEMENT
        or not state.past_deadline
    ):
        return frozenset(), frozenset()
    consumed: set[str] = set()
    out: set[str] = set()
    for power in missing - state.graced:
        if state.grace_used.get(power, 0) < budget:
            consumed.add(power)
        else:
            out.add(power)
    return frozenset(consumed), frozenset(out)


def _expired(state: TurnState, missing: frozenset[str], out_of_grace: frozenset[str]) -> frozenset[str]:
    """Late powers whose grace (or, out of budget, whose deadline) has run out."""
    if state.phase_kind is not PhaseKind.MOVEMENT or not missing or not state.past_deadline:
        return frozenset()
    if state.grace_end is None:
        acts_at_deadline = CIVIL_DISORDER in state.rules or CIVIL_PREVIEW in state.rules
        return missing if acts_at_deadline else frozenset()
    if state.now >= state.grace_end:
        return missing
    return out_of_grace


def _after_grace(
    state: TurnState, missing: frozenset[str], expired: frozenset[str], consumed: frozenset[str]
) -> Decision | None:
    """The decision once some late powers are out of grace; None to fall through."""
    if CIVIL_DISORDER in state.rules or CIVIL_PREVIEW in state.rules:
        if expired != missing:
            return None  # others are still within their grace: late notices as usual
        if CIVIL_DISORDER in state.rules:
            return Decision(
                Action.PROCESS, "grace over: civil disorder", 0, civil_disorder=missing, grace_consumed=consumed
            )
        if state.delay > 0:
            return None  # the last preview is recent: count down
        return Decision(
            Action.PREVIEW,
            "grace over: preview to the master, waiting for PROCESS!",
            DELAY_AFTER_PREVIEW,
            civil_disorder=missing,
            grace_consumed=consumed,
            waiting_for_master=True,
        )
    to_dismiss = expired - state.vacant
    if to_dismiss:
        return Decision(
            Action.WAIT,
            "grace over: late players dismissed, waiting for the master or a TAKEOVER",
            state.delay,
            dismiss=to_dismiss,
            grace_consumed=consumed,
            waiting_for_master=expired == missing,
        )
    if expired == missing:
        return Decision(
            Action.WAIT,
            "waiting for the master or a TAKEOVER of the vacant powers",
            state.delay,
            grace_consumed=consumed,
            waiting_for_master=True,
        )
    return None


def next_due(state: TurnState) -> datetime | None:
    """When this game next needs a scheduler pass; None when only a change can wake it.

    ``state.now`` when a pass now would do something (process, preview, notices, reminders,
    dismissals, grace charges, a DELAY step); otherwise the earliest of the deadline, an
    unsent WARN time and the grace end still ahead.  Store it as the game's indexed due time
    and recompute it after every pass and every change (orders, WAIT, PAUSE, deadline), so a
    pass only loads games whose due time has come.
    """
    if state.paused:
        return None
    decision = decide(state)
    acts = (
        decision.action is not Action.WAIT
        or decision.new_delay != state.delay
        or bool(decision.late_notice or decision.reminders or decision.dismiss or decision.grace_consumed)
    )
    if acts:
        return state.now
    ahead = [state.deadline]
    if state.missing - state.vacant:  # someone could still be reminded
        ahead += [state.deadline - w for w in state.warn if w > timedelta(0) and w not in state.reminders_sent]
    if state.grace_end is not None:
        ahead.append(state.grace_end)
    future = [moment for moment in ahead if moment > state.now]
    return min(future, default=None)


class Outlook(enum.Enum):
    """When a phase whose orders are all in will be processed (``outlook``)."""

    NOW = "now"  # the next pass processes it: the judge runs one right after the mail
    SETTLE = "settle"  # after DELAY more passes (the settle window after the last orders)
    DEADLINE = "deadline"  # someone waits (SET WAIT, RULE ALWAYS_WAIT): at the deadline
    PAUSED = "paused"  # when the master resumes the game


def outlook(state: TurnState) -> Outlook | None:
    """When the phase will be processed once every active power's orders are in; None while
    orders are missing (then the deadline and lateness rules decide)."""
    if state.missing:
        return None
    if state.paused:
        return Outlook.PAUSED
    if decide(state).action is Action.PROCESS:
        return Outlook.NOW
    if not state.past_deadline and _someone_waits(state):
        return Outlook.DEADLINE
    return Outlook.SETTLE


def delay_after_orders(all_in: bool, late: bool, current: int = 0, settle: bool = True) -> int:
    """DELAY after a power's orders arrive: the last orders set 1, or 0 when they come late
    or the game has no settle window (RULE NO_SETTLE).

    ``all_in``: these orders complete the phase; ``late``: they arrived after the deadline;
    ``current``: the stored DELAY, kept when orders are still missing.
    """
    if not all_in:
        return current
    return DELAY_AFTER_LAST_ORDERS if settle and not late else 0


def may_submit_empty(now: datetime, deadline: datetime) -> bool:
    """An empty order list (which would leave a power late) is refused after the deadline."""
    return now < deadline
