"""Database growth per game-year, and what ``[store] keep_sent_days`` gives back.

    python -m benchmarks.growth_bench                 # a standard game, 3 game-years
    python -m benchmarks.growth_bench --years 5 --map youngstown_redux

One game (of seven on the standard map) played by mail through the real worker (judge.commands on a SQLite
file): each phase, every power that must order sends RandomBot's orders in a mail of its
own, then the scheduler passes process the phase and queue the results (one outbox row
per player and the master, each with the picture).  Measured at the end of play, with
everything kept, and again after the pass that runs ``keep_raw_days`` and
``keep_sent_days`` (30 days later): the bytes of each table's big column and the
database file after VACUUM, per game-year.  The judge has no key here, so broadcasts go
unsigned (a signature adds about 1 kB a mail); the outbox sender writes .eml files.
"""

from __future__ import annotations

import argparse
import email.utils
import json
import platform
import sqlite3
import tempfile
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

START = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
MASTER = "gm@example.net"


class Judge:
    """The worker with judge.commands on a SQLite file; the test clock moves by hand."""

    def __init__(self, directory: Path) -> None:
        from judge.commands import process_mail
        from judge.config import JudgeSettings, Settings
        from judge.edge.smtp_out import OutboxSender, transport_for
        from judge.store.engine import Store
        from judge.store.schema import upgrade
        from judge.daemon.worker import Worker

        self.path = directory / "judge.db"
        self.settings = Settings(judge=JudgeSettings(address="judge@example.org", domain="example.org",
                                                     name="Bench Judge", data_dir=str(directory)))
        self.store = Store(f"sqlite:///{self.path}")
        upgrade(self.store.engine)
        self.now = START
        self.worker = Worker(self.store, self.settings.judge, process_mail, clock=lambda: self.now)
        self.sender = OutboxSender(self.store, transport_for(self.settings.outbound, self.settings.outbox_path),
                                   clock=lambda: self.now)

    def send(self, sender: str, body: str) -> None:
        from judge.store.inbound import store_inbound

        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, self.settings.judge.address, "orders"
        message["Message-ID"] = email.utils.make_msgid(domain="example.net")
        message.set_content(body)
        raw = message.as_bytes(policy=default_policy.clone(linesep="\r\n"))
        store_inbound(self.store, raw, mail_from=sender, rcpt_to=[self.settings.judge.address], source="smtp",
                      now=self.now)
        assert self.worker.process_pending() == 1
        self.sender.send_due()  # written as .eml files, the rows marked sent

    def tick(self) -> None:
        from judge.edge.scheduler import run_pass

        run_pass(self.store, self.settings, self.now)
        self.sender.send_due()

    def game(self) -> tuple[str, dict[str, Any]]:
        from sqlalchemy import select

        from judge.store.models_game import Game

        with self.store.unit_of_work() as session:
            phase, position = session.execute(select(Game.phase, Game.position)).one()
            return str(phase), dict(position)

    def sizes(self) -> dict[str, int]:
        """Bytes of the big columns, and of the file after VACUUM."""
        from sqlalchemy import text

        queries = {
            "outbox (sent mail)": "SELECT COALESCE(SUM(LENGTH(raw)), 0) FROM outbox",
            "inbound (raw mail)": "SELECT COALESCE(SUM(LENGTH(raw)), 0) FROM inbound_message",
            "phase records": "SELECT COALESCE(SUM(LENGTH(CAST(position_before AS TEXT)) + LENGTH(CAST(position_after "
                             "AS TEXT)) + LENGTH(CAST(orders AS TEXT)) + LENGTH(CAST(results AS TEXT))), 0) "
                             "FROM phase_record",
            "outbox rows": "SELECT COUNT(*) FROM outbox",
            "largest results mail": "SELECT COALESCE(MAX(LENGTH(raw)), 0) FROM outbox WHERE kind = 'results'",
        }
        with self.store.engine.connect() as connection:
            figures = {name: int(connection.execute(text(sql)).scalar_one()) for name, sql in queries.items()}
        self.store.engine.dispose()  # no pooled connection in the way of VACUUM
        database = sqlite3.connect(self.path, isolation_level=None)
        try:
            database.execute("VACUUM")
            database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            database.close()
        figures["database file"] = self.path.stat().st_size
        return figures


def play(years: int, map_name: str = "standard") -> dict[str, Any]:
    from adjudicator import api
    from bot.randombot import RandomBot
    from judge.store import passwords
    import maps

    passwords._N = 2**8  # set-up and sign-on cost is not what is measured
    variant = maps.load(map_name)
    directory = Path(tempfile.mkdtemp(prefix="growth"))
    judge = Judge(directory)
    judge.send(MASTER, f"CREATE g1 masterpw\nMAP {map_name}\nFORM\n")
    for n in range(len(variant.powers)):
        judge.send(f"player{n}@example.net", f"JOIN g1 pw{n}\n")
    from sqlalchemy import select

    from judge.store.models_game import Membership

    with judge.store.unit_of_work() as session:
        seats = {m.power: m.address for m in session.execute(
            select(Membership).where(Membership.role == "player")).scalars()}
    bot = RandomBot(1)
    phases = 0
    last_year = START.year  # placeholder until the first phase is read
    first_phase, _ = judge.game()
    first_year = int(first_phase[1:5])
    while True:
        phase, position_doc = judge.game()
        if int(phase[1:5]) >= first_year + years:
            break
        from adjudicator.jsonio import position_from_json

        board = api.prepare(variant, position_from_json(variant, position_doc))
        for power in api.requirements(board):
            address = seats[power]
            password = "pw" + address[len("player"):].split("@")[0]
            lines = [order.canonical() for order in bot.orders(board, power)]
            judge.send(address, f"SIGNON {power.lower()}@g1 {password}\n" + "\n".join(lines) + "\n")
        for _ in range(3):  # the settle window, then the phase
            judge.now += timedelta(minutes=5)
            judge.tick()
        assert judge.game()[0] != phase, f"{phase} was not processed"
        phases += 1
        last_year = int(phase[1:5])
    kept = judge.sizes()
    judge.now += timedelta(days=31)
    judge.tick()  # keep_raw_days and keep_sent_days (30 each)
    trimmed = judge.sizes()
    judge.store.dispose()
    played = last_year - first_year + 1
    return {"years": played, "phases": phases, "kept": kept, "after retention": trimmed,
            "per game-year kept": {k: v // played for k, v in kept.items() if "largest" not in k},
            "per game-year after retention": {k: v // played for k, v in trimmed.items() if "largest" not in k}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--years", type=int, default=3, help="game-years to play (default 3)")
    parser.add_argument("--map", default="standard", help="the variant (default standard)")
    args = parser.parse_args()
    figures = play(args.years, args.map)
    figures["map"] = args.map
    figures["machine"] = f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}"
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
