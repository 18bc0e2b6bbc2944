"""WHOIS at 10,000 registered players, through SMTP (issue 31: "WHOIS answered within the
usual reply time at 10,000 players").

    python -m benchmarks.registry_bench [--players 10000] [--mails 40]

An in-process ``judge serve`` (the real aiosmtpd listener, the worker running
judge.commands, the outbox sender writing .eml files; tests/judge/smtp_doors.py) on a
SQLite file.  Timed per mail: from the SMTP DATA's answer to its reply on disk, what a
player waits.  First with no one registered, then with ``--players`` registered players
(each with two linked addresses and a profile, stored in bulk), alternating mail by mail
between WHOIS name, WHOIS address, WHOGAME and LIST (the usual reply: an information
command every judge answers), so the commands are compared under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Sequence

from sqlalchemy import insert, select

from judge.store.models_registry import RegisteredAddress, RegisteredPlayer
from judge.store import passwords
from judge.store.engine import Store


def _figures(seconds: Sequence[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {"median_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1), "mails": len(ordered)}


def populate(store: Store, count: int, now: datetime) -> None:
    """``count`` registered players, P00000 ..., each with two addresses; every tenth
    shows its real name and addresses."""
    with store.unit_of_work(now=now) as session:
        session.execute(insert(RegisteredPlayer), [
            {"name": f"P{n:05d}", "name_key": f"p{n:05d}", "password_hash": "", "real_name": f"Player {n}",
             "country": "Utopia", "zone": "UTC", "level": "novice",
             "public": "realname addresses record" if n % 10 == 0 else "record", "registered_at": now}
            for n in range(count)])
        ids = {name: id_ for name, id_ in session.execute(select(RegisteredPlayer.name, RegisteredPlayer.id))}
        session.execute(insert(RegisteredAddress), [
            {"player_id": ids[f"P{n:05d}"], "address": f"p{n:05d}.{k}@players.test", "linked_at": now}
            for n in range(count) for k in (1, 2)])


def run(players: int, mails: int) -> dict[str, object]:
    from tests.judge.smtp_doors import SmtpJudge  # the tests' in-process judge serve

    passwords._N = 2**8  # the game's seats in this run need no real cost
    with tempfile.TemporaryDirectory() as scratch:
        judge = SmtpJudge(Path(scratch))
        try:
            judge.send("gm@example.net", "CREATE g1 masterpw\nFORM\n")
            for n in range(7):
                judge.send(f"p{n:05d}.1@players.test", f"JOIN g1 pw{n}\n")
            for _ in range(5):  # warm: imports, caches, the first connections
                judge.send("asker@example.net", "LIST g1\n")
            kinds: dict[str, list[float]] = {"LIST g1": [], "WHOIS name": [], "WHOIS address": [], "WHOGAME g1": []}
            before: dict[str, list[float]] = {"LIST g1": [], "WHOIS name": []}
            for n in range(mails):
                before["LIST g1"].append(judge.send("asker@example.net", "LIST g1\n").seconds)
                before["WHOIS name"].append(judge.send("asker@example.net", f"WHOIS P{n:05d}\n").seconds)
            started = time.perf_counter()
            populate(judge.store, players, judge.now)
            populated = time.perf_counter() - started
            for n in range(mails):
                wanted = (n * 7919) % players // 10 * 10  # spread over the table, one that shows its addresses
                replies = {"LIST g1": judge.send("asker@example.net", "LIST g1\n"),
                           "WHOIS name": judge.send("asker@example.net", f"WHOIS P{wanted:05d}\n"),
                           "WHOIS address": judge.send("asker@example.net", f"WHOIS p{wanted:05d}.2@players.test\n"),
                           "WHOGAME g1": judge.send("asker@example.net", "WHOGAME g1\n")}
                assert f"Player: P{wanted:05d}" in replies["WHOIS name"].body
                assert f"Real name: Player {wanted}" in replies["WHOIS address"].body
                assert "Player 0" in replies["WHOGAME g1"].body or "P00000" in replies["WHOGAME g1"].body
                for kind, reply in replies.items():
                    kinds[kind].append(reply.seconds)
        finally:
            judge.close()
    return {"players": players, "store_seconds": round(populated, 2), "load_average": os.getloadavg(),
            "before (nobody registered)": {kind: _figures(times) for kind, times in before.items()},
            f"with {players} registered": {kind: _figures(times) for kind, times in kinds.items()}}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--mails", type=int, default=40, help="mails of each kind timed")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.players, args.mails), indent=2))


if __name__ == "__main__":
    main()
