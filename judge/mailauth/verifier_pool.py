"""Verification of arriving mail and DKIM signing of leaving mail in processes of their
own (``[mail] verify_processes``).

DKIM, SPF and DMARC checks and the two signatures of a reply are Python work (a few ms a
mail, see docs/benchmarks.md) that would hold the daemon's one interpreter lock while
the SMTP protocol, intake, worker and outbox sender wait for it; in a process of its own
it runs on the second core.  The intake thread waits for the verdict (releasing the
lock), so a mail is still verified before it is stored and acknowledged; the outbox
sender waits for the signed bytes before it sends them.

The processes come from a ``forkserver`` (a clean interpreter that has imported the
checks once; forking the daemon itself, with its threads, is unsafe), started on the
first mail.  They resolve through the same name servers as the daemon's resolver
(judge.mailauth.verify.configure_resolver), handed over at start.  Should a process die,
the pool is made anew and that mail verified here, so no mail waits for a broken pool;
after ``GIVE_UP_AFTER`` such deaths every mail is verified here.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from dataclasses import dataclass
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import dns.resolver

from judge.mailauth.dkim_sign import Signer
from judge.mailauth.verify import use_nameservers, verified

log = logging.getLogger("judge.mailauth")

_CHECKS = ["judge.mailauth.verify", "judge.mailauth.dkim_sign"]


def _sign(signer: Signer, raw: bytes) -> bytes:
    return signer.sign(raw)


#: How often a pool process looks whether the daemon that made it is still there.
ORPHAN_CHECK_SECONDS = 1.0


def _start_process(nameservers: list[str], port: int, timeout: float, daemon_pid: int) -> None:
    use_nameservers(nameservers, port, timeout)
    # A daemon killed outright (SIGKILL, OOM) cannot close its pool, and a pool process holds
    # both ends of its task queue, so it would wait for work forever: it leaves on its own.
    threading.Thread(target=_leave_when_gone, args=(daemon_pid,), name="orphan-watch", daemon=True).start()


def _leave_when_gone(daemon_pid: int) -> None:
    while True:
        time.sleep(ORPHAN_CHECK_SECONDS)
        try:
            os.kill(daemon_pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # the number was given to another user's process: ours is gone
            os._exit(0)


class VerifierPool:
    """``verify`` is judge.mailauth.verify.verified and ``sign`` a Signer's sign, run in one
    of ``processes`` processes."""

    #: After this many dead pools the checks stay in the daemon (a process that cannot start
    #: must not cost every mail a new one).
    GIVE_UP_AFTER = 3

    def __init__(self, processes: int, timeout: float) -> None:
        self.processes = processes
        self.timeout = timeout
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False
        self._broken = 0

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the verifier pool is closed")
            if self._executor is None:
                resolver = dns.resolver.get_default_resolver()
                context = multiprocessing.get_context("forkserver")
                context.set_forkserver_preload(_CHECKS)
                self._executor = ProcessPoolExecutor(
                    self.processes, mp_context=context, initializer=_start_process,
                    initargs=([str(n) for n in resolver.nameservers], int(resolver.port), self.timeout,
                              os.getpid()))
            return self._executor

    def _lost(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is pool:
                self._executor = None
                self._broken += 1
                given_up = self._broken >= self.GIVE_UP_AFTER
                log.log(logging.ERROR if given_up else logging.WARNING,
                        "a mail verifier process died (%d times); %s", self._broken,
                        "mail is checked and signed in the daemon from now on" if given_up
                        else "starting a new one, and doing this mail's work here")
        pool.shutdown(wait=False, cancel_futures=True)

    def verify(self, raw: bytes, *, authserv_id: str, ip: str | None, mail_from: str, helo: str,
               timeout: float) -> tuple[str, tuple[str, str]]:
        if self._broken < self.GIVE_UP_AFTER:
            pool = self._pool()
            try:
                return pool.submit(verified, raw, authserv_id=authserv_id, ip=ip, mail_from=mail_from, helo=helo,
                                   timeout=timeout).result()
            except BrokenProcessPool:
                self._lost(pool)
        return verified(raw, authserv_id=authserv_id, ip=ip, mail_from=mail_from, helo=helo, timeout=timeout)

    def sign(self, signer: Signer, raw: bytes) -> bytes:
        """``signer.sign(raw)`` in a process of the pool (here once the pool is given up on)."""
        if self._broken < self.GIVE_UP_AFTER:
            pool = self._pool()
            try:
                return pool.submit(_sign, signer, raw).result()
            except BrokenProcessPool:
                self._lost(pool)
        return signer.sign(raw)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


@dataclass(frozen=True)
class PooledSigner:
    """A Signer whose signatures are made in ``pool``'s processes (judge.edge.smtp_out's ``signer``)."""

    signer: Signer
    pool: VerifierPool

    def sign(self, raw: bytes) -> bytes:
        return self.pool.sign(self.signer, raw)
