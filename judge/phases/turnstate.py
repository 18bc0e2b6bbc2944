"""A game's stored state as the pure turn logic sees it (judge.turns.TurnState), and the
bookkeeping every change of that state needs.

    turn_state(session, game, now) -> TurnState     # built from the store, nothing written
    reschedule(session, game, now) -> None          # next_due_at from judge.turns.next_due
    after_orders(session, game, now) -> None        # every place that records orders (DELAY)
    late_powers(session, game, now) -> frozenset    # active powers still without orders, past the deadline
    missing_orders(session, game) -> frozenset      # active powers still without orders

Who must order is the engine's ``requirements``, narrowed as the DPjudge narrows it: in a
movement phase only powers that own a supply centre are waited for; dummy powers (the
master's DUMMY) are never waited for, their orders default.  Powers whose player resigned
or was dismissed are still waited for (``vacant``): the game waits for a TAKEOVER or the
master.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Mapping

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from adjudicator.results import Requirement
from adjudicator.types import PhaseKind, Position, Variant
from judge.phases.requirements import phase_requirements
from judge.store.queries import (
    ORDER_SETS_MEMO,
    as_utc,
    deadline_text,
    game_members,
    position_of,
    rules_of,
    still_loaded,
    timing_of,
    variant_of,
)
from judge.phases.bot_seats import bot_powers
from judge.lifecycle import ACTIVE, PAUSED, in_play
from judge.store.models_game import DUMMY, MEMBER_ACTIVE, PLAYER, Game, Membership, OrderSet
from judge.phases.order_sets import orders_complete
from judge.store.models_turns import TurnProgress
from judge.store.schedule import PROCESS_AFTER_COMMIT
from judge.turns import (
    NO_SETTLE,
    Action,
    Absence,
    Outlook,
    TurnState,
    apply_absences,
    decide,
    delay_after_orders,
    extend_only,
    format_deadline,
    grace_end,
    next_deadline,
    next_due,
    outlook,
)

__all__ = [
    "PowerSeats",
    "active_powers",
    "after_orders",
    "absences_of",
    "late_powers",
    "missing_orders",
    "orders_changed",
    "outlooks",
    "orders_in",
    "progress_of",
    "reschedule",
    "seats",
    "stored_order_set",
    "submitted_powers",
    "survivors",
    "turn_state",
    "turn_state_and_seats",
    "phase_deadline",
]


@dataclass(frozen=True)
class PowerSeats:
    """Who plays what: the active player of each power, and the powers without one."""

    players: Mapping[str, Membership]  # power -> its active player
    dummies: frozenset[str]  # the master made these dummies: never waited for
    vacant: frozenset[str]  # no player (resigned, dismissed, ejected): waiting for a TAKEOVER


def seats(session: Session, game: Game, variant: Variant) -> PowerSeats:
    latest: dict[str, Membership] = {}
    for row in game_members(session, game):
        if row.role == PLAYER and row.power:
            latest[row.power] = row  # later rows replace earlier ones (TAKEOVER)
    players = {p: m for p, m in latest.items() if m.status == MEMBER_ACTIVE}
    dummies = frozenset(p for p, m in latest.items() if m.status == DUMMY)
    vacant = frozenset(p.name for p in variant.powers if p.name not in players and p.name not in dummies)
    return PowerSeats(players, dummies, vacant)


def survivors(position: Position) -> frozenset[str]:
    """Powers still in the game: owning a supply centre or a unit."""
    owners = {power for power, owned in position.centers.items() if owned}
    return frozenset(owners | {u.power for u in position.units})


def active_powers(variant: Variant, position: Position, dummies: frozenset[str] = frozenset()) -> frozenset[str]:
    """The powers whose orders the phase waits for."""
    return _waited_for(phase_requirements(variant, position), position, dummies)


def _waited_for(due: Mapping[str, Requirement], position: Position, dummies: frozenset[str]) -> frozenset[str]:
    """``active_powers`` from the phase's requirements ``due``."""
    needed = set(due)
    if position.phase.kind is PhaseKind.MOVEMENT:
        # DPjudge: a power without supply centres is not waited for (its units hold).
        needed = {p for p in needed if position.centers.get(p)}
    elif position.phase.kind is PhaseKind.ADJUSTMENT:
        # Removing every unit leaves nothing to choose: the phase does not wait for it.
        needed = {p for p in needed if not due[p].removals or due[p].removals < len(due[p].units)}
    return frozenset(needed - dummies)


