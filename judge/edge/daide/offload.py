"""The DAIDE edge's store work on a bounded pool of threads, off the event loop.

A store call waits for SQLite's write turn or a slow PostgreSQL; on the loop it would stall
every connection of every game.  ``StoreCalls`` runs it in one of ``[daide] store_threads``
threads instead.  Each game's calls run one at a time, in the order they were asked
(``StoreHost``'s state is never touched by two threads at once; a connection's commands are
answered in order because the server awaits each before reading the next).  What waits is
bounded by the connection caps: a connection has at most one call waiting, a game's look
one more; a connection whose call waits is still read (to see a hang-up at once), but what
it sends meanwhile is kept only up to ``daide.server.READ_BYTES`` and answered after the
call, so it cannot queue more calls.

A host's listener calls (phases, endings, press, seats) are made in the pool's threads and
passed to the loop by ``ListenerOnLoop``, in order, before the call that made them returns
to the loop.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Awaitable, Callable, Sequence, TypeVar

from adjudicator.types import Position
from daide.host import Ending, Listener, PlayedPhase

T = TypeVar("T")


class StoreCalls:
    def __init__(self, threads: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="daide-store")
        #: Calls asked and not yet returned (waiting for their game's turn or a thread, or running).
        self.pending = 0
        #: The most ``pending`` has been (tests and logs: the queue stays bounded).
        self.most_pending = 0

    async def run(self, work: Callable[[], T]) -> T:
        """``work()`` in a pool thread, with no game's order to keep (the edge's looks)."""
        self._asked()
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, work)
        finally:
            self.pending -= 1

    def for_game(self) -> Callable[[Callable[[], Any]], Awaitable[Any]]:
        """An ``offload`` for one game's server: its calls one at a time, in order."""
        turn = asyncio.Lock()

        async def offload(work: Callable[[], T]) -> T:
            self._asked()
            try:
                async with turn:
                    # shielded: a cancelled caller (the listener closing) still waits for the
                    # thread, so the next call never runs beside it
                    running = asyncio.get_running_loop().run_in_executor(self._pool, work)
                    try:
                        return await asyncio.shield(running)
                    except asyncio.CancelledError:
                        await asyncio.wait([running])
                        raise
            finally:
                self.pending -= 1
        return offload

    def _asked(self) -> None:
        self.pending += 1
        self.most_pending = max(self.most_pending, self.pending)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)


class ListenerOnLoop:
    """A ``daide.host.Listener`` whose calls, made in any thread, run on ``loop``, in order."""

    def __init__(self, listener: Listener, loop: asyncio.AbstractEventLoop) -> None:
        self._listener, self._loop = listener, loop

    def _on_loop(self, call: Callable[..., None], *args: Any) -> None:
        if self._loop_thread():
            call(*args)
        else:
            self._loop.call_soon_threadsafe(call, *args)

    def _loop_thread(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    def game_started(self) -> None:
        self._on_loop(self._listener.game_started)

    def phase_processed(self, played: PlayedPhase, position: Position) -> None:
        self._on_loop(self._listener.phase_processed, played, position)

    def game_ended(self, ending: Ending) -> None:
        self._on_loop(self._listener.game_ended, ending)

    def seats_changed(self, disorder: frozenset[str]) -> None:
        self._on_loop(self._listener.seats_changed, disorder)

    def press_arrived(self, sender: str, recipients: Sequence[str], press: tuple) -> None:
        self._on_loop(self._listener.press_arrived, sender, recipients, press)
