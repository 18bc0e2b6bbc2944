"""The listeners of every game with RULE MACHINES, on an asyncio loop in a thread.

Every ``[daide] poll_seconds`` the edge lists the machine games (each has its port from
the transaction that opened its machine seats, judge.commands.daide_ports; one made while
no port was free gets one here), opens a ``daide.server.GameServer`` for each it does not serve yet, and asks
every game's ``StoreHost`` to ``refresh`` (phases processed by the scheduler or a mail,
the start, the end).  After a game has ended and its SMR went out, or ended before it
started, or lost the rule, or formed with nobody joining for ``[daide] forming_idle_hours``,
its listener closes at the next look, and the look after gives its port back
(judge.edge.daide.machines.free_ports): a port is free for another game only once nothing listens
on it.  A port that cannot be bound is logged and tried again at the next look; one
game's failure (a refresh, a bind, a close) is logged and never stops the others.

Every listener shares one ``daide.admission.Admission`` (the connection caps, the total
kept ``[daide] fd_reserve`` descriptors below the open-file limit, so mail intake and the
database always have theirs) and one count of wrong IAMs per client address.

While no game has the rule, the looks space out (doubling up to ``IDLE_LOOKS_APART``
times ``poll_seconds``, 4 s by default): each look is a transaction, and on SQLite it
takes the write turn that mail intake and the worker wait for.  A new machine game is
then found within that time; any machine game brings the pace back to ``poll_seconds``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from datetime import datetime, timedelta, timezone
from typing import Awaitable, Callable

from daide.admission import Admission, Caps, total_for_limit
from daide.guesses import Guesses
from daide.server import GameServer
from judge.commands.daide_ports import parse_port_range
from judge.commands.fair_players import PassContext
from judge.config import Settings
from judge.edge.daide.host import StoreHost
from judge.edge.daide import machines
from judge.edge.daide.offload import StoreCalls
from judge.mailio.outgoing import queue_all
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
        daide = settings.daide
        self.admission = Admission(Caps(total=total_for_limit(daide.max_connections, daide.fd_reserve),
                                        per_game=daide.connections_per_game,
                                        per_address=daide.connections_per_address))
        self.address_guesses = Guesses()
        self.idle_after = timedelta(hours=daide.forming_idle_hours)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self.store_calls = StoreCalls(daide.store_threads)
        self._passing = threading.Lock()
        self._offloads: dict[int, Callable[[Callable[[], object]], Awaitable[object]]] = {}
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

    def _close_all(self) -> Awaitable[list[object]]:
        return asyncio.gather(*(self._close(game_id) for game_id in list(self.servers)), return_exceptions=True)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self._ready.set()
        poll = self.settings.daide.poll_seconds
        log.info("DAIDE edge: at most %d connections in all (%d a game, %d an address)",
                 self.admission.caps.total, self.admission.caps.per_game, self.admission.caps.per_address)
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
            await self._close_all()  # OFF to every connection, each ended before the loop stops
            self.store_calls.shutdown()

    def process_due(self) -> None:
        """A scheduler pass now (after a bot's orders or GOF): the phase is processed at once.
        Called from the store threads: one pass at a time, as on the loop before."""
        with self._passing:
            self._run_pass(self.store, self.settings, self.clock())

    async def look(self) -> int:
        """Give back the ports of listeners closed at the last look; open, refresh and close
        listeners; the number of machine games listed.  The store work runs off the loop."""
        serving = set(self.servers)
        freed, games = await self.store_calls.run(lambda: self._list_games(serving))
        for name, port in freed:
            log.info("game %s: DAIDE port %d given back", name, port)
        listed = {g.id for g in games}
        for game in games:
            if game.id not in self.servers:
                await self._each(game.name, self._open(game.id, game.port, game.name))
        for game_id in list(self.hosts):
            await self._each(self.hosts[game_id].name, self._keep_or_close(game_id, game_id in listed))
        return len(games)

    def _list_games(self, serving: set[int]) -> tuple[list[tuple[str, int]], list[machines.MachineGame]]:
        now = self.clock()
        with self.store.unit_of_work(now=now) as session:
            ctx = PassContext(session, now, self.settings.judge)
            freed = machines.free_ports(ctx, serving, self.idle_after)
            games = machines.machine_games(session, self.ports, now, self.idle_after)
            queue_all(session, ctx.outgoing, self.settings.judge, now)
        return freed, games

    async def _each(self, name: str, work: Awaitable[None]) -> None:
        """One game's part of a look: its failure is logged and the others go on."""
        try:
            await work
        except Exception:
            log.exception("DAIDE edge: game %s failed at this look; the other games go on", name)

    async def _keep_or_close(self, game_id: int, listed: bool) -> None:
        """Tell the game's bots what changed; close its listener once it has no use for it."""
        host = self.hosts[game_id]
        try:
            await self._offloads[game_id](host.refresh)
        except Exception:
            if listed:
                raise
            log.exception("DAIDE edge: game %s cannot be read; closing its listener", host.name)
            await self._close(game_id)
            return
        if not listed and (host.ended() is not None or not host.started()):
            await self._close(game_id)

    async def _close(self, game_id: int) -> None:
        server = self.servers.pop(game_id)
        self.hosts.pop(game_id, None)
        self._offloads.pop(game_id, None)
        port = self.ports_of.pop(game_id, None)
        await server.close()
        log.info("game #%d: DAIDE listener on port %s closed", game_id, port)

    async def _open(self, game_id: int, port: int, name: str) -> None:
        loop = asyncio.get_running_loop()
        host = await self.store_calls.run(lambda: StoreHost(self.store, self.settings, game_id, self.process_due,
                                                            clock=self.clock, loop=loop))
        daide = self.settings.daide
        offload = self.store_calls.for_game()
        server = GameServer(host, admission=self.admission, address_guesses=self.address_guesses,
                            name_seconds=daide.name_seconds, idle_seconds=daide.idle_seconds, offload=offload)
        try:
            await server.start(daide.host, port)
        except OSError as problem:
            log.error("game %s: cannot listen for DAIDE on %s:%d (%s); trying again", name, daide.host, port, problem)
            return
        self.servers[game_id] = server
        self.hosts[game_id] = host
        self.ports_of[game_id] = port
        self._offloads[game_id] = offload
        log.info("game %s: DAIDE machine players on %s:%d", name, daide.host, port)