# Built once with bound parameters (hot path: every mail with orders, every reply).
_ORDERS_IN_PHASE = select(OrderSet.power, OrderSet.orders).where(
    OrderSet.game_id == bindparam("game_id"), OrderSet.phase == bindparam("phase"))
_ORDER_SET_OF_POWER = select(OrderSet).where(
    OrderSet.game_id == bindparam("game_id"), OrderSet.phase == bindparam("phase"), OrderSet.power == bindparam("power"))


def orders_in(session: Session, game: Game) -> dict[str, list[str]]:
    """power -> its stored (canonical) orders for the current phase."""
    if game.phase is None or game.id is None:
        return {}
    rows = session.execute(_ORDERS_IN_PHASE, {"game_id": game.id, "phase": game.phase}).all()
    return {power: list(lines or ()) for power, lines in rows}


def stored_order_set(session: Session, game: Game, power: str) -> OrderSet | None:
    """The power's order set for the game's current phase, if one is stored."""
    if game.phase is None or game.id is None:  # (compared with NULL: as the query built per call did)
        return session.execute(select(OrderSet).where(
            OrderSet.game_id == game.id, OrderSet.phase == game.phase, OrderSet.power == power)).scalar_one_or_none()
    key = (game.id, game.phase, power)
    memo: dict[tuple[int, str, str], OrderSet] = session.info.setdefault(ORDER_SETS_MEMO, {})
    row = memo.get(key)
    if row is not None and still_loaded(session, row) and (row.game_id, row.phase, row.power) == key:
        return row
    row = session.execute(
        _ORDER_SET_OF_POWER, {"game_id": game.id, "phase": game.phase, "power": power}
    ).scalar_one_or_none()
    if row is not None:
        memo[key] = row
    return row


def submitted_powers(variant: Variant, position: Position, orders: Mapping[str, list[str]]) -> frozenset[str]:
    """Powers whose stored orders answer everything the phase asks of them (every unit
    ordered; in an adjustment phase as many builds, waives or removals as due)."""
    return _complete(phase_requirements(variant, position), orders)


def _complete(due: Mapping[str, Requirement], orders: Mapping[str, list[str]]) -> frozenset[str]:
    """``submitted_powers`` from the phase's requirements ``due``."""
    return frozenset(power for power, need in due.items() if orders_complete(need, orders.get(power, ())))


def _active_and_submitted(session: Session, game: Game, variant: Variant, position: Position,
                         placed: PowerSeats) -> tuple[frozenset[str], frozenset[str]]:
    """The powers the phase waits for, and those of them whose orders are all in (the
    judge's bot orders when the phase is processed: its powers are never waited for)."""
    due = phase_requirements(variant, position)
    active = _waited_for(due, position, placed.dummies)
    return active, (_complete(due, orders_in(session, game)) | bot_powers(placed.players)) & active


def missing_orders(session: Session, game: Game) -> frozenset[str]:
    """The active powers whose orders are not all in: ``turn_state(...).missing`` without
    the rest of the turn state (deadlines, grace, reminders), for every mail with orders."""
    variant = variant_of(game)
    active, submitted = _active_and_submitted(session, game, variant, position_of(game), seats(session, game, variant))
    return active - submitted


def progress_of(session: Session, game: Game) -> TurnProgress:
    """The scheduler's memory of the current phase (a fresh one when the phase changed)."""
    row = session.get(TurnProgress, game.id)
    if row is None:
        row = TurnProgress(game_id=game.id, phase=game.phase or "", reminders_sent=[], graced=[], late_notices=0)
        session.add(row)
    elif row.phase != game.phase:
        row.phase = game.phase or ""
        row.reminders_sent = []
        row.graced = []
        row.late_notices = 0
        row.master_process = None
    return row


