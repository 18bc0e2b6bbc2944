"""``judge serve``: the SMTP listener, the optional IMAP poller, the worker, the outbox
sender, the scheduler tick and the DAIDE listeners of machine games (judge/edge/daide), each on its own thread over one shared ``Store``; or the
worker in processes of its own (``[worker] processes``, judge.daemon.worker_process); the judge's
bot in processes of its own at a lower priority (``[bots] processes``, judge.daemon.bot_worker).

Stopping (SIGTERM, SIGINT) closes the listener first so no new mail is accepted, lets
the worker finish the message in hand, then joins everything.
"""

from __future__ import annotations

import gc
import logging
import signal
import threading
from datetime import datetime, timedelta
from typing import Protocol, Sequence

from judge.commands.daide_ports import configure_ports
from judge.config import Settings, make_data_dir
from judge.daemon.bot_worker import bot_thread, ready_game
from judge.edge.daide import DaideEdge
from judge.web.keeper import ArchiveKeeper
from judge.edge.imap_in import ImapPoller
from judge.edge.pass_timing import DueOutlook, PassPlanner, due_outlook
from judge.edge.smtp_in import IntakeHandler, check_port_free, make_controller
from judge.edge.smtp_out import OutboxSender, transport_for
from judge.edge.unsubscribe_in import UnsubscribeListener
from judge.daemon.processed import PhasePasses, Processed
from judge.phases.bot_moves import StoredJobsWatch
from judge.mailauth.bounces import configure_bounces
from judge.mailauth.intake import Vetting
from judge.mailauth.verifier_pool import PooledSigner, VerifierPool
from judge.mailauth.verify import configure_resolver
from judge.daemon.hooks import after_commit_hook, default_process_hook, resolve_hook
from judge.store.leases import HEARTBEAT_SECONDS
from judge.store.engine import Store
from judge.store.schema import check_schema, is_empty, upgrade
from judge.daemon.worker import Worker
from judge.mailio.inbound import Clock, ProcessHook, utc_now
from judge.daemon.worker_process import WorkerProcesses, sqlite_file_or_server, worker_process_count, writer_lock_path

log = logging.getLogger("judge.daemon.serve")


class SchedulerTick(Protocol):
    """One scheduler pass: find due games by query, each in its own transaction, and queue
    mail with ``judge.mailio.outgoing.queue_outgoing``."""

    def __call__(self, store: Store, settings: Settings, now: datetime) -> None: ...


def default_tick_hook(settings: Settings) -> SchedulerTick | None:
    hook = resolve_hook(settings.scheduler.handler)
    if hook is None:
        log.info("scheduler hook %s is not installed: no scheduler passes", settings.scheduler.handler)
    return hook


