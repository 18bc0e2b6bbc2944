"""Processing a phase, inside the caller's transaction (one scheduler pass, or the master's
PROCESS): load the position and the orders, adjudicate, store the PhaseRecord and the new
position, clear what lives for one phase (orders, WAIT; draw votes stand), set the next
deadline, count the standing draw votes again, and return the mail.

    process_phase(session, game, judge, now, defaulted=...) -> list[OutgoingMail]
    preview_phase(session, game, judge, now) -> list[OutgoingMail]     # master only; no change
    end_game(session, game, judge, now, kind, powers) -> list[OutgoingMail]
    rollback_to(session, game, judge, now, phase) -> list[OutgoingMail]

Nothing here commits: a crash before the caller's commit leaves the phase unprocessed and
the next pass does it again.  The caller holds the game (scheduler: row lock / guarded
version bump; worker: its one transaction per mail).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Mapping

from sqlalchemy import delete, null, select, update
from sqlalchemy.orm import Session

from adjudicator.api import IllegalOrder, OrderSyntaxError, adjudicate, parse_order, position_digest, prepare
from adjudicator.jsonio import position_from_json, position_to_json, results_to_json
from adjudicator.orders import Order
from adjudicator.results import Adjudication, OrderResult
from adjudicator.types import Phase, Position, Variant
from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail
from judge.mailio.render import render
from judge.publish.broadcast import broadcast, to_member
from judge.lifecycle import ACTIVE, ENDED, GameStatus, move
from judge.refusal import CommandRefused
from judge.store.queries import (
    as_utc,
    deadline_text,
    engine_rules,
    master_of,
    position_of,
    timing_of,
    variant_of,
)
from judge.phases.ballots import standing_outcome, vote_text
from judge.phases.turn_views import phase_name, results_view, summary_table
from judge.phases.turnstate import PowerSeats, phase_deadline, reschedule, survivors
from judge.phases.bot_moves import BotMovesPending, bot_moves
from judge.phases.order_sources import (
    bot_plan,
    phase_orders,
    request_seated_bot_moves,
    with_bot_orders,
    with_seated_bot_orders,
)
from judge.phases.punctuality import record_punctuality
from judge.phases.results_files import results_extras
from judge.standing.keeping import forget_turns, rate_finished_game, unrate_game
from judge.phases.views import position_rows
from judge.store.models_daide import MachineSeat
from judge.store.models_game import PLAYER, Game, Membership, OrderSet, PhaseRecord

__all__ = [
    "SOLO",
    "DRAW",
    "CONCESSION",
    "Adjudicated",
    "adjudicate_current",
    "end_game",
    "preview_phase",
    "preview_text",
    "process_phase",
    "rollback_to",
]

SOLO = "solo"
DRAW = "draw"
CONCESSION = "concession"


@dataclass(frozen=True)
class Adjudicated:
    """The current phase adjudicated with the stored orders (nothing written yet)."""

    variant: Variant
    before: Position
    orders: Mapping[str, tuple[str, ...]]  # power -> canonical lines as stored
    adjudication: Adjudication
    results: tuple[dict[str, Any], ...]  # the contract's result items, unparseable lines included
    ordered: frozenset[str] = frozenset()  # the powers that sent orders themselves
    by_bot: frozenset[str] = frozenset()  # the powers in civil disorder the bot played (RULE CD_BOT)
    awaiting: frozenset[str] = frozenset()  # the bot's powers shown with defaults: its moves not made yet

    @property
    def after(self) -> Position:
        return self.adjudication.position


def adjudicate_current(session: Session, game: Game, defaulted: Iterable[str] = (), *,
                       without_pending: bool = False) -> Adjudicated:
    """Adjudicate the game's current phase with its stored orders; powers without orders
    get the engine's civil-disorder defaults (hold, disband, removals by distance, no builds),
    or, with RULE CD_BOT, the ``defaulted`` powers get the bot's orders.

    The bot's orders are the ones its jobs made (judge/phases/bot_moves.py); with some not
    made yet this raises ``BotMovesPending`` (the caller asks ``awaiting_bot`` first), or
    with ``without_pending`` (a preview) gives those powers the defaults and names them in
    ``Adjudicated.awaiting``."""
    variant = variant_of(game)
    before = position_of(game)
    stored = phase_orders(session, game)
    plan = bot_plan(session, game, stored, frozenset(defaulted))
    moves = bot_moves(session, game, plan.powers)
    if moves.pending and not without_pending:
        raise BotMovesPending(game.name, moves.pending)
    stored = with_seated_bot_orders(stored, plan, moves)
    ordered = frozenset(power for power, lines in stored.items() if lines)
    stored, bot_powers = with_bot_orders(stored, plan, moves)
    orders: dict[str, list[Order]] = {}
    unreadable: list[OrderResult] = []
    board = prepare(variant, before)  # one board for the whole phase
    for power, lines in sorted(stored.items()):
        for line in lines:
            try:
                orders.setdefault(power, []).append(parse_order(board, power, line))
            except (OrderSyntaxError, IllegalOrder) as problem:  # stored against another position
                unreadable.append(OrderResult(power, line, "void", problem.reason))
    adjudication = adjudicate(board, orders, engine_rules(game))
    document = results_to_json(before.phase, adjudication, unreadable)
    return Adjudicated(
        variant, before, {p: tuple(lines) for p, lines in stored.items()}, adjudication,
        tuple(document["results"]), ordered, bot_powers, moves.pending,
    )


def _clear_phase_state(session: Session, game: Game, *, votes: bool) -> None:
    """Orders and WAIT flags live for one phase (the DPjudge clears them); draw votes stand
    until withdrawn, so only a rollback (``votes=True``) clears them."""
    session.execute(delete(OrderSet).where(OrderSet.game_id == game.id))
    cleared: dict[str, Any] = {"wait": False, "draw_vote": null()} if votes else {"wait": False}
    session.execute(
        update(Membership).where(Membership.game_id == game.id).values(**cleared),
        execution_options={"synchronize_session": False},
    )
    for held in list(session.identity_map.values()):  # members already loaded read the new values
        if isinstance(held, Membership) and held.game_id == game.id:
            session.expire(held, list(cleared))


def _standing_votes(session: Session, game: Game, judge: JudgeSettings, now: datetime,
                    alive: frozenset[str]) -> list[OutgoingMail]:
    """End the game when the votes standing from earlier phases pass among the survivors
    of the new one (an elimination can do that); otherwise no mail."""
    outcome, ballots = standing_outcome(session, game, alive)
    if outcome is None:
        return []
    kind = CONCESSION if outcome.kind.value == "concession" else DRAW
    votes = {power: vote_text(ballot) for power, ballot in sorted(ballots.items())}
    return end_game(session, game, judge, now, kind, outcome.powers, votes=votes)


def _fresh_phase_due(game: Game, now: datetime) -> datetime | None:
    """When a phase that has just begun needs its first pass: the first WARN reminder or the
    deadline (what judge.turns.next_due gives with no orders in; computed without loading
    anything, a wake-up that finds nothing to do only reschedules)."""
    if game.deadline is None:
        return None
    deadline = as_utc(game.deadline)
    moments = [deadline - offset for offset in timing_of(game).warn_offsets()] + [deadline]
    future = [moment for moment in moments if moment > now]
    return min(future, default=now)


def process_phase(session: Session, game: Game, judge: JudgeSettings, now: datetime, *,
                  defaulted: Iterable[str] = (), placed: PowerSeats | None = None) -> list[OutgoingMail]:
    """Process the current phase and return the results mail (and the game-end mail).

    ``defaulted``: the powers whose missing orders are replaced by civil-disorder defaults
    (named in the results).  ``placed``: the game's seats if the caller has them loaded.
    """
    defaulted = frozenset(defaulted)
    done = adjudicate_current(session, game, defaulted)
    before_doc = dict(game.position or {})
    after = done.after
    after_doc = position_to_json(after, game.map_name)
    session.add(PhaseRecord(
        game_id=game.id,
        phase=str(done.before.phase),
        position_before=before_doc,
        orders={power: list(lines) for power, lines in sorted(done.orders.items())},
        results=list(done.results),
        position_after=after_doc,
        digest=position_digest(after),
        processed_at=now,
    ))
    record_punctuality(session, game, done.variant, done.before, done.ordered)
    _clear_phase_state(session, game, votes=False)
    game.position = after_doc
    game.phase = str(after.phase)
    game.delay = 0
    winner = done.adjudication.winner
    mails: list[OutgoingMail] = []
    if winner is None:
        game.deadline = phase_deadline(session, game, after, now, placed=placed)
    view = results_view(
        game=game.name, variant=done.variant, before=done.before, before_doc=before_doc,
        results=done.results, after=after, after_doc=after_doc, defaulted=sorted(defaulted),
        ordered=done.ordered, by_bot=done.by_bot,
        deadline=deadline_text(game, None, now) if winner is None else None, winner=winner,
        show_next=winner is None,
    )
    body = render("turn_results.j2", view=view, preview=False, board=position_rows(done.variant, after))
    # The verifiable record (judge/phases/results_files.py): <game>-<phase>.json with the position
    # before, the orders, the results and the digests; sealed games add each power's
    # commitment, revealed orders and verdict.
    extra_text, attachments = results_extras(
        session, game, variant=done.variant, before=done.before, before_doc=before_doc, orders=done.orders,
        adjudication=done.adjudication, results=done.results, engine_rules=engine_rules(game), now=now,
    )
    if extra_text:
        body = body.rstrip("\n") + "\n\n" + extra_text
    mails += broadcast(session, game, judge, subject=f"{game.name} {view.phase} results", body=body,
                       kind="results", attachments=attachments)
    if winner is not None:
        mails += end_game(session, game, judge, now, SOLO, (winner,))
    else:
        mails += _standing_votes(session, game, judge, now, survivors(after))
    if game.status == ACTIVE:
        game.next_due_at = _fresh_phase_due(game, now)
        request_seated_bot_moves(session, game, now)  # the bot thinks while the players do
    else:
        game.next_due_at = None
    return mails


def preview_text(session: Session, game: Game, *, defaulted: Iterable[str] = (), reason: str = "") -> str:
    """The results the phase would have now (stored orders, defaults for the rest); nothing
    is stored."""
    defaulted = frozenset(defaulted)
    done = adjudicate_current(session, game, defaulted, without_pending=True)
    after_doc = position_to_json(done.after, game.map_name)
    view = results_view(
        game=game.name, variant=done.variant, before=done.before, before_doc=dict(game.position or {}),
        results=done.results, after=done.after, after_doc=after_doc, defaulted=sorted(defaulted),
        ordered=done.ordered, by_bot=done.by_bot,
        winner=done.adjudication.winner,
    )
    text = render("turn_results.j2", view=view, preview=True, reason=reason,
                  board=position_rows(done.variant, done.after))
    if done.awaiting:
        text = text.rstrip("\n") + (f"\n\nThe judge's bot has not made the moves of {', '.join(sorted(done.awaiting))} "
                                   "yet: they are shown here with civil-disorder defaults.\n")
    return text


def preview_phase(session: Session, game: Game, judge: JudgeSettings, now: datetime, *,
                  defaulted: Iterable[str] = (), reason: str = "") -> list[OutgoingMail]:
    """The preview mailed to the master only; nothing changes."""
    master = master_of(session, game)
    if master is None:
        return []
    body = preview_text(session, game, defaulted=defaulted, reason=reason)
    return [to_member(game, judge, master, subject=f"{game.name} {game.phase} PREVIEW (not processed)",
                      body=body, kind="preview")]


def _year_ends(variant: Variant, records: list[PhaseRecord]) -> list[tuple[int, Position]]:
    """(year, position) after each year's Fall was adjudicated (centres counted)."""
    ends = []
    for record in records:
        phase = Phase.parse(record.phase)
        after_phase = Phase.parse(str(record.position_after["phase"]))
        if phase.closes_year(after_phase):
            ends.append((phase.year, position_from_json(variant, record.position_after)))
    return ends