def absences_of(member: Membership) -> list[Absence]:
    """A player's stored absences (``{"start": iso, "end": iso}`` items); bad items skipped."""
    found = []
    for item in member.absences or ():
        try:
            start = as_utc(datetime.fromisoformat(str(item["start"])))
            end = as_utc(datetime.fromisoformat(str(item["end"])))
            found.append(Absence(member.power or "", start, end))
        except (KeyError, TypeError, ValueError):
            continue
    return found


def phase_deadline(session: Session, game: Game, position: Position, now: datetime, *,
                   first_phase: bool = False, placed: PowerSeats | None = None) -> datetime:
    """The deadline of a phase starting now: TIMING, then the absences of those who must order."""
    variant = variant_of(game)
    timing = timing_of(game)
    kind = position.phase.kind
    deadline = next_deadline(timing, kind, now, first_phase=first_phase)
    placed = placed if placed is not None else seats(session, game, variant)
    must_order = active_powers(variant, position, placed.dummies)
    away = [a for power in must_order if power in placed.players for a in absences_of(placed.players[power])]
    if away:
        deadline = apply_absences(deadline, away, timing.absence_limit, timing=timing, kind=kind)
    return deadline


def _timing_rules(rules: frozenset[str]) -> frozenset[str]:
    """Rule names as the turn logic reads them (GRACE_BUDGET keeps its number)."""
    return frozenset(rule if rule.upper().startswith("GRACE_BUDGET") else rule.split()[0].upper() for rule in rules)


def turn_state(session: Session, game: Game, now: datetime, *, progress: TurnProgress | None = None) -> TurnState:
    """The TurnState of ``game`` (active or paused, with a position and a deadline)."""
    return turn_state_and_seats(session, game, now, progress=progress)[0]


def turn_state_and_seats(session: Session, game: Game, now: datetime, *,
                         progress: TurnProgress | None = None) -> tuple[TurnState, PowerSeats]:
    """``turn_state`` and the seats it was built from (reused by the scheduler pass)."""
    if game.position is None or game.deadline is None:
        raise ValueError(f"game {game.name!r} has not started: no turn state")
    variant = variant_of(game)
    position = position_of(game)
    timing = timing_of(game)
    placed = seats(session, game, variant)
    active, submitted = _active_and_submitted(session, game, variant, position, placed)
    memory = progress if progress is not None else session.get(TurnProgress, game.id)
    same_phase = memory is not None and memory.phase == game.phase
    deadline = as_utc(game.deadline)
    state = TurnState(
        phase_kind=position.phase.kind,
        active=active,
        submitted=submitted,
        deadline=deadline,
        now=now,
        waiting=frozenset(p for p, m in placed.players.items() if m.wait),
        grace_end=grace_end(timing, deadline),
        delay=int(game.delay or 0),
        paused=game.status == PAUSED,
        rules=_timing_rules(rules_of(game)),
        grace_used={p: int(m.grace_used or 0) for p, m in placed.players.items()},
        graced=frozenset(memory.graced) if same_phase and memory is not None else frozenset(),
        vacant=placed.vacant & active,
        warn=timing.warn_offsets(),
        reminders_sent=frozenset(timedelta(seconds=int(s)) for s in memory.reminders_sent)
        if same_phase and memory is not None else frozenset(),
    )
    return state, placed


def reschedule(session: Session, game: Game, now: datetime, *, progress: TurnProgress | None = None) -> None:
    """Store when the scheduler must look at ``game`` next (NULL: only a change wakes it)."""
    if game.status != ACTIVE or game.position is None or game.deadline is None:
        game.next_due_at = None
        return
    game.next_due_at = next_due(turn_state(session, game, now, progress=progress))


def after_orders(session: Session, game: Game, now: datetime) -> None:
    """Call after storing a power's orders (or CLEAR): the last orders of the *active* powers
    set DELAY to 1 (0 when late), as the DPjudge does, and an active game is looked at by the
    next pass.  The one DELAY rule: every place that records orders calls this.

    Flushes the session first so the orders just stored are counted.
    """
    if not in_play(game.status) or game.position is None or game.deadline is None:
        return
    session.flush()
    all_in = not missing_orders(session, game)
    game.delay = delay_after_orders(all_in, late=now >= as_utc(game.deadline), current=int(game.delay or 0),
                                    settle=NO_SETTLE not in _timing_rules(rules_of(game)))
    orders_changed(session, game, all_in=all_in)


