"""The listeners of every game with RULE MACHINES, on an asyncio loop in a thread.

Every ``[daide] poll_seconds`` the edge lists the machine games (each has its port from
the transaction that opened its machine seats, judge.commands.daide_ports; one made while
no port was free gets one here), opens a ``daide.server.GameServer`` for each it does not serve yet, and asks
every game's ``StoreHost`` to ``refresh`` (phases processed by the scheduler or a mail,
the start, the end).  After a game has ended and its SMR went out, its port closes at the
next look.  A port that cannot be bound is logged and tried again at the next look.

While no game has the rule, the looks space out (doubling up to ``IDLE_LOOKS_APART``
times ``poll_seconds``, 4 s by default): each look is a transaction, and on SQLite it
takes the write turn that mail intake and the worker wait for.  A new machine game is
then found within that time; any machine game brings the pace back to ``poll_seconds``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from datetime import datetime, timezone
from typing import Callable

from daide.server import GameServer
from judge.commands.daide_ports import parse_port_range
from judge.config import Settings
from judge.edge.daide.host import StoreHost
from judge import machines
from judge.store.engine import Store

log = logging.getLogger("judge.edge.daide")

#: With no machine game, the pause between looks doubles up to this many ``poll_seconds``.
IDLE_LOOKS_APART = 16


def _now() -> datetime:
    return datetime.now(timezone.utc)


class DaideEdge:
    def __init__(self, store: Store, settings: Settings, run_pass: Callable[[Store, Settings, datetime], object], *,
                 clock: Callable[[], datetime] = _now) -> None:
        """``run_pass``: the scheduler pass (``judge serve`` gives its tick), run when a bot's
        orders make a phase ready."""
        self.store, self.settings, self.clock = store, settings, clock
        self.ports = parse_port_range(settings.daide.port_range)
        self._run_pass = run_pass
        self.servers: dict[int, GameServer] = {}
        self.hosts: dict[int, StoreHost] = {}
        self.ports_of: dict[int, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        #: The pause before the next look (``poll_seconds``, longer while no game has the rule).
        self.idle_pause = settings.daide.poll_seconds

    # -- the thread
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="daide", daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self._ready.set()
        poll = self.settings.daide.poll_seconds
        try:
            while not self._stopping.is_set():
                listed = 1
                try:
                    listed = await self.look()
                except Exception:
                    log.exception("DAIDE edge: a look at the machine games failed; trying again")
                self.idle_pause = poll if listed or self.hosts else min(self.idle_pause * 2, poll * IDLE_LOOKS_APART)
                try:
                    await asyncio.wait_for(self._stopping.wait(), self.idle_pause)
                except asyncio.TimeoutError:
                    pass
        finally:
            for server in list(self.servers.values()):
                await server.close()

    def process_due(self) -> None:
        """A scheduler pass now (after a bot's orders or GOF): the phase is processed at once."""
        self._run_pass(self.store, self.settings, self.clock())

    async def look(self) -> int:
        """Open, refresh and close listeners; the number of machine games listed."""
        with self.store.unit_of_work(now=self.clock()) as session:
            games = machines.machine_games(session, self.ports)
        listed = {g.id for g in games}
        for game in games:
            self.ports_of[game.id] = game.port
            if game.id not in self.servers:
                await self._open(game.id, game.port, game.name)
        for game_id, host in list(self.hosts.items()):
            host.refresh()
            if game_id not in listed and (host.ended() is not None or not host.started()):
                await self.servers.pop(game_id).close()
                del self.hosts[game_id]
        return len(games)

    async def _open(self, game_id: int, port: int, name: str) -> None:
        host = StoreHost(self.store, self.settings, game_id, self.process_due, clock=self.clock)
        server = GameServer(host)
        try:
            await server.start(self.settings.daide.host, port)
        except OSError as problem:
            log.error("game %s: cannot listen for DAIDE on %s:%d (%s); trying again", name,
                      self.settings.daide.host, port, problem)
            return
        self.servers[game_id] = server
        self.hosts[game_id] = host
        log.info("game %s: DAIDE machine players on %s:%d", name, self.settings.daide.host, port)