@dataclass(frozen=True)
class PlayerReveal:
    power: str
    players: tuple[str, ...]  # "Name <address> (resigned)" in the order they played


def reveal_players(session: Session, game: Game) -> tuple[PlayerReveal, ...]:
    """Who played each power, in map order (machines by their DAIDE name): told to everyone
    when a game ends, however it ends (a result, or the master's TERMINATE), as SMR tells
    the machines."""
    rows = session.execute(
        select(Membership).where(Membership.game_id == game.id, Membership.role == PLAYER).order_by(Membership.id)
    ).scalars()
    played: dict[str, list[str]] = {}
    machines = {seat.membership_id: seat for seat in session.scalars(
        select(MachineSeat).where(MachineSeat.game_id == game.id))}
    for row in rows:
        if not row.power:
            continue
        who = f"{row.name} <{row.address}>" if row.name else row.address
        if row.id in machines:  # a DAIDE machine: its NME name, revealed now
            who = f"{machines[row.id].name} {machines[row.id].version} (machine player)"
        if row.status != "active":
            who += f" ({row.status})"
        played.setdefault(row.power, []).append(who)
    order = [p.name for p in variant_of(game).powers]
    return tuple(PlayerReveal(p, tuple(played[p])) for p in order if p in played)


def end_game(session: Session, game: Game, judge: JudgeSettings, now: datetime, kind: str,
             powers: Iterable[str], *, votes: Mapping[str, str] | None = None) -> list[OutgoingMail]:
    """End ``game`` (a solo, a passed draw or concession): store the outcome, tell the list
    with the centre summary by year and who played each power (revealed now, also in
    gunboat games).  ``votes``: power -> how it voted, revealed with a draw or concession."""
    winners = tuple(sorted(powers))
    variant = variant_of(game)
    position = position_of(game)
    records = list(session.execute(
        select(PhaseRecord).where(PhaseRecord.game_id == game.id).order_by(PhaseRecord.id)
    ).scalars())
    start = position_from_json(variant, records[0].position_before) if records else position
    table = summary_table(variant, start, _year_ends(variant, records))
    move(game, GameStatus.ENDED)
    game.ended_at = now
    game.outcome = {"result": kind, "powers": list(winners), "phase": game.phase}
    session.flush()
    rate_finished_game(session, game.id)  # judge/standing: the ratings move at each game's end
    body = render(
        "turn_game_end.j2", game=game.name, kind=kind, powers=winners, phase=game.phase,
        phase_name=phase_name(game.phase) if game.phase else "", table=table,
        board=position_rows(variant, position), players=reveal_players(session, game),
        votes=sorted((votes or {}).items()),
    )
    shared = ", ".join(winners) if len(winners) <= 3 else f"{len(winners)}-way"
    headline = {SOLO: f"{winners[0]} wins", DRAW: f"draw ({shared})",
                CONCESSION: f"conceded to {winners[0]}"}.get(kind, kind)
    return broadcast(session, game, judge, subject=f"{game.name}: game over, {headline}", body=body,
                     kind="game_end")


