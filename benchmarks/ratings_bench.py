"""Ratings at scale (issue 31): `judge ratings rebuild` over 10,000 finished games, and a
RATINGS mail answered by the real worker at 10,000 players.

    python -m benchmarks.ratings_bench                     # 10,000 games, 10,000 players
    python -m benchmarks.ratings_bench --games 2000 --players 3000 --repeat 3

The population is written straight into a fresh SQLite file (SQLAlchemy core inserts):
``--players`` players by address plus three machine players (two DAIDE programs and the
judge's bot), ``--games`` finished seven-player games on the standard map (a third gunboat,
a quarter solos, the rest draws of two to seven, one seat in twelve resigned and taken
over), each seat with ``--turns`` punctuality rows (one in ten late, one in thirty
missed).  The seed fixes everything.

Timed, each ``--repeat`` times (the median is printed with every run):
- ``rebuild``: `judge ratings rebuild` as an operator runs it, a subprocess of the
  installed command, Python's start included: wall time and the process's CPU time (on a
  loaded machine the wall time counts the other work too);
- ``RATINGS``: one mail from a player with a full record, stored as the SMTP door stores
  it and processed by ``judge.daemon.worker.Worker`` (parse, handler, reply built and queued), the
  time from storing to the reply committed;
- ``record_of``: what WHOIS calls, alone.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from sqlalchemy import insert, select

from judge.commands import process_mail
from judge.config import JudgeSettings
from judge.store.engine import Store
from judge.store.inbound import store_inbound
from judge.store.models_daide import MachineSeat
from judge.store.models_game import PLAYER, RESIGNED, Game, Membership
from judge.store.models_mail import OutboxMessage
from judge.store.models_standing import LATE, MISSED, ON_TIME, TurnRecord
from judge.store.schema import upgrade
from judge.daemon.worker import Worker

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org", name="Bench Judge")
START = datetime(2020, 1, 1, tzinfo=timezone.utc)


def player_address(index: int) -> str:
    return f"player{index}@example.net"


def populate(url: str, games: int, players: int, turns: int, seed: int) -> None:
    rng = random.Random(seed)
    store = Store(url)
    upgrade(store.engine)
    game_rows, member_rows, machine_rows, turn_rows = [], [], [], []
    member_id = 0
    for number in range(1, games + 1):
        ended = START + timedelta(hours=number)
        seats = rng.sample(range(players + 3), 7)
        roll = rng.random()
        alive = [p for p in POWERS if rng.random() < 0.7] or [POWERS[0]]
        if roll < 0.25:
            outcome = {"result": "solo", "powers": [alive[0]], "phase": "F1910M"}
        else:
            outcome = {"result": "draw", "powers": sorted(alive), "phase": "F1910M"}
        game_rows.append({
            "id": number, "name": f"g{number}", "master_password_hash": "x", "status": "ended",
            "rules": ["GUNBOAT"] if number % 3 == 0 else [], "created_at": ended - timedelta(days=90),
            "ended_at": ended, "outcome": outcome, "phase": "W1910A",
            "position": {"map": "standard", "phase": "W1910A",
                         "units": {p: ["A PAR"] for p in alive}, "centers": {p: ["PAR"] for p in alive}},
        })
        for power, seat in zip(POWERS, seats):
            holders = [seat] if rng.random() > 1 / 12 else [rng.randrange(players), seat]
            for order, holder in enumerate(holders):
                member_id += 1
                if holder >= players:  # a machine: two DAIDE programs and the judge's bot
                    kind = holder - players
                    address = (f"judge-bot1.g{number}@machines.invalid" if kind == 2
                               else f"machine{member_id}.g{number}@machines.invalid")
                    if kind < 2:
                        machine_rows.append({"game_id": number, "membership_id": member_id,
                                             "name": ("DumbBot", "Albert")[kind], "version": "1", "passcode": 1})
                else:
                    address = player_address(holder)
                left = order < len(holders) - 1
                member_rows.append({"id": member_id, "game_id": number, "role": PLAYER, "power": power,
                                    "address": address, "password_hash": "x", "joined_at": ended,
                                    "status": RESIGNED if left else "active"})
                for turn in range(turns if not left else turns // 3):
                    luck = rng.random()
                    verdict = MISSED if luck < 1 / 30 else LATE if luck < 0.13 else ON_TIME
                    turn_rows.append({"game_id": number, "phase": f"{'L' if left else 'T'}{turn}", "power": power,
                                      "membership_id": member_id, "address": address, "verdict": verdict})
    with store.engine.begin() as connection:
        for table, rows in ((Game, game_rows), (Membership, member_rows), (MachineSeat, machine_rows),
                            (TurnRecord, turn_rows)):
            for start in range(0, len(rows), 20000):
                connection.execute(insert(table), rows[start:start + 20000])
    store.dispose()


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def time_rebuild(data_dir: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `judge ratings rebuild` process: on a loaded
    machine the CPU time is the figure that does not depend on the other work."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["JUDGE_JUDGE_DATA_DIR"] = str(data_dir)
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "judge.cli", "ratings", "rebuild"], env=env,
                          capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - started
    print("   ", done.stdout.strip())
    return elapsed, children_cpu() - cpu


def time_ratings_mail(store: Store, sender: str, now: datetime) -> float:
    worker = Worker(store, JUDGE, process_mail, clock=lambda: now)
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, JUDGE.address, "ratings"
    message["Message-ID"] = make_msgid(domain="example.net")  # each a new mail, not a redelivery
    message.set_content("RATINGS\n")
    started = time.perf_counter()
    store_inbound(store, message.as_bytes(), mail_from=sender, rcpt_to=[JUDGE.address], source="smtp", now=now)
    assert worker.process_pending() == 1
    elapsed = time.perf_counter() - started
    with store.unit_of_work() as session:
        reply = session.execute(select(OutboxMessage.raw).order_by(OutboxMessage.id.desc()).limit(1)).scalar_one()
    assert b"Your record" in reply and b"Press games: the top 20" in reply, reply[-400:]
    return elapsed


def time_record_of(store: Store, address: str) -> float:
    from judge.standing.records import record_of

    started = time.perf_counter()
    with store.unit_of_work() as session:
        record = record_of(session, (address,))
    assert record.games > 0
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=20, help="punctuality rows per seat")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        data_dir = Path(scratch)
        url = f"sqlite:///{data_dir / 'judge.db'}"
        started = time.perf_counter()
        populate(url, args.games, args.players, args.turns, args.seed)
        print(f"population: {args.games} games, {args.players} players + 3 machines, "
              f"{args.turns} turns a seat, written in {time.perf_counter() - started:.1f} s")
        rebuilds = [time_rebuild(data_dir) for _ in range(args.repeat)]
        walls, cpus = [wall for wall, _ in rebuilds], [cpu for _, cpu in rebuilds]
        print(f"rebuild (judge ratings rebuild): wall {', '.join(f'{t:.2f}' for t in walls)} s, median "
              f"{statistics.median(walls):.2f} s; CPU {', '.join(f'{t:.2f}' for t in cpus)} s, median "
              f"{statistics.median(cpus):.2f} s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        store = Store(url)
        now = START + timedelta(hours=args.games + 1)
        busiest = player_address(0)
        mails = [time_ratings_mail(store, busiest, now) for _ in range(args.repeat)]
        records = [time_record_of(store, busiest) for _ in range(args.repeat)]
        store.dispose()
        print(f"RATINGS mail (stored -> reply committed): {', '.join(f'{t * 1000:.0f}' for t in mails)} ms; "
              f"median {statistics.median(mails) * 1000:.0f} ms")
        print(f"record_of (WHOIS's record): {', '.join(f'{t * 1000:.1f}' for t in records)} ms; "
              f"median {statistics.median(records) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
