"""One game's ``GameHost`` over the store: every DAIDE command that changes something is
a transaction.  A player's commands -- SUB, GOF / NOT (GOF), DRW / NOT (DRW) -- become the
command values a mail makes (order lines, SET NOWAIT / SET WAIT, SET DRAW / SET NO DRAW)
and run through the mail's dispatcher (judge.commands.dispatch.run_at_seat): the same
checks, effects and records; seats are judge.edge.daide.machines'.  What the scheduler or a mail
changes reaches the bots through ``refresh``, which the edge calls every ``[daide]
poll_seconds`` and after each change of its own."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime, timezone
from typing import Callable, Sequence, TypeVar

from sqlalchemy.orm import Session

from adjudicator.api import prepare, requirements
from adjudicator.orders import Order
from adjudicator.results import Adjudication
from adjudicator.tables import tables_for
from adjudicator.types import Phase, Position
from daide.host import Ending, Listener, PlayedPhase, Seat
from daide.render import PlayerSummary, Timing
from daide.tokens import TokenTable
from judge.config import Settings
from judge.mailio.outgoing import queue_all
from judge.edge.daide import machines
from judge.edge.daide.offload import ListenerOnLoop
from judge.phases import played as played_phases
from judge.press import machine_press
from judge.commands.dispatch import run_at_seat
from judge.commands.draw import SetDraw, SetNoDraw
from judge.commands.fair_players import PassContext
from judge.commands.settings import SetWait
from mailcmds import Command, OrderLines, SourceLine
from judge.phases.bot_seats import BOT_DAIDE_NAME, is_bot_seat
from judge.phases.order_sets import order_key
from judge.phases.turnstate import late_powers, ready_to_process, stored_order_set
from judge.store.queries import players, position_of, timing_of, variant_of
from judge.store.times import as_utc
from judge.store.conflicts import is_conflict
from judge.store.engine import Store
from judge.lifecycle import ENDED, in_play
from judge.store.models_game import Game, Membership

log = logging.getLogger("judge.edge.daide")
T = TypeVar("T")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _membership_id(seat: Seat) -> int:
    """The key this host gives every seat it makes: the seat's membership id."""
    if not isinstance(seat.key, int):
        raise TypeError(f"a seat this host did not make: {seat!r}")
    return seat.key


