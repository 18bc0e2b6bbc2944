"""The intake benchmark with mail authentication off and on, side by side in one run
(issue 27): ``python -m benchmarks.intake_bench --mailauth-rounds N ...``.

What users run with it on: every player's mail DKIM-signed by the players' domain (one
rsa-sha256 2048-bit signature, as the large providers sign), sent from this host's
non-loopback address (so the judge checks SPF too: mail from loopback is a local
relay's), the domain's key, SPF record and ``p=reject`` DMARC policy served by a DNS
server on loopback in a process of its own (in this one it would compete with the
senders for this process's interpreter lock); every mail is signed before its phase's
clock starts; the judge verifies each mail (DKIM, SPF, DMARC: every
one passes) and signs each reply twice (rsa-sha256 and ed25519-sha256) before writing it.
Off: the same signed mails, ``[mail] verify = false`` and ``[dkim] sign = false``.  And
"on0" and "on1": on, with ``[mail] verify_processes`` 0 (the checks and signatures in the
daemon's own threads, under its interpreter lock: the default since session 13) and 1 (in a
process of the pool).  Off, on and on1 alternate by default, each on a fresh copy of the same
population, ``N`` rounds.  ``--mailauth-configurations`` picks others: "sign" (only
the replies signed) and "verify" (only the mail verified) tell the two costs apart.

After each run the database and the outbox folder are read back, so the figures are
known to be of mail that really was verified (dmarc=pass recorded) and signed.
"""

from __future__ import annotations

import multiprocessing
import shutil
import sqlite3
from contextlib import closing, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator

from benchmarks.intake_mail import BenchMail

DOMAIN = "bench.example"  # the players' domain (benchmarks/intake_population.py), and the judge's
OFF = {"JUDGE_MAIL_VERIFY": "false", "JUDGE_DKIM_SIGN": "false"}


def signing_players(zone: Any, host: str) -> Callable[[BenchMail], BenchMail]:
    """Publish the players' domain in ``zone`` (key, SPF for ``host``, DMARC p=reject; before
    the zone is served) and return what signs each of their mails."""
    from judge.mailauth.dkim_keys import RSA, new_key
    from judge.mailauth.dkim_sign import signer_for

    key = new_key("players2026", RSA)
    zone.txt[f"{key.selector}._domainkey.{DOMAIN}"] = [key.txt_value()]
    zone.txt[DOMAIN] = [f"v=spf1 ip4:{host} -all"]
    zone.txt[f"_dmarc.{DOMAIN}"] = ["v=DMARC1; p=reject"]
    signer = signer_for(DOMAIN, (key,))
    return lambda mail: replace(mail, raw=signer.sign(mail.raw))


def evidence(workdir: Path) -> dict[str, int]:
    """What the run just finished left: inbound mails, those recorded as passing DKIM and
    DMARC, reply files written and those carrying both signatures."""
    with closing(sqlite3.connect(workdir / "run.db")) as db:
        inbound = db.execute("SELECT count(*) FROM inbound_message").fetchone()[0]
        passed = db.execute("SELECT count(*) FROM inbound_message WHERE auth_results LIKE '%dkim=pass%' "
                            "AND auth_results LIKE '%dmarc=pass%'").fetchone()[0]
    files = list((workdir / "outbox" / "new").glob("*.eml"))
    signed = sum(1 for f in files if f.read_bytes().count(b"DKIM-Signature:") >= 2)
    return {"inbound": inbound, "inbound_dkim_and_dmarc_pass": passed, "replies": len(files),
            "replies_signed_twice": signed}


def _serve_zone(zone: Any, ready: Any) -> None:
    from tests.fixtures.dns_server import _serve

    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((zone.host, 0))
    ready.send(sock.getsockname()[1])
    _serve(zone, sock)


@contextmanager
def zone_served(zone: Any) -> Iterator[str]:
    """``zone`` (its records as they are now) answered by a process of its own on loopback;
    yields its ``host:port``."""
    context = multiprocessing.get_context("fork")
    here, there = context.Pipe()
    server = context.Process(target=_serve_zone, args=(zone, there), name="loopback-dns", daemon=True)
    server.start()
    try:
        if not here.poll(30):
            raise RuntimeError("the benchmark's DNS server did not start")
        yield f"{zone.host}:{here.recv()}"
    finally:
        server.kill()
        server.join()


def side_by_side(args: Any, run: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """``args.mailauth_rounds`` rounds of ``run`` (benchmarks.intake_bench.run), one run of
    each of ``args.mailauth_configurations`` a round."""
    from tests.fixtures.dns_server import Zone
    from tests.fixtures.ports import own_address

    host = own_address()
    zone = Zone("127.0.0.1", 0)
    prepare = signing_players(zone, host)
    with zone_served(zone) as server:
        return _rounds(args, run, host, prepare, server)


def _rounds(args: Any, run: Callable[..., dict[str, Any]], host: str, prepare: Callable[[BenchMail], BenchMail],
            server: str) -> dict[str, Any]:
    on = {"JUDGE_MAIL_DNS_SERVER": server, "JUDGE_MAIL_DNS_TIMEOUT_SECONDS": "2"}
    known = {"off": OFF, "on": on, "on0": {**on, "JUDGE_MAIL_VERIFY_PROCESSES": "0"},
             "on1": {**on, "JUDGE_MAIL_VERIFY_PROCESSES": "1"},
             "sign": {**OFF, "JUDGE_DKIM_SIGN": "true"}, "verify": {**on, "JUDGE_DKIM_SIGN": "false"}}
    configurations = {name: known[name] for name in args.mailauth_configurations.split(",")}
    runs = []
    for round_number in range(1, args.mailauth_rounds + 1):
        for name, settings in configurations.items():
            shutil.rmtree(args.workdir / "outbox", ignore_errors=True)
            print(f"-- round {round_number}, verification and signing {name}", flush=True)
            report = run(args, {**dict(item.split("=", 1) for item in args.env), **settings}, host, prepare,
                         drain=True)
            report.update(round=round_number, mailauth=name, evidence=evidence(args.workdir))
            print(f"   {report['evidence']}", flush=True)
            runs.append(report)
    print(summary(runs), flush=True)
    return {"runs": runs}


def summary(runs: list[dict[str, Any]]) -> str:
    """A table of each run's saturation phase: throughput; the CPU per command of the daemon
    with every process below it, and of its own process alone (one interpreter lock: what
    one core must carry); the commands per second two cores would carry at those costs."""
    lines = ["round  auth   mails/s  cmds/s  CPU ms/cmd  own process ms/cmd  cmds/s on 2 cores  load"]
    for report in runs:
        phase = next((p for p in report["phases"] if p["name"] == "saturation"), None)
        if phase is None or not phase.get("cpu_ms_per_command"):
            continue
        total, own = phase["cpu_ms_per_command"], phase["own_cpu_ms_per_command"]
        capacity = min(2000 / total, 1000 / own)  # both cores busy, or the own process's one core full
        lines.append(f"{report['round']:>5}  {report['mailauth']:>5}  {phase['mails_per_second']:7.1f}  "
                     f"{phase['commands_per_second']:6.1f}  {total:10.2f}  {own:18.2f}  {capacity:17.0f}  "
                     f"{phase['load_average']:4.1f}")
    return "\n".join(lines)
