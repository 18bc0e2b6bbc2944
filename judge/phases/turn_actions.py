"""What a scheduler pass does for one claimed game: build the TurnState, ``decide``, apply.

    act(session, game, judge, now) -> (outcome, mail)

Applying a Decision (judge.turns.readiness says what each field means): store the new
DELAY; remember the WARN reminders sent and the grace uses charged this phase; dismiss
late players; mail reminders (to each late player, deadline in their own zone), late
notices (the first of a phase to the game's list, repeats to the late players and the
master only, as the DPjudge sends them), grace announcements (to the list), dismissal notices; process the
phase (with civil-disorder defaults for the powers named) or send the master a preview;
finally store the game's next due time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable, Iterable

from sqlalchemy.orm import Session

from adjudicator.types import PhaseKind
from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail
from judge.mailio.render import render
from judge.publish.broadcast import broadcast, to_member
from judge.store.queries import as_utc, deadline_text, master_of, position_of, rules_of, timing_of, variant_of
from judge.phases.processing import preview_phase, process_phase
from judge.phases.sealed_stages import sealed_act  # RULE SEALED: commit, publish, reveal stages
from judge.phases.turn_views import phase_name
from judge.phases.order_sets import units_without_orders
from judge.phases.order_sources import FORCED, awaiting_bot
from judge.phases.turnstate import (
    PowerSeats,
    absences_of,
    orders_in,
    progress_of,
    reschedule,
    seats,
    turn_state_and_seats,
)
from judge.phases.outcomes import NOTIFIED, PREVIEWED, PROCESSED, WAITED
from judge.store.models_game import DISMISSED, Game, Membership
from judge.store.models_turns import TurnProgress
from judge.turns import Action, Decision, TurnState, apply_absences, decide, extend_only, format_deadline, grace_budget

__all__ = ["BOT_RECHECK", "act", "after_grace_text"]

#: How long a phase waiting for the bot's moves stays out of the passes (a finished job
#: makes the game due at once; this is for a judge running no bot process).
BOT_RECHECK = timedelta(minutes=5)


@dataclass(frozen=True)
class GraceCharge:
    power: str
    used: int


def after_grace_text(rules: frozenset[str], has_grace: bool) -> str:
    """What happens to late powers when their time is up, in words."""
    names = {rule.split()[0].upper() for rule in rules}
    if "CIVIL_DISORDER" in names:
        return "the phase is processed with civil-disorder defaults for the late powers"
    if "CIVIL_PREVIEW" in names:
        return "the master receives a preview with civil-disorder defaults and decides"
    if has_grace:
        return "late players are dismissed and the game waits for the master or a TAKEOVER"
    return "the game waits for the late orders (or for the master)"


#: Seats powers whose players were just dismissed (RULE PREFERENCES: a reserve player takes
#: each); given by the caller, so this module does not reach into fair assignment.
VacancyFiller = Callable[[Session, Game, JudgeSettings, datetime, frozenset[str]], list[OutgoingMail]]


def act(session: Session, game: Game, judge: JudgeSettings, now: datetime, *,
        fill_vacancies: VacancyFiller | None = None) -> tuple[str, list[OutgoingMail]]:
    sealed = sealed_act(session, game, judge, now)
    if sealed is not None:
        return sealed
    progress = progress_of(session, game)
    state, placed = turn_state_and_seats(session, game, now, progress=progress)
    mails: list[OutgoingMail] = []
    if _extend_for_absences(game, state, placed):
        mails += _deadline_extended_notice(session, game, judge, now)
        state, placed = turn_state_and_seats(session, game, now, progress=progress)
    decision = decide(state)
    outcome = WAITED

    game.delay = decision.new_delay
    if decision.reminder_offsets:
        sent = {int(s) for s in progress.reminders_sent}
        sent |= {int(offset.total_seconds()) for offset in decision.reminder_offsets}
        progress.reminders_sent = sorted(sent)
    charged = _charge_grace(session, game, progress, decision)

    if decision.reminders:
        mails += _reminders(session, game, judge, now, state, decision)
    if decision.late_notice:
        mails += _late_notice(session, game, judge, now, state, decision, charged, progress)
    elif charged:
        mails += _grace_notice(session, game, judge, state, charged)
    if decision.dismiss:
        mails += _dismiss(session, game, judge, now, decision)
        if fill_vacancies is not None:
            mails += fill_vacancies(session, game, judge, now, decision.dismiss)
    if mails:
        outcome = NOTIFIED

    defaulted = decision.civil_disorder
    process = decision.action is Action.PROCESS
    asked = _asked_by_master(progress, game, state)
    if not process and asked is not None:
        process, defaulted = True, asked
    if process:
        if awaiting_bot(session, game, defaulted, now):
            # The bot process makes the game due when the moves are in; the recheck only
            # covers a judge whose bot processes are all stopped.
            game.next_due_at = now + BOT_RECHECK
            return outcome, mails
        if decision.civil_disorder and state.phase_kind is PhaseKind.MOVEMENT:
            mails += _civil_disorder_notice(session, game, judge, now, decision)
        mails += process_phase(session, game, judge, now, defaulted=defaulted,
                               placed=placed if not decision.dismiss else None)
        return PROCESSED, mails
    if decision.action is Action.PREVIEW:
        mails += _master_notice(session, game, judge, decision, preview=True)
        mails += preview_phase(session, game, judge, now, defaulted=decision.civil_disorder, reason=decision.reason)
        outcome = PREVIEWED
    elif decision.dismiss and decision.waiting_for_master and _still_vacant(session, game, decision.dismiss):
        mails += _master_notice(session, game, judge, decision, preview=False)
    reschedule(session, game, now, progress=progress)
    return outcome, mails


def _asked_by_master(progress: TurnProgress, game: Game, state: TurnState) -> frozenset[str] | None:
    """The civil-disorder powers of the master's PROCESS (none) or PROCESS! (the missing)
    that waited for the bot's moves; None when the master asked nothing of this phase.  A
    plain PROCESS whose orders are no longer all in lapses (the master said "as they are")."""
    if progress.phase != game.phase or progress.master_process is None:
        return None
    if progress.master_process == FORCED:
        return state.missing
    if state.missing:
        progress.master_process = None
        return None
    return frozenset()


def _phase_name(game: Game) -> str:
    """The running turn's phase in words (a game has a phase from its start on)."""
    if game.phase is None:
        raise ValueError(f"game '{game.name}' has no phase: it has not started")
    return phase_name(game.phase)