class StoreHost:
    def __init__(self, store: Store, settings: Settings, game_id: int, run_pass: Callable[[], None],
                 clock: Callable[[], datetime] = _now, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """``loop``: the listeners' loop when this host is called from other threads
        (judge.edge.daide.offload); their calls then run there."""
        self.store, self.settings, self.game_id = store, settings, game_id
        self._loop = loop
        self._run_pass = run_pass
        self._clock = clock
        self._listeners: list[Listener] = []
        self._connected: dict[object, bool] = {}
        self._disorder: frozenset[str] = frozenset()
        self._ending: Ending | None = None
        self._due = False
        with store.sessions() as session:
            game = self._game(session)
            self.variant = variant_of(game)
            self.name = game.name
            self._seen_record = played_phases.last_record_id(session, game)
            self._seen_press = machine_press.last_press_id(session, game)
            self._load(game)
        self.table = TokenTable.for_variant(self.variant)
        self.tables = tables_for(self.variant)

    # -- the store
    def _game(self, session: Session) -> Game:
        game = session.get(Game, self.game_id)
        assert game is not None, f"game #{self.game_id} is gone"
        return game

    def _load(self, game: Game) -> None:
        self._level = machine_press.press_level(game)
        self._partial_draws = machine_press.partial_draws(game)
        self._status = game.status
        self._phase = game.phase
        self._position = position_of(game) if game.position is not None else None
        self._deadline = as_utc(game.deadline) if game.deadline is not None else None
        spans = timing_of(game)
        self._timing = Timing(*(int(span.approximate().total_seconds())
                                for span in (spans.movement, spans.retreat, spans.adjustment)))

    def _write(self, work: Callable[[Session, PassContext], T]) -> T:
        """``work`` in one transaction with the mail it queues; run again on a conflict."""
        for attempt in range(5):
            try:
                now = self._clock()
                with self.store.unit_of_work(now=now) as session:  # now: touched games are rescheduled
                    ctx = PassContext(session, now, self.settings.judge)
                    result = work(session, ctx)
                    queue_all(session, ctx.outgoing, self.settings.judge, ctx.now)
                return result
            except Exception as error:
                if attempt == 4 or not is_conflict(error):
                    raise
                time.sleep(0.01 * (attempt + 1))
        raise AssertionError("unreachable")

    def _member(self, session: Session, game: Game, power: str) -> Membership | None:
        return next((m for m in players(session, game) if m.power == power), None)

    def _as_player(self, session: Session, ctx: PassContext, power: str, command: Command) -> str | None:
        """``command`` given by ``power``'s seat, run as a mail's commands are; why it was
        refused, or None."""
        game = self._game(session)
        member = self._member(session, game, power)
        if member is None:
            return f"{power} has no seat in this game"
        refusal, mails = run_at_seat(session, ctx.judge, ctx.now, game, member, command)
        ctx.send(mails)
        return refusal

    def _stored(self, session: Session, power: str) -> list[str]:
        row = stored_order_set(session, self._game(session), power)
        return list(row.orders or []) if row is not None else []

    # -- what the server asks
    def listen(self, listener: Listener) -> None:
        self._listeners.append(ListenerOnLoop(listener, self._loop) if self._loop is not None else listener)

    def started(self) -> bool:
        return in_play(self._status) or self._ending is not None

    def ended(self) -> Ending | None:
        return self._ending

    def position(self) -> Position:
        assert self._position is not None
        return self._position

    def timing(self) -> Timing:
        return self._timing

    def seconds_left(self) -> int | None:
        if self._deadline is None:
            return None
        return max(0, int((self._deadline - self._clock()).total_seconds()))

    def join(self, name: str, version: str) -> Seat | None:
        seated = self._write(lambda session, ctx: machines.take_seat(ctx, self.game_id, name, version))
        if seated is None:
            return None
        seat = Seat(None, seated.passcode, seated.membership_id)
        self._connected[seat.key] = True
        self.refresh()
        return seat

    def rejoin(self, power: str, passcode: int, address: str = "") -> Seat | None:
        with self.store.sessions() as session:  # a wrong passcode costs no write
            member = machines.seat_by_passcode(session, self.game_id, power, passcode)
        if member is not None:
            member = self._write(lambda session, ctx: machines.seat_taken_back(ctx, self.game_id, power, passcode,
                                                                              address))
        if member is None:
            return None
        seat = Seat(power, passcode, member)
        self._connected[member] = True
        self._tell_disorder()
        return seat

    def power_of(self, seat: Seat) -> str | None:
        with self.store.sessions() as session:
            found = machines.seat_of(session, self.game_id, _membership_id(seat))
        return found[0] if found else None

    def map_accepted(self, seat: Seat) -> None:
        pass  # a seat counts from NME; the map is the judge's to choose

    def disconnected(self, seat: Seat) -> None:
        self._connected[seat.key] = False
        if not in_play(self._status):
            self._write(lambda session, ctx: machines.release_seat(session, self.game_id, _membership_id(seat)))
            return
        self._tell_disorder()

    def submit(self, power: str, orders: Sequence[tuple[str, Order]]) -> None:
        lines = tuple(SourceLine(number, order.canonical()) for number, (_, order) in enumerate(orders, start=1))

        def store(session: Session, ctx: PassContext) -> bool:
            game = self._game(session)
            if game.phase != self._phase or not in_play(game.status) or not lines:
                return False
            refusal = self._as_player(session, ctx, power, OrderLines(lines, source=lines[0]))
            if refusal is not None:
                log.warning("game %s: %s's orders, accepted by the DAIDE server, refused: %s", self.name, power, refusal)
            # A program does not change its mind: when its orders complete the phase no settle
            # window is kept, and the phase is processed at once (``settle``).
            game.delay = 0
            return ready_to_process(session, game, ctx.now)
        self._due = self._write(store)

    def settle(self) -> None:
        """A scheduler pass at once when the last change made the phase ready."""
        if self._due:
            self._due = False
            self._run_pass()
            self.refresh()

    def ordered_units(self, power: str) -> set[str]:
        with self.store.sessions() as session:
            stored = self._stored(session, power)
        return {key for key in map(order_key, stored) if key is not None}

    def adjustment_left(self, power: str) -> int:
        need = requirements(prepare(self.variant, self.position())).get(power)
        if need is None:
            return 0
        with self.store.sessions() as session:
            given = self._stored(session, power)
        if need.removals:
            return need.removals - len(given)
        return -(need.builds - len(given))

    def set_ready(self, power: str, ready: bool) -> None:
        """GOF is SET NOWAIT, NOT (GOF) SET WAIT."""
        def wait(session: Session, ctx: PassContext) -> bool:
            self._as_player(session, ctx, power, SetWait(not ready, source=SourceLine(0, "GOF" if ready else "NOT (GOF)")))
            return ready_to_process(session, self._game(session), ctx.now)
        self._due = self._write(wait)
        self.settle()

    @staticmethod
    def _draw_vote(vote: bool, powers: frozenset[str] | None) -> Command:
        """DRW is SET DRAW, DRW (powers) SET DRAW powers, NOT (DRW) SET NO DRAW."""
        if not vote:
            return SetNoDraw(source=SourceLine(0, "NOT (DRW)"))
        listed = tuple(sorted(powers)) if powers is not None else None
        return SetDraw(listed, source=SourceLine(0, " ".join(("DRW", *(listed or ())))))

    def draw_refusal(self, power: str, powers: frozenset[str] | None) -> str | None:
        """Why the vote would be refused: it is tried as SET DRAW would be, and undone."""
        with self.store.sessions() as session:  # never committed
            refusal = self._as_player(session, PassContext(session, self._clock(), self.settings.judge), power,
                                      self._draw_vote(True, powers))
            session.rollback()
        return refusal

    def set_draw(self, power: str, vote: bool, powers: frozenset[str] | None = None) -> None:
        self._write(lambda session, ctx: self._as_player(session, ctx, power, self._draw_vote(vote, powers)))
        self.refresh()

    def history(self, phase: Phase) -> PlayedPhase | None:
        with self.store.sessions() as session:
            played = played_phases.record_of(session, self._game(session), str(phase))
        return _played(played) if played is not None else None

    # -- press
    def press_level(self) -> int:
        return self._level

    def allows_partial_draws(self) -> bool:
        return self._partial_draws

    def eliminated(self, power: str) -> bool:
        return machine_press.eliminated(self.position(), power)

    def press_refusal(self, sender: str, recipients: frozenset[str]) -> str | None:
        with self.store.sessions() as session:
            return machine_press.refusal(session, self._game(session), sender, recipients, self._clock())

    def unreachable(self, recipients: frozenset[str]) -> tuple[str, str] | None:
        connected = {key: up for key, up in self._connected.items() if isinstance(key, int)}
        with self.store.sessions() as session:
            return machine_press.unreachable(session, self._game(session), recipients, connected)

    def press_sent(self, sender: str, recipients: tuple[str, ...], press: tuple, reached: frozenset[str]) -> None:
        def keep(session: Session, ctx: PassContext) -> None:  # a machine's own row is never relayed again
            ctx.outgoing.extend(machine_press.record(session, self._game(session), self.settings.judge, ctx.now,
                                                     sender, recipients, press))
        self._write(keep)

    def _relay_press(self, session: Session, game: Game) -> None:
        """Press players wrote to machines since the last look, to the server (FRM)."""
        for row_id, sender, recipients, press in machine_press.for_machines(session, game, self._seen_press):
            self._seen_press = max(self._seen_press, row_id)
            for listener in self._listeners:
                listener.press_arrived(sender, recipients, press)

    # -- what changed in the store
    def refresh(self) -> None:
        """Tell the listeners what happened since the last look: the game started, phases
        were processed (by anyone), the game ended, a late bot is away."""
        if self._ending is not None:
            return
        with self.store.sessions() as session:
            game = self._game(session)
            was_started = self.started()
            self._load(game)
            played = played_phases.phases_since(session, game, self._seen_record)
            # a game ended before it started (TERMINATE while forming) has no position to
            # sum up: no SMR, the edge closes its listener (it never started)
            ending = self._ending_of(session, game) if game.status == ENDED and game.position is not None else None
            if self.started() and ending is None:
                self._relay_press(session, game)
        if not was_started and self.started():
            for listener in self._listeners:
                listener.game_started()
        for record_id, phase in played:
            self._seen_record = record_id
            if ending is None or record_id != played[-1][0]:
                for listener in self._listeners:
                    listener.phase_processed(_played(phase), phase.after)
        if ending is not None:
            self._ending = ending
            for listener in self._listeners:
                if played:
                    listener.phase_processed(_played(played[-1][1]), played[-1][1].after)
                listener.game_ended(ending)
            return
        self._tell_disorder()

    def _tell_disorder(self) -> None:
        if not self.started() or self._ending is not None:
            return
        if not self._disorder and all(self._connected.values()):
            return  # nobody away: nothing to look up
        with self.store.sessions() as session:
            game = self._game(session)
            away = {m.power for m in players(session, game)
                    if m.power and self._connected.get(m.id) is False}
            # a bot away and late is in civil disorder until it comes back (NOT (CCD) then)
            late = late_powers(session, game, self._clock()) if away else frozenset()
            disorder = frozenset((self._disorder | (away & late)) & away)
        if disorder != self._disorder:
            self._disorder = disorder
            for listener in self._listeners:
                listener.seats_changed(disorder)

    def _ending_of(self, session: Session, game: Game) -> Ending:
        outcome = game.outcome or {}
        kind = {"solo": "solo", "draw": "draw"}.get(str(outcome.get("result")), "over")
        winners = list(outcome.get("powers", ()))
        names = machines.machine_names(session, game)
        humans = {m.power: ((BOT_DAIDE_NAME, "judge") if is_bot_seat(m)
                            else ((m.name or "player").replace("'", ""), "email"))
                  for m in players(session, game) if m.power}
        position = position_of(game)
        last = Phase.parse(str(outcome.get("phase") or game.phase))
        summary = [PlayerSummary(p.name, *(names.get(p.name) or humans.get(p.name) or ("", "")),
                                 len(position.centers.get(p.name, ())),
                                 None if position.centers.get(p.name) else last.year)
                   for p in self.variant.powers]
        return Ending(kind, last, tuple(summary), winners[0] if kind == "solo" and winners else None,
                      tuple(winners) if kind == "draw" else ())


def _played(played: played_phases.Played) -> PlayedPhase:
    return PlayedPhase(played.before, Adjudication(played.results, played.after, played.after.dislodged))
