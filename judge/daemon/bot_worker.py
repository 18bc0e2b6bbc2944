"""The judge's own bot, thinking beside the judge: bot processes work off the stored jobs.

The turn path never thinks for the bot: when a phase needs moves the bot has not made, it
stores one job per power and position (judge/phases/bot_moves.py) and leaves the phase for
later.  A bot process (``judge serve`` starts ``[bots] processes`` of them, each at
``[bots] nice``; ``judge tick`` thinks in-process) then, per job:

1. claims it in a short transaction of its own (``claim_job``: a lease naming this process
   as a ``LeaseOwner``, given back by any judge when the process is gone);
2. thinks, outside any transaction (bot/stand_in.py, deterministic);
3. stores the lines once (``finish_job``: a guarded update; a seat's lines become the
   power's stored orders as a mail's do) and makes the game due, in one transaction;
4. when that was the last unfinished job of the position, has the scheduler's pass run for
   the game, as the mail worker does after a mail that made a phase ready: a bot process
   tells ``judge serve`` ("ready <game id>"), which runs it at its own priority; the phase
   is processed there, in a transaction of its own, once (the pass claims the game).

A crash anywhere leaves the job waiting or claimed by a dead owner, so it is done again
after a restart; doing it twice stores nothing twice.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Callable, TypeVar

from adjudicator.api import position_digest
from judge.press import machine_press
from judge.daemon.hooks import after_commit_hook
from judge.negotiation.negotiator import Outgoing, Talk
from judge.mailio.outgoing import queue_all
from judge.phases.bot_moves import (Claim, Job, claim_job, finish_job, finish_press_job, job_waiting, store_power_orders,
                                    unfinished)
from judge.phases.bot_seats import is_bot_seat
from judge.store.models_game import Game
from judge.store.queries import player_of, position_of
from judge.store.conflicts import is_conflict
from judge.store.leases import HEARTBEAT_SECONDS, Owner, free_jobs_of_gone, heartbeat, register, unregister
from judge.daemon.worker import jittered_backoff

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from judge.config import Settings
    from judge.store.engine import Store

log = logging.getLogger("judge.bots")

_T = TypeVar("_T")
#: A bot process's line to ``judge serve``: "ready <game id>", the game's moves are all in.
READY = "ready"
#: A transaction that meets a concurrency conflict (a pass or a mail on the same game) is
#: run again this many times before the job is left for the next loop.
CONFLICT_ATTEMPTS = 5


@dataclass(frozen=True)
class Thought:
    """What the bot decided for a job: its orders (None: none to store, a press job whose
    answers change no agreement) and its press (recipients, message)."""

    lines: tuple[str, ...] | None
    press: tuple[Outgoing, ...] = ()


def think(job: Job, iterations: int, talk: Talk | None = None) -> Thought:
    """A moves job: the stand-in's canonical lines for the power in the position, within
    what its seat agreed, and (a movement phase's opening) its proposals.  A press job: the
    answers to the press, and the phase's orders again when an answer changed what it agreed.
    ``talk``: the seat's conversation (None: the bot has no voice; a press job then says
    nothing)."""
    from adjudicator import api
    from adjudicator.jsonio import position_from_json
    from bot.player import Budget
    from bot.stand_in import stand_in_lines
    from daide.messages import from_text
    from daide.tokens import TokenTable
    from judge.negotiation.negotiator import rebuilt
    from judge.store.queries import variant_named

    variant = variant_named(job.map_name)
    position = position_from_json(variant, dict(job.position))
    budget = Budget(iterations=iterations, seconds=None)
    if talk is None:
        if job.press_id is not None:
            return Thought(None)
        return Thought(tuple(stand_in_lines(variant, position, job.power, job.seed, budget)))
    negotiator = rebuilt(job.power, TokenTable.for_variant(variant), talk)
    board = api.prepare(variant, position)
    movement = position.phase.kind.name == "MOVEMENT"
    if job.press_id is None:
        press = negotiator.proposals(board) if movement else []
        return Thought(tuple(stand_in_lines(variant, position, job.power, job.seed, budget,
                                            negotiator.agreements())), tuple(press))
    before = negotiator.agreements()
    answers: list[Outgoing] = []
    for said in talk.heard:
        try:
            message = from_text(said.text)
        except ValueError:
            continue
        answers.extend(negotiator.heard(said.sender, said.recipients, message, board))
    after = negotiator.agreements()
    lines = stand_in_lines(variant, position, job.power, job.seed, budget, after) \
        if movement and after != before else None
    return Thought(None if lines is None else tuple(lines), tuple(answers))


class BotWorker:
    """Claims, thinks, stores, and has the phase processed; one job at a time."""

    def __init__(self, store: "Store", settings: "Settings", *, clock: Callable[[], datetime],
                 on_processed: Callable[[], None] | None = None,
                 process_ready: Callable[[frozenset[int], datetime], None] | None = None) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.on_processed = on_processed or (lambda: None)
        self.process_ready = process_ready if process_ready is not None else after_commit_hook(settings, store)
        self.owner = Owner.this_process()
        self._registered = False

    def start(self) -> None:
        """Register as a lease owner and give back the jobs of bot processes that are gone
        (the ones a crashed run left claimed are waiting again at once)."""
        register(self.store, self.owner)
        self._registered = True
        free_jobs_of_gone(self.store)

    def stop(self) -> None:
        """Give back what this process holds (a job in hand is then waiting again)."""
        if self._registered:
            unregister(self.store, self.owner)
            self._registered = False

    def keep_alive(self, stop: threading.Event) -> None:
        """The heartbeat of this owner (a long think must not look like a death)."""
        while not stop.wait(HEARTBEAT_SECONDS):
            try:
                heartbeat(self.store, self.owner)
            except Exception:
                log.exception("bot process: cannot reach the database for the heartbeat; trying again")

    def _transaction(self, work: Callable[[], _T]) -> _T:
        for attempt in range(1, CONFLICT_ATTEMPTS + 1):
            try:
                return work()
            except Exception as error:
                if not is_conflict(error) or attempt == CONFLICT_ATTEMPTS:
                    raise
                time.sleep(jittered_backoff(attempt))
        raise AssertionError("unreachable")

    def _claim(self) -> Claim:
        with self.store.reading() as connection:
            if not job_waiting(connection):
                return Claim(None)  # no write turn taken for nothing (a wake-up per processed mail)

        def attempt() -> Claim:
            now = self.clock()
            with self.store.unit_of_work(now=now) as session:
                return claim_job(session, self.owner.id, now, self.settings.bots.max_attempts)

        return self._transaction(attempt)

    def _talk(self, job: Job) -> Talk | None:
        """The conversation of the job's seat (None: no voice, or not a seat of the bot)."""
        with self.store.sessions() as session:
            game = session.get(Game, job.game_id)
            member = player_of(session, game, job.power) if game is not None else None
            if game is None or member is None or not is_bot_seat(member):
                return None
            return machine_press.talk_of(session, game, job.power, job.press_id)

    def _finish(self, job: Job, thought: Thought) -> tuple[int | None, bool]:
        """(the game made due, whether its position has no unfinished job left); the
        opening's press is said by the transaction that stores the moves, once."""
        def attempt() -> tuple[int | None, bool]:
            now = self.clock()
            with self.store.unit_of_work(now=now) as session:
                game_id = finish_job(session, job.id, list(thought.lines or ()), now)
                if game_id is not None and thought.press:
                    self._say(session, game_id, job.power, thought.press, now)
                left = unfinished(session, job.game_id, job.digest)
            return game_id, left == 0

        return self._transaction(attempt)

    def _answer(self, job: Job, thought: Thought) -> None:
        """A press job done once: its answers said, and the phase's orders replaced when the
        agreements changed (only in the position the bot thought about)."""
        def attempt() -> None:
            now = self.clock()
            with self.store.unit_of_work(now=now) as session:
                game = finish_press_job(session, job.id, _texts(thought.press), now)
                if game is None:
                    return
                self._say(session, game.id, job.power, thought.press, now)
                if thought.lines is not None and game.position is not None and \
                        position_digest(position_of(game)) == _job_digest(job):
                    store_power_orders(session, game, job.power, thought.lines, now)

        self._transaction(attempt)

    def _say(self, session: "Session", game_id: int, power: str, press: tuple[Outgoing, ...], now: datetime) -> None:
        """The bot's press recorded and delivered under the game's press rules."""
        game = session.get(Game, game_id)
        if game is not None:
            mails = machine_press.bot_said(session, game, self.settings.judge, now, power, press)
            queue_all(session, mails, self.settings.judge, now)

    def work_one(self) -> bool:
        """Do one waiting job (or settle one given up or stale); False when none waits."""
        claim = self._claim()
        if claim.job is None:
            if claim.settled is not None:
                self._process(claim.settled)
                return True
            return False
        job = claim.job
        started = time.perf_counter()
        thought = think(job, self.settings.bots.iterations, self._talk(job))
        if job.press_id is not None:
            self._answer(job, thought)
            log.info("bot job %d (game #%d, %s): %d answer(s) to press #%d in %.2f s", job.id, job.game_id,
                     job.power, len(thought.press), job.press_id, time.perf_counter() - started)
            return True
        game_id, last = self._finish(job, thought)
        log.info("bot job %d (game #%d, %s): %d order(s), %d proposal(s) in %.2f s", job.id, job.game_id, job.power,
                 len(thought.lines or ()), len(thought.press), time.perf_counter() - started)
        if game_id is not None and last:
            self._process(game_id)
        return True

    def _process(self, game_id: int) -> None:
        """The scheduler's pass for the game now (its phase waits for nothing more)."""
        if self.process_ready is None:
            return  # another scheduler hook decides alone when phases are processed
        try:
            self.process_ready(frozenset({game_id}), self.clock())
        except Exception:
            log.exception("game #%d: the pass after the bot's moves failed; the game stays due", game_id)
        self.on_processed()

    def work_all(self) -> int:
        """Every waiting job, one after another (`judge tick`, tests); how many were done."""
        done = 0
        while self.work_one():
            done += 1
        return done

    def run(self, stop: threading.Event, wake: threading.Event) -> None:
        """Loop until ``stop``: jobs while there are some, else wait for ``wake`` or the poll."""
        poll = self.settings.bots.poll_seconds
        while not stop.is_set():
            try:
                busy = self.work_one()
            except Exception:
                log.exception("bot process: a job failed; it is tried again after the lease is given back")
                busy = False
                self._give_back()
                stop.wait(poll)
            if not busy:
                wake.wait(poll)
                wake.clear()

    def _give_back(self) -> None:
        """After an error, this process's claims wait again (a fresh owner takes over)."""
        try:
            self.stop()
            self.owner = Owner.this_process()
            self.start()
        except Exception:
            log.exception("bot process: cannot give its jobs back; they wait for its lease to lapse")