class Daemon:
    """All parts of a running judge.  ``start()`` returns once the SMTP port listens.

    ``worker_command``: the command line of a worker process (``judge serve`` builds it);
    without it, or with ``[worker] processes = 0``, the worker is a thread here.
    """

    def __init__(self, settings: Settings, store: Store, *, process: ProcessHook | None = None,
                 tick: SchedulerTick | None = None, clock: Clock = utc_now,
                 worker_command: Sequence[str] | None = None, bot_command: Sequence[str] | None = None) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self.stop_event = threading.Event()
        self.inbox_wake = threading.Event()
        self.outbox_wake = threading.Event()
        self.scheduler_wake = threading.Event()  # a processed mail may bring a due time nearer
        configure_ports(settings.daide)  # RULE MACHINES gives a game its DAIDE port in the mail's transaction
        self.bot_wake = threading.Event()
        # The scheduler's planned pass comes no later than a game touched by mail would bring
        # it (set by the scheduler thread): a processed mail, which only touches games, then
        # need not wake it (reading the due-time index after every mail cost ~1.5 ms a mail).
        self._touch_covered = False
        self._bot_jobs = StoredJobsWatch()  # the worker thread's (_worker_processed)
        self._phases = PhasePasses(after_commit_hook(settings, store))  # the worker thread's
        self.worker = Worker(
            store, settings.judge, process or default_process_hook(settings), clock=clock,
            pause_before_commit=settings.worker.pause_before_commit_seconds,
            on_processed=self._worker_processed, max_attempts=settings.worker.max_attempts,
            after_commit=self._phases.hook,
        )
        self.tick = tick
        self.sender = OutboxSender(
            store, transport_for(settings.outbound, settings.outbox_path),
            retry_base_seconds=settings.outbound.retry_base_seconds,
            max_attempts=settings.outbound.max_attempts, clock=clock,
        )
        count = worker_process_count(settings) if worker_command is not None else 0
        self.worker_processes = (
            WorkerProcesses(worker_command, count, on_processed=self._mail_processed,
                            stop_seconds=settings.worker.stop_seconds)
            if worker_command is not None and count > 0 else None
        )
        configure_bounces(settings.mail)  # how many bounces make an address unreachable
        if settings.mail.verify:
            configure_resolver(settings.mail.dns_server, settings.mail.dns_timeout_seconds)
        self.verifiers = (VerifierPool(settings.mail.verify_processes, settings.mail.dns_timeout_seconds)
                          if (settings.mail.verify or settings.dkim.sign) and settings.mail.verify_processes > 0
                          else None)
        vetting = (Vetting(settings.mail, settings.judge, self.verifiers.verify)
                   if self.verifiers is not None and settings.mail.verify else Vetting(settings.mail, settings.judge))
        self.handler = IntakeHandler(store, on_stored=self._mail_stored, clock=clock, vetting=vetting)
        # The judge's bot thinks in processes of its own (judge.daemon.bot_worker); a store no other
        # process can open gets it as a thread.
        bots = settings.bots.processes
        self.bot_processes = (
            WorkerProcesses(bot_command, bots, on_processed=lambda _processed: self.outbox_wake.set(), kind="bot",
                            on_line=self._bot_line)
            if bot_command is not None and bots > 0 and sqlite_file_or_server(settings) else None
        )
        self._process_ready = after_commit_hook(settings, store)
        self._ready_games: set[int] = set()
        self._ready_lock = threading.Lock()
        self._ready_wake = threading.Event()
        self._bot_thread = (
            threading.Thread(target=bot_thread, name="bot", daemon=True,
                             args=(store, settings, clock, self.stop_event, self.bot_wake, self.outbox_wake.set))
            if bots > 0 and self.bot_processes is None else None
        )
        self.controller = make_controller(self.handler, settings.smtp, settings.judge.domain)
        self.poller = (
            ImapPoller(settings.imap, store, on_stored=self._mail_stored, clock=clock,
                       max_bytes=settings.smtp.max_message_bytes, vetting=vetting)
            if settings.imap.host else None
        )
        self.daide = DaideEdge(store, settings, self._scheduler_pass, clock=clock) if settings.daide.host else None
        self.unsubscribe = (UnsubscribeListener(store, settings.unsubscribe, settings.judge, on_stored=self._mail_stored,
                                                clock=clock) if settings.unsubscribe.base_url else None)
        web_root = settings.web_root
        self.web = ArchiveKeeper(store, settings, web_root) if web_root is not None else None
        self._worker_thread: threading.Thread | None = None
        self._threads: list[threading.Thread] = []

    def _scheduler_pass(self, store: Store, settings: Settings, now: datetime) -> None:
        """A pass now, for the DAIDE edge (a bot's orders made a phase ready)."""
        tick = self.tick or default_tick_hook(settings)
        if tick is not None:
            tick(store, settings, now)
            self.outbox_wake.set()

    def _bot_line(self, line: bytes) -> None:
        """A bot process made the last moves a game waited for: its pass runs here."""
        game_id = ready_game(line)
        if game_id is not None:
            with self._ready_lock:
                self._ready_games.add(game_id)
            self._ready_wake.set()

    def _run_ready_games(self) -> None:
        """The scheduler's pass for the games whose bot moves are in (at this process's
        priority, not the niced bot process's: it holds the write turn while it processes)."""
        while not self.stop_event.is_set():
            self._ready_wake.wait()
            self._ready_wake.clear()
            with self._ready_lock:
                games, self._ready_games = frozenset(self._ready_games), set()
            if not games or self._process_ready is None:
                continue
            try:
                self._process_ready(games, self.clock())
            except Exception:
                log.exception("the pass for games whose bot moves are in failed; they stay due")
            self.outbox_wake.set()

    def _mail_processed(self, processed: Processed) -> None:
        """Mail was processed, by the worker thread or a worker process: its replies go out;
        the scheduler plans again when a phase pass ran after it (it stored exact due times,
        which may be nearer than the planned pass) or when the planned pass would not come
        soon enough for a game the mail touched; the bots are woken only when a job was
        stored for them (else they find their jobs at their next poll)."""
        self.outbox_wake.set()
        if processed.phases_processed or not self._touch_covered:
            self.scheduler_wake.set()
        if processed.bot_jobs_stored:
            self._wake_bots()

    def _worker_processed(self) -> None:
        self._mail_processed(Processed(self._phases.ran(), self._bot_jobs.moved()))

    def _wake_bots(self) -> None:
        if self.bot_processes is not None:
            self.bot_processes.wake()
        self.bot_wake.set()

    def _mail_stored(self) -> None:
        if self.worker_processes is not None:
            self.worker_processes.wake()
        else:
            self.inbox_wake.set()

    def _run_worker(self) -> None:
        self.worker.run(self.stop_event, self.inbox_wake, self.settings.worker.poll_seconds)

    def _run_lease_keeper(self) -> None:
        """Heartbeat of this sender's leases; release those of judge processes that are gone."""
        while not self.stop_event.wait(HEARTBEAT_SECONDS):
            try:
                if self.sender.maintain():
                    self.outbox_wake.set()
            except Exception:
                log.exception("lease keeper: cannot reach the database; trying again")

    def _run_scheduler(self) -> None:
        """A pass at the next thing due (judge/edge/pass_timing.py), at the latest a tick
        after the last; a processed mail wakes the planner to look again."""
        assert self.tick is not None
        planner = PassPlanner(self.settings.scheduler.tick_seconds, self.settings.scheduler.touched_seconds)
        touched = timedelta(seconds=self.settings.scheduler.touched_seconds)
        last_pass: datetime | None = None  # games touched before the start get a pass at once
        while not self.stop_event.is_set():
            # Uncovered while the index is read: a mail processed meanwhile wakes the planner
            # again (one committed before it is in what the read sees).
            self._touch_covered = False
            now = self.clock()
            at = planner.next_pass_at(now, last_pass, self._due_outlook(now))
            self._touch_covered = last_pass is not None and at <= last_pass + touched
            delay = (at - now).total_seconds()
            if delay > 0 and self.scheduler_wake.wait(delay):
                self.scheduler_wake.clear()
                continue  # woken by mail: plan again (a wait that times out passes, whatever the clock says)
            if self.stop_event.is_set():
                return
            self._touch_covered = False  # mail processed during the pass: plan again after it
            last_pass = self.clock()
            planner.passed()
            try:
                self.tick(self.store, self.settings, last_pass)
                self.outbox_wake.set()
                self._wake_bots()
            except Exception:
                log.exception("scheduler pass failed; the next tick tries again")

    def _due_outlook(self, now: datetime) -> DueOutlook | None:
        try:
            with self.store.reading() as connection:
                return due_outlook(connection, now)
        except Exception:
            log.exception("scheduler: cannot read the due times; waiting a tick")
            return None

    def start(self) -> None:
        if self.tick is None:
            self.tick = default_tick_hook(self.settings)
        if self.worker_processes is None:
            self._worker_thread = threading.Thread(target=self._run_worker, name="worker", daemon=True)
        self._threads = [
            threading.Thread(target=self.sender.run, name="sender", daemon=True,
                             args=(self.stop_event, self.outbox_wake, self.settings.outbound.poll_seconds)),
            threading.Thread(target=self._run_lease_keeper, name="lease-keeper", daemon=True),
        ]
        if self.poller is not None:
            self._threads.append(threading.Thread(target=self.poller.run, name="imap",
                                                  daemon=True, args=(self.stop_event,)))
        if self.tick is not None:
            self._threads.append(threading.Thread(target=self._run_scheduler, name="scheduler", daemon=True))
        from judge.daemon.keyrecord import settle_judge_key  # gpg and the commands: only when serving
        from judge.mailauth.keystore import judge_signer, token_key
        from judge.mailauth.unsubscribe import UnsubscribeLinks
        from judge.mailauth.verp import ReturnPaths

        check_port_free(self.settings.smtp.host, self.settings.smtp.port)  # a busy port fails first
        settle_judge_key(self.settings, self.store)  # before listening: no mail before the key
        signer = judge_signer(self.store, self.settings.dkim, self.settings.judge)  # DKIM keys made once
        self.sender.signer = (PooledSigner(signer, self.verifiers) if signer is not None and self.verifiers is not None
                              else signer)
        key = token_key(self.store)
        self.sender.links = UnsubscribeLinks(key, self.settings.judge.address, self.settings.unsubscribe.base_url)
        self.sender.return_paths = ReturnPaths(key, self.settings.judge.address)
        self.sender.start()  # a lease owner; rows a crashed run of ours left are due again
        # What exists now (modules, mapped classes, settings) lives as long as the daemon:
        # out of the collector's full passes, which would walk it each time (some 50 ms with
        # the GIL held, docs/benchmarks.md "Mail intake, session 6").
        gc.freeze()
        self.controller.start()
        if self._worker_thread is not None:
            self._worker_thread.start()
        else:
            assert self.worker_processes is not None
            self.worker_processes.start()
        for thread in self._threads:
            thread.start()
        if self.bot_processes is not None:
            self._threads.append(threading.Thread(target=self._run_ready_games, name="bot-ready", daemon=True))
            self._threads[-1].start()
            self.bot_processes.start()
        if self._bot_thread is not None:
            self._bot_thread.start()
        if self.daide is not None:
            self.daide.start()
        if self.unsubscribe is not None:
            self.unsubscribe.start()
        if self.web is not None:
            self.web.start()
        s = self.settings
        held = "SQLite store, outbox" if self.store.engine.dialect.name == "sqlite" else "outbox"
        log.info("data folder %s (%s, the judge's key); [judge] data_dir moves it", s.judge.data_dir, held)
        log.info("judge %s listening for SMTP on %s:%d; store %s; outgoing %s", s.judge.address,
                 s.smtp.host, s.smtp.port, self.store.engine.url.render_as_string(hide_password=True),
                 f"relay {s.outbound.relay_host}:{s.outbound.relay_port}" if s.outbound.relay_host
                 else f"files in {s.outbox_path}")

    def stop(self) -> None:
        """Stop accepting mail, finish the message in hand, stop everything else."""
        log.info("stopping: no new mail accepted; finishing the message in hand")
        try:
            self.controller.stop()
        except Exception:  # already stopped or never started
            pass
        self.stop_event.set()
        self._ready_wake.set()
        self.scheduler_wake.set()
        self.inbox_wake.set()
        self.outbox_wake.set()
        if self.daide is not None:
            self.daide.stop()
        if self.unsubscribe is not None:
            self.unsubscribe.stop()
        if self.web is not None:
            self.web.stop()
        if self._worker_thread is not None and self._worker_thread.ident is not None:
            self._worker_thread.join()
        if self.verifiers is not None:
            self.verifiers.close()
        if self.worker_processes is not None:
            self.worker_processes.stop()
        if self.bot_processes is not None:
            self.bot_processes.stop()  # a job in hand is given back: waiting again after a restart
        self.bot_wake.set()
        if self._bot_thread is not None and self._bot_thread.ident is not None:
            self._bot_thread.join(timeout=30)
        for thread in self._threads:
            if thread.ident is not None:  # never started when start() failed early
                thread.join(timeout=30)
        try:
            self.sender.stop()
        except Exception:  # the database is gone: the leases expire, or others release them
            log.exception("could not give back the outbox leases")
        _stop_judge_agents(self.settings)
        log.info("stopped")

    def serve_forever(self) -> None:
        """Run until SIGTERM or SIGINT (main thread only)."""
        stop_requested = threading.Event()

        def on_signal(signum: int, _frame: object) -> None:
            log.info("received %s", signal.Signals(signum).name)
            stop_requested.set()

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.start()
            while not stop_requested.wait(0.5):
                pass
        finally:
            self.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def _stop_judge_agents(settings: Settings) -> None:
    from judge.publish.signing import stop_judge_agents

    try:
        stop_judge_agents(settings.judge)
    except Exception:  # shutting down anyway
        log.exception("could not stop the gpg-agent of the judge's key")


def open_store(settings: Settings, *, initialise_empty: bool = False) -> Store:
    """The store for ``settings``, refusing (SchemaNotCurrent) one that is not upgraded.

    With ``initialise_empty`` a database without any table gets the schema created, so
    ``judge serve`` on the defaults just works; a database with an older schema is never
    touched: upgrading is a deliberate step (``judge db upgrade``), e.g. after a backup.
    """
    make_data_dir(settings)
    store = Store(settings.store_url, writer_lock=writer_lock_path(settings))
    try:
        if initialise_empty and is_empty(store.engine):
            log.info("empty database %s: creating the schema",
                     store.engine.url.render_as_string(hide_password=True))
            upgrade(store.engine)
        check_schema(store.engine)
    except Exception:
        store.dispose()
        raise
    return store
