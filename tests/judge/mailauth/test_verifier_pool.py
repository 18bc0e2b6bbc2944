"""Verification and signing in a process of its own (judge.mailauth.verifier_pool): the
same verdict as in the daemon's process, through the daemon's name servers (the loopback
DNS server here, handed to the process at its start); signatures made there verify; a
verifier process that dies costs no mail."""

from __future__ import annotations

import os
import signal
import threading

from judge.mailauth.dkim_keys import RSA, new_key
from judge.mailauth.dkim_sign import SigningError, signer_for
from judge.mailauth.verifier_pool import PooledSigner, VerifierPool
from judge.mailauth.verify import verified

KEY = new_key("s1", RSA)
MAIL = signer_for("players.test", (KEY,)).sign(
    b"From: anna@players.test\r\nTo: judge@example.org\r\nSubject: x\r\nMessage-ID: <a@players.test>\r\n\r\nLIST\r\n")
ARGS = dict(authserv_id="example.org", ip="127.0.0.1", mail_from="anna@players.test", helo="mx.players.test",
            timeout=1.0)


def test_a_verifier_process_gives_the_same_verdict_and_may_die(dns_zone):
    dns_zone.txt["s1._domainkey.players.test"] = [KEY.txt_value()]
    dns_zone.txt["_dmarc.players.test"] = ["v=DMARC1; p=reject"]
    here = verified(MAIL, **ARGS)
    assert "dkim=pass" in here[0] and here[1] == ("pass", "reject")
    pool = VerifierPool(1, 1.0)
    try:
        assert pool.verify(MAIL, **ARGS) == here
        unsigned = MAIL.split(b"\r\nFrom: ", 1)[1]
        signed = PooledSigner(signer_for("players.test", (KEY,)), pool).sign(b"From: " + unsigned)
        assert signed.startswith(b"DKIM-Signature:") and verified(signed, **ARGS)[1] == ("pass", "reject")
        [pid] = pool.process_ids()  # the process the pool started, not this one
        assert pid != os.getpid()
        os.kill(pid, signal.SIGKILL)
        assert pool.verify(MAIL, **ARGS) == here  # checked here while a new process starts
        assert pool.verify(MAIL, **ARGS) == here and pool.process_ids() != [pid]
        # Killed while several intake threads want it: each mail is still verified, none waits for good.
        [pid] = pool.process_ids()
        os.kill(pid, signal.SIGKILL)
        verdicts: list[object] = []
        threads = [threading.Thread(target=lambda: verdicts.extend(pool.verify(MAIL, **ARGS) for _ in range(3)))
                   for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert verdicts == [here] * 12
    finally:
        pool.close()


_KILLED_DAEMON = """
import os, sys
from judge.mailauth.verifier_pool import VerifierPool
pool = VerifierPool(1, 2.0)
[worker] = pool.process_ids()
children = [int(p) for p in os.listdir('/proc') if p.isdigit() and _parent(int(p)) == os.getpid()]
print(worker, *children, flush=True)
sys.stdin.read()  # wait to be killed
"""

_PARENT = """
def _parent(pid):
    try:
        with open(f'/proc/{pid}/stat') as stat:
            return int(stat.read().rsplit(')', 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1
"""


def _alive(pid: int) -> bool:
    """Running (a zombie left for a non-reaping init counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_pool_processes_leave_when_the_daemon_is_killed_outright():
    import os
    import signal
    import subprocess
    import sys
    import time

    daemon = subprocess.Popen([sys.executable, "-c", _PARENT + _KILLED_DAEMON], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=dict(os.environ, JUDGE_MAIL_VERIFY_PROCESSES="1"))
    try:
        assert daemon.stdout is not None
        pids = [int(word) for word in daemon.stdout.readline().split()]
        assert pids and all(_alive(pid) for pid in pids), pids  # the pool process and the forkserver
        os.kill(daemon.pid, signal.SIGKILL)
        daemon.wait(timeout=10)
        deadline = time.monotonic() + 15
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in pids if _alive(pid)], "pool processes outlived their daemon"
    finally:
        if daemon.poll() is None:
            daemon.kill()


def test_a_batch_is_signed_in_one_hand_over_and_a_bad_message_costs_the_others_nothing(dns_zone):
    dns_zone.txt["s1._domainkey.players.test"] = [KEY.txt_value()]
    pool = VerifierPool(1, 1.0)
    try:
        good = b"From: judge@players.test\r\nTo: anna@example.org\r\nSubject: r\r\n\r\nA PAR - BUR\r\n"
        first, bad, last = PooledSigner(signer_for("players.test", (KEY,)), pool).sign_each(
            [good, b"\xff\xfe not a header\r\n\r\nx\r\n", good.replace(b"BUR", b"PIC")])
    finally:
        pool.close()
    assert isinstance(bad, SigningError) and "cannot sign" in str(bad)
    assert isinstance(first, bytes) and isinstance(last, bytes) and b"PIC" in last
    assert all(verified(signed, **ARGS)[0].count("dkim=pass") == 1 for signed in (first, last))