def _extend_for_absences(game: Game, state: TurnState, placed: PowerSeats) -> bool:
    """Move a deadline still ahead out of the absences of the players whose orders are due
    (SET ABSENCE), within the game's absence limit; True when it moved."""
    if state.past_deadline:
        return False
    away = [a for power in state.active if power in placed.players for a in absences_of(placed.players[power])]
    if not away:
        return False
    timing = timing_of(game)
    moved = extend_only(state.deadline, apply_absences(state.deadline, away, timing.absence_limit, timing=timing,
                                                       kind=state.phase_kind))
    if moved <= state.deadline:
        return False
    game.deadline = moved
    return True


def _deadline_extended_notice(session: Session, game: Game, judge: JudgeSettings, now: datetime) -> list[OutgoingMail]:
    body = render("turn_deadline_extended.j2", game=game.name, phase=game.phase, phase_name=_phase_name(game),
                  deadline=deadline_text(game, None, now))
    return broadcast(session, game, judge, subject=f"{game.name} {game.phase}: deadline extended", body=body,
                     kind="deadline_changed")


def _seated(session: Session, game: Game, powers: Iterable[str]) -> list[tuple[str, Membership]]:
    """Those of ``powers`` that have a player now, with the player, in power order."""
    players = seats(session, game, variant_of(game)).players
    return [(power, players[power]) for power in sorted(powers) if power in players]


def _charge_grace(session: Session, game: Game, progress: TurnProgress, decision: Decision) -> list[GraceCharge]:
    if not decision.grace_consumed:
        return []
    charged = []
    progress.graced = sorted(set(progress.graced) | decision.grace_consumed)
    for power, member in _seated(session, game, decision.grace_consumed):
        member.grace_used = int(member.grace_used or 0) + 1
        charged.append(GraceCharge(power, member.grace_used))
    return charged


def _reminders(session: Session, game: Game, judge: JudgeSettings, now: datetime, state: TurnState,
               decision: Decision) -> list[OutgoingMail]:
    variant = variant_of(game)
    letters = {p.name: p.letter for p in variant.powers}
    stored = orders_in(session, game)
    mails = []
    for power, member in _seated(session, game, decision.reminders):
        # A power that ordered some units is told which ones still lack an order.
        unordered = (units_without_orders(variant, position_of(game), power, stored[power])
                     if stored.get(power) else ())
        body = render("turn_reminder.j2", game=game.name, power=power, phase=game.phase,
                      phase_name=_phase_name(game), deadline=deadline_text(game, member, now),
                      initial=letters.get(power, power[:1]), unordered=unordered)
        mails.append(to_member(game, judge, member, subject=f"{game.name} {game.phase}: reminder, orders due",
                               body=body, kind="reminder"))
    return mails


