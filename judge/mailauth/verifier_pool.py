"""Verification of arriving mail in processes of their own (``[mail] verify_processes``).

DKIM, SPF and DMARC checks are Python work (about 1 ms a mail, see docs/benchmarks.md)
that would hold the daemon's one interpreter lock while the SMTP protocol, intake,
worker and outbox sender wait for it; in a process of its own it runs on the second core.
The intake thread waits for the answer (releasing the lock), so a mail is still verified
before it is stored and acknowledged.

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
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import dns.resolver

from judge.mailauth.verify import use_nameservers, verified

log = logging.getLogger("judge.mailauth")

_CHECKS = "judge.mailauth.verify"


def _start_process(nameservers: list[str], port: int, timeout: float) -> None:
    use_nameservers(nameservers, port, timeout)


class VerifierPool:
    """``verify`` is judge.mailauth.verify.verified, run in one of ``processes`` processes."""

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
                context.set_forkserver_preload([_CHECKS])
                self._executor = ProcessPoolExecutor(
                    self.processes, mp_context=context, initializer=_start_process,
                    initargs=([str(n) for n in resolver.nameservers], int(resolver.port), self.timeout))
            return self._executor

    def verify(self, raw: bytes, *, authserv_id: str, ip: str | None, mail_from: str, helo: str,
               timeout: float) -> tuple[str, tuple[str, str]]:
        if self._broken < self.GIVE_UP_AFTER:
            pool = self._pool()
            try:
                return pool.submit(verified, raw, authserv_id=authserv_id, ip=ip, mail_from=mail_from, helo=helo,
                                   timeout=timeout).result()
            except BrokenProcessPool:
                with self._lock:
                    if self._executor is pool:
                        self._executor = None
                        self._broken += 1
                        given_up = self._broken >= self.GIVE_UP_AFTER
                        log.log(logging.ERROR if given_up else logging.WARNING,
                                "a mail verifier process died (%d times); %s", self._broken,
                                "mail is checked in the daemon from now on" if given_up
                                else "starting a new one, and checking this mail here")
                pool.shutdown(wait=False, cancel_futures=True)
        return verified(raw, authserv_id=authserv_id, ip=ip, mail_from=mail_from, helo=helo, timeout=timeout)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