def rollback_to(session: Session, game: Game, judge: JudgeSettings, now: datetime,
                phase: str | None) -> list[OutgoingMail]:
    """Return the game exactly to the start of ``phase`` (None: the last processed phase):
    its stored position, no orders, a new deadline; later history is removed.  An ended
    game becomes active again."""
    records = list(session.execute(
        select(PhaseRecord).where(PhaseRecord.game_id == game.id).order_by(PhaseRecord.id)
    ).scalars())
    if not records:
        raise CommandRefused(f"game '{game.name}' has no processed phase to roll back to")
    if phase is None:
        target = records[-1]
    else:
        wanted = phase.strip().upper()
        matches = [r for r in records if r.phase == wanted]
        if not matches:
            known = ", ".join(r.phase for r in records)
            raise CommandRefused(f"ROLLBACK {phase}: game '{game.name}' has no processed phase {wanted} "
                                 f"(processed phases: {known})")
        target = matches[0]
    for record in records:
        if record.id >= target.id:
            session.delete(record)
    forget_turns(session, game.id, [record.phase for record in records if record.id >= target.id])
    _clear_phase_state(session, game, votes=True)
    variant = variant_of(game)
    position = position_from_json(variant, target.position_before)
    game.position = dict(target.position_before)
    game.phase = target.phase
    game.delay = 0
    if game.status == ENDED:
        move(game, GameStatus.ACTIVE)
        game.outcome = None
        game.ended_at = None
        unrate_game(session, game.id)
    game.deadline = phase_deadline(session, game, position, now)
    reschedule(session, game, now)
    request_seated_bot_moves(session, game, now)
    body = render("turn_rollback.j2", game=game.name, phase=game.phase, phase_name=phase_name(game.phase),
                  board=position_rows(variant, position), deadline=deadline_text(game, None, now),
                  removed=len([r for r in records if r.id >= target.id]))
    return broadcast(session, game, judge, subject=f"{game.name}: rolled back to {game.phase}", body=body,
                     kind="rollback")


def survivors_of(game: Game) -> frozenset[str]:
    """Powers still in the game (a centre or a unit)."""
    return survivors(position_of(game))