#: session.info key: ids of the games whose orders or WAIT flags this transaction changed.
_ORDERS_CHANGED = "orders_changed_games"


def orders_changed(session: Session, game: Game, *, all_in: bool = True) -> None:
    """Remember that ``game``'s orders or WAIT flags changed in this mail (see ``outlooks``);
    ``all_in=False``: the caller knows orders are still missing, so there is nothing to say
    (and no turn state to compute again) unless a later change in the mail says otherwise."""
    if game.id is not None:
        session.info.setdefault(_ORDERS_CHANGED, {})[game.id] = all_in


def outlooks(session: Session, now: datetime) -> dict[int, str]:
    """For each game whose orders or WAIT flags this mail changed and whose orders are now
    all in: when its phase will be processed, in words.  A game ready now is added to the
    session's PROCESS_AFTER_COMMIT ids: the worker runs the scheduler's pass for it right
    after the mail's transaction (the DPjudge's readiness, without waiting for a tick)."""
    said: dict[int, str] = {}
    changed = sorted(game_id for game_id, all_in in session.info.pop(_ORDERS_CHANGED, {}).items() if all_in)
    if changed:
        session.flush()
    for game_id in changed:
        game = session.get(Game, game_id)
        if game is None or not in_play(game.status) or game.position is None or game.deadline is None:
            continue
        state = turn_state(session, game, now)
        when = outlook(state)
        if when is None:
            continue
        if when is Outlook.NOW:
            session.info.setdefault(PROCESS_AFTER_COMMIT, set()).add(game_id)
        said[game_id] = _outlook_text(when, state, game)
    return said


def _outlook_text(when: Outlook, state: TurnState, game: Game) -> str:
    if when is Outlook.NOW:
        return "all orders are in: the phase is processed right after this mail; the results follow in their own mail"
    if when is Outlook.PAUSED:
        return "all orders are in; the game is paused: the phase is processed once the master sends RESUME"
    if when is Outlook.DEADLINE:
        why = "RULE ALWAYS_WAIT" if "ALWAYS_WAIT" in state.rules else "a player has set WAIT"
        return (f"all orders are in; the phase waits for its deadline ({why}), "
                f"{format_deadline(state.deadline, game.zone or 'UTC')}")
    passes = state.delay + 1
    return (f"all orders are in: as on the DPjudge the phase waits {state.delay} scheduler pass"
            f"{'es' if state.delay != 1 else ''} (a settle window in which orders may still change) and is "
            f"processed at the pass after, within {passes * 20} minutes at the default 20-minute tick")


def ready_to_process(session: Session, game: Game, now: datetime) -> bool:
    """Whether a scheduler pass now would process the phase (the DAIDE edge runs one at
    once only then)."""
    if game.status != ACTIVE or game.position is None or game.deadline is None:
        return False
    return decide(turn_state(session, game, now)).action is Action.PROCESS


def late_powers(session: Session, game: Game, now: datetime) -> frozenset[str]:
    """The active powers whose orders are missing once the deadline has passed (none before)."""
    if game.position is None or game.deadline is None or now < as_utc(game.deadline):
        return frozenset()
    return missing_orders(session, game)


def fresh_deadline_for_newcomer(game: Game, now: datetime) -> str | None:
    """A player seated after the deadline (a reserve or a TAKEOVER of a power dismissed after
    grace) would be late at once and dismissed by the next pass: the deadline moves to a fresh
    phase length from now (never earlier).  The new deadline in words, or None when it did not
    move.  The caller tells the list (the unit of work reschedules the game)."""
    if game.status != ACTIVE or game.deadline is None or as_utc(game.deadline) > now:
        return None
    fresh = next_deadline(timing_of(game), position_of(game).phase.kind, now)
    game.deadline = extend_only(as_utc(game.deadline), fresh)
    return deadline_text(game, None, now)
