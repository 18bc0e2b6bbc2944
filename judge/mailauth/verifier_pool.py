"""Verification of arriving mail and DKIM signing of leaving mail in processes of their
own (``[mail] verify_processes``).

DKIM, SPF and DMARC checks and the two signatures of a reply are Python work (a few ms a
mail, see docs/benchmarks.md) that would hold the daemon's one interpreter lock while
the SMTP protocol, intake, worker and outbox sender wait for it; in a process of its own
it runs on the second core.  The intake thread waits for the verdict (releasing the
lock), so a mail is still verified before it is stored and acknowledged; the outbox
sender waits for the signed bytes of a batch before it sends them.

Each process is reached through a pipe of its own: the calling thread pickles the task,
writes it and waits for the answer, with no thread of the pool's between them (a
``ProcessPoolExecutor`` adds two, and their hand-overs cost the daemon's interpreter more
than the pickles; docs/benchmarks.md, session 11).  A caller takes an idle process, or
waits for one once ``processes`` are busy.

The processes come from a ``forkserver`` (a clean interpreter that has imported the
checks once; forking the daemon itself, with its threads, is unsafe), started on the
first mail.  They resolve through the same name servers as the daemon's resolver
(judge.mailauth.verify.configure_resolver), handed over at start.  A process leaves when
its pipe closes, so also when the daemon is killed outright.  Should a process die, that
task is done here and the process started anew for the next, so no mail waits for a
broken process; after ``GIVE_UP_AFTER`` such deaths every task is done here.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Callable, Sequence

import dns.resolver

from judge.mailauth.dkim_sign import Signer, SigningError
from judge.mailauth.verify import use_nameservers, verified

log = logging.getLogger("judge.mailauth")

_CHECKS = ["judge.mailauth.verify", "judge.mailauth.dkim_sign"]


def _serve(connection: Connection, nameservers: list[str], port: int, timeout: float) -> None:
    """A pool process: run each task read from ``connection`` and write back its outcome,
    until the daemon's end closes."""
    use_nameservers(nameservers, port, timeout)
    while True:
        try:
            task, args, kwargs = connection.recv()
        except (EOFError, OSError):  # the daemon closed its end, or is gone
            return
        try:
            answer: tuple[bool, Any] = (True, task(*args, **kwargs))
        except Exception as exc:  # the caller's to raise, as if the task had run there
            answer = (False, exc)
        connection.send(answer)


class _Lost(Exception):
    """The pool process died (or its pipe broke) with a task in hand."""


class _Process:
    """A pool process and the daemon's end of its pipe."""

    def __init__(self, context: Any, initargs: tuple[Any, ...]) -> None:
        here, there = context.Pipe()
        self.process = context.Process(target=_serve, args=(there, *initargs), name="mail-verifier", daemon=True)
        self.process.start()
        there.close()
        self.connection: Connection = here

    def call(self, task: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            self.connection.send((task, args, kwargs))
            done, value = self.connection.recv()
        except (EOFError, OSError) as exc:
            raise _Lost(str(exc)) from exc
        if not done:
            raise value
        return value

    def close(self) -> None:
        self.connection.close()  # the process reads EOF and leaves
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class VerifierPool:
    """``verify`` is judge.mailauth.verify.verified and ``sign_each`` a Signer's signatures
    of several messages, run in one of ``processes`` processes."""

    #: After this many dead processes the work stays in the daemon (a process that cannot
    #: start must not cost every mail a new one).
    GIVE_UP_AFTER = 3

    def __init__(self, processes: int, timeout: float) -> None:
        self.processes = processes
        self.timeout = timeout
        self._lock = threading.Lock()
        self._idle: queue.SimpleQueue[_Process | None] = queue.SimpleQueue()
        self._all: list[_Process] = []
        self._context: Any = None
        self._closed = False
        self._broken = 0

    def _take(self) -> _Process | None:
        """An idle process (started while fewer than ``processes`` run, else waited for), or
        None once the pool is given up on.  A None in the idle queue is a wake-up: a process
        was lost (start another) or the pool given up on."""
        while self._broken < self.GIVE_UP_AFTER:
            if self._closed:
                raise RuntimeError("the verifier pool is closed")
            try:
                found = self._idle.get_nowait()
            except queue.Empty:
                found = self._start() or self._idle.get()
            if found is not None:
                return found
        return None

    def _start(self) -> _Process | None:
        with self._lock:
            if self._closed:
                raise RuntimeError("the verifier pool is closed")
            if len(self._all) >= self.processes or self._broken >= self.GIVE_UP_AFTER:
                return None
            if self._context is None:
                self._context = multiprocessing.get_context("forkserver")
                self._context.set_forkserver_preload(_CHECKS)
            resolver = dns.resolver.get_default_resolver()
            started = _Process(self._context, ([str(n) for n in resolver.nameservers], int(resolver.port),
                                               self.timeout))
            self._all.append(started)
            return started

    def _lost(self, process: _Process) -> None:
        with self._lock:
            if process in self._all:
                self._all.remove(process)
            self._broken += 1
            given_up = self._broken >= self.GIVE_UP_AFTER
            log.log(logging.ERROR if given_up else logging.WARNING,
                    "a mail verifier process died (%d times); %s", self._broken,
                    "mail is checked and signed in the daemon from now on" if given_up
                    else "starting a new one for the next mail, and doing this mail's work here")
            # Callers waiting for a process start another, or (given up) work here.
            for _ in range(self.processes if given_up else 1):
                self._idle.put(None)
        process.close()

    def _run(self, task: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self._broken < self.GIVE_UP_AFTER:
            process = self._take()
            if process is not None:
                try:
                    value = process.call(task, args, kwargs)
                except _Lost:
                    self._lost(process)
                else:
                    self._idle.put(process)
                    return value
        return task(*args, **kwargs)

    def verify(self, raw: bytes, *, authserv_id: str, ip: str | None, mail_from: str, helo: str,
               timeout: float) -> tuple[str, tuple[str, str]]:
        result: tuple[str, tuple[str, str]] = self._run(
            verified, raw, authserv_id=authserv_id, ip=ip, mail_from=mail_from, helo=helo, timeout=timeout)
        return result

    def sign_each(self, signer: Signer, raws: Sequence[bytes]) -> list[bytes | SigningError]:
        """``signer.sign_each`` in a process of the pool: one hand-over for all."""
        result: list[bytes | SigningError] = self._run(Signer.sign_each, signer, list(raws))
        return result

    def process_ids(self) -> list[int]:
        """The pool processes' ids, every one of the ``processes`` started now."""
        while (started := self._start()) is not None:
            self._idle.put(started)
        with self._lock:
            return [p.process.pid for p in self._all]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            processes, self._all = self._all, []
            for _ in range(self.processes):  # callers still waiting find the pool closed
                self._idle.put(None)
        for process in processes:
            process.close()


@dataclass(frozen=True)
class PooledSigner:
    """A Signer whose signatures are made in ``pool``'s processes (judge.edge.smtp_out's ``signer``)."""

    signer: Signer
    pool: VerifierPool

    def sign(self, raw: bytes) -> bytes:
        [signed] = self.sign_each([raw])
        if isinstance(signed, SigningError):
            raise signed
        return signed

    def sign_each(self, raws: Sequence[bytes]) -> list[bytes | SigningError]:
        return self.pool.sign_each(self.signer, raws)