def _late_notice(session: Session, game: Game, judge: JudgeSettings, now: datetime, state: TurnState,
                 decision: Decision, charged: list[GraceCharge], progress: TurnProgress) -> list[OutgoingMail]:
    rules = rules_of(game)
    end = state.grace_end
    repeat = int(progress.late_notices or 0) > 0
    progress.late_notices = int(progress.late_notices or 0) + 1
    body = render(
        "turn_late.j2", game=game.name, phase=game.phase, phase_name=_phase_name(game),
        deadline=format_deadline(as_utc(game.deadline), game.zone or "UTC") if game.deadline else "",
        late=sorted(decision.late_notice),
        grace_end=format_deadline(end, game.zone or "UTC") if end is not None and end > now else None,
        after_grace=after_grace_text(rules, end is not None), charged=charged,
        budget=grace_budget(state.rules) or 0, repeat=repeat,
    )
    subject = f"{game.name} {game.phase}: late notice"
    if not repeat:
        return broadcast(session, game, judge, subject=subject, body=body, kind="late_notice")
    readers = [member for _, member in _seated(session, game, decision.late_notice)]
    master = master_of(session, game)
    if master is not None:
        readers.append(master)
    return [to_member(game, judge, member, subject=subject, body=body, kind="late_notice") for member in readers]


def _grace_notice(session: Session, game: Game, judge: JudgeSettings, state: TurnState,
                  charged: list[GraceCharge]) -> list[OutgoingMail]:
    end = state.grace_end
    body = render("turn_grace.j2", game=game.name, phase=game.phase, phase_name=_phase_name(game),
                  charged=charged, budget=grace_budget(state.rules) or 0,
                  grace_end=format_deadline(end, game.zone or "UTC") if end is not None else "the grace end")
    return broadcast(session, game, judge, subject=f"{game.name} {game.phase}: grace used", body=body,
                     kind="grace")


def _dismiss(session: Session, game: Game, judge: JudgeSettings, now: datetime,
             decision: Decision) -> list[OutgoingMail]:
    mails = []
    for power, member in _seated(session, game, decision.dismiss):
        body = render("turn_dismissed_player.j2", game=game.name, power=power, phase=game.phase,
                      phase_name=_phase_name(game))
        mails.append(to_member(game, judge, member, subject=f"{game.name}: you have been dismissed ({power})",
                               body=body, kind="dismissal"))
        member.status = DISMISSED
    body = render("turn_dismissed.j2", game=game.name, powers=sorted(decision.dismiss), phase=game.phase,
                  phase_name=_phase_name(game))
    session.flush()  # the dismissed players are off the list now
    mails += broadcast(session, game, judge, subject=f"{game.name} {game.phase}: late players dismissed",
                       body=body, kind="dismissal")
    return mails


def _still_vacant(session: Session, game: Game, powers: frozenset[str]) -> bool:
    """Some dismissed power has no player yet (no reserve took it at once)."""
    players = seats(session, game, variant_of(game)).players
    return any(power not in players for power in powers)


def _master_notice(session: Session, game: Game, judge: JudgeSettings, decision: Decision, *,
                   preview: bool) -> list[OutgoingMail]:
    master = master_of(session, game)
    if master is None:
        return []
    late = decision.civil_disorder or decision.dismiss
    body = render("turn_waiting_master.j2", game=game.name, phase=game.phase,
                  phase_name=_phase_name(game), powers=sorted(late), preview=preview)
    return [to_member(game, judge, master, subject=f"{game.name} {game.phase}: waiting for the master",
                      body=body, kind="master_notice")]


def _civil_disorder_notice(session: Session, game: Game, judge: JudgeSettings, now: datetime,
                           decision: Decision) -> list[OutgoingMail]:
    deadline = as_utc(game.deadline) if game.deadline is not None else now
    body = render("turn_civil_disorder.j2", game=game.name, phase=game.phase, phase_name=_phase_name(game),
                  powers=sorted(decision.civil_disorder),
                  when=format_deadline(deadline, game.zone or "UTC"))
    return broadcast(session, game, judge, subject=f"{game.name} {game.phase}: civil disorder", body=body,
                     kind="civil_disorder")