def _texts(press: tuple[Outgoing, ...]) -> list[str]:
    from daide.messages import to_text

    return [to_text(message) for _, message in press]


def _job_digest(job: Job) -> str:
    from adjudicator.jsonio import position_from_json
    from judge.store.queries import variant_named

    return position_digest(position_from_json(variant_named(job.map_name), dict(job.position)))


def run_waiting_jobs(store: "Store", settings: "Settings", clock: Callable[[], datetime]) -> int:
    """Think every waiting job here and now, each phase processed once its moves are in
    (`judge tick`: a cron judge has no bot process)."""
    worker = BotWorker(store, settings, clock=clock)
    worker.start()
    try:
        return worker.work_all()
    finally:
        worker.stop()


def lower_priority(niceness: int) -> None:
    """Run this process at ``niceness`` at least (an unprivileged process cannot go back)."""
    try:
        current = os.nice(0)
        if niceness > current:
            os.nice(niceness - current)
    except OSError as error:
        log.warning("bot process: cannot lower its priority (%s); it runs at the judge's", error)


def run_bot_child(settings: "Settings", clock: Callable[[], datetime]) -> int:
    """A bot process of ``judge serve``: at ``[bots] nice``, jobs until end of file on stdin
    or SIGTERM/SIGINT; one byte to the parent after each phase it had processed."""
    from judge.store.engine import Store
    from judge.daemon.worker_process import child_signals, writer_lock_path

    signals = child_signals()
    lower_priority(settings.bots.nice)
    store = Store(settings.store_url, writer_lock=writer_lock_path(settings))

    def ready(game_ids: frozenset[int], _now: datetime) -> None:
        # The pass runs in judge serve at its own priority: a niced process holding the
        # write turn through a phase's processing would hold mail up behind it.
        for game_id in sorted(game_ids):
            signals.tell(f"{READY} {game_id}".encode("ascii"))

    worker = BotWorker(store, settings, clock=clock, process_ready=ready)
    alive = threading.Thread(target=worker.keep_alive, args=(signals.stop,), name="bot-heartbeat", daemon=True)
    try:
        worker.start()
        alive.start()
        log.info("bot process %d running at niceness %d", os.getpid(), os.nice(0))
        worker.run(signals.stop, signals.wake)
    finally:
        try:
            worker.stop()
        finally:
            store.dispose()
    log.info("bot process %d stopped", os.getpid())
    return 0


def ready_game(line: bytes) -> int | None:
    """The game id of a bot process's "ready" line (None for anything else)."""
    word, _, number = line.decode("ascii", "replace").partition(" ")
    return int(number) if word == READY and number.isdigit() else None


def bot_thread(store: "Store", settings: "Settings", clock: Callable[[], datetime], stop: threading.Event,
               wake: threading.Event, on_processed: Callable[[], None]) -> None:
    """The bot as a thread of ``judge serve``, for a store no other process can open (an
    in-memory SQLite database): outside the worker and its transactions, but on its GIL."""
    worker = BotWorker(store, settings, clock=clock, on_processed=on_processed)
    worker.start()
    try:
        worker.run(stop, wake)
    finally:
        worker.stop()
