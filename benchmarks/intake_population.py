"""A judge database with a realistic population, for the mail-intake benchmark.

One game is played in through the real mail path (CREATE, FORM, seven JOINs, so every
column has the form the commands write); its rows are then copied with bulk inserts
into ``games`` games: forming ones with some players, active ones at a mid-game
position taken from the engine corpus (benchmarks/data) with the phases before it
stored as phase records, and ended ones.  The first ``traffic_games`` active games get
their own real scrypt hashes (one per player, at the production cost), because the
benchmark signs on to them; the others share one real hash (nobody signs on to them,
and hashing 70,000 passwords would take two hours).

    python -m benchmarks.intake_population /tmp/intake.db --games 10000
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

from sqlalchemy import insert, select

CORPUS = Path(__file__).parent / "data" / "corpus-s1-g12-y10.jsonl"
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
JUDGE_ADDRESS = "judge@bench.example"
MASTER_PASSWORD = "masterpw"


@dataclass(frozen=True)
class Seat:
    """One player of a traffic game: who signs on, with what, and which orders are legal."""

    game: str
    power: str
    address: str
    password: str
    orders: tuple[str, ...]  # canonical orders of the corpus for this power's units


@dataclass(frozen=True)
class Population:
    """What the benchmark needs to know about the database it drives."""

    path: Path
    games: int
    seats: tuple[Seat, ...]

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "seats": [s.__dict__ for s in self.seats]}

    @classmethod
    def from_json(cls, path: Path, doc: dict[str, Any]) -> "Population":
        seats = tuple(Seat(**{**s, "orders": tuple(s["orders"])}) for s in doc["seats"])
        return cls(path, int(doc["games"]), seats)


def corpus_records() -> list[dict[str, Any]]:
    with CORPUS.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _phase_history(records: Sequence[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(record, results document, next position) for each corpus phase that has a successor."""
    import maps
    from adjudicator import api, jsonio

    variant = maps.load("standard")
    history = []
    for record, following in zip(records, records[1:]):
        if following["phase"] == "S1901M":
            continue  # the next corpus game starts
        position = jsonio.position_from_json(variant, record)
        orders = {p: api.parse_orders(api.prepare(variant, position), p, lines).orders for p, lines in record["orders"].items()}
        adjudication = api.adjudicate(api.prepare(variant, position), orders)
        results = jsonio.results_to_json(position.phase, adjudication)["results"]
        history.append((record, results, jsonio.position_to_json(adjudication.position)))
    return history


def _position_doc(record: dict[str, Any]) -> dict[str, Any]:
    doc = {"map": "standard", "phase": record["phase"], "units": record["units"], "centers": record["centers"]}
    if record.get("dislodged"):
        doc["dislodged"] = record["dislodged"]
    return doc


def _template(path: Path, now: datetime) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play one game in through the real commands; its game row and membership rows."""
    from judge.config import JudgeSettings
    from judge.commands import process_mail
    from judge.store.engine import Store
    from judge.store.inbound import store_inbound
    from judge.lifecycle import ACTIVE
    from judge.store.models_game import Game, Membership
    from judge.store.schema import upgrade
    from judge.daemon.worker import Worker

    judge = JudgeSettings(address=JUDGE_ADDRESS, domain="bench.example", name="Bench Judge",
                          data_dir=str(path.parent / "judge-data"))
    store = Store(f"sqlite:///{path}")
    try:
        upgrade(store.engine)
        worker = Worker(store, judge, process_mail, clock=lambda: now)
        mails = [("gm@bench.example", f"CREATE template {MASTER_PASSWORD}\nFORM\n")]
        mails += [(f"t{k}@bench.example", f"JOIN template pw{k}\n") for k in range(7)]
        for number, (sender, body) in enumerate(mails):
            raw = (f"From: {sender}\r\nTo: {JUDGE_ADDRESS}\r\nSubject: setup\r\n"
                   f"Message-ID: <setup{number}@bench.example>\r\n\r\n{body}").encode()
            store_inbound(store, raw, mail_from=sender, rcpt_to=[JUDGE_ADDRESS], source="smtp", now=now)
            worker.process_pending()
        with store.unit_of_work() as session:
            game = session.execute(select(Game).where(Game.name == "template")).scalar_one()
            if game.status != ACTIVE:
                raise RuntimeError(f"the template game did not start (status {game.status})")
            game_row = {c.key: getattr(game, c.key) for c in Game.__table__.columns}
            member_rows = [
                {c.key: getattr(m, c.key) for c in Membership.__table__.columns}
                for m in session.execute(select(Membership).where(Membership.game_id == game.id)).scalars()
            ]
        return game_row, member_rows
    finally:
        store.dispose()


def _hash(password: str) -> str:
    from judge.store.passwords import hash_password

    return hash_password(password)


def _chunks(rows: list[dict[str, Any]], size: int = 2000) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


def build(path: Path, games: int = 10_000, traffic_games: int = 40, seed: int = 1) -> Population:
    """Write the database at ``path`` (replaced) and return what the benchmark needs."""
    from judge.store.engine import Store
    from judge.store.models_game import Game, Membership, PhaseRecord

    if traffic_games > games:
        raise ValueError(f"--traffic-games {traffic_games} is more than --games {games}")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    rng = random.Random(seed)
    now = datetime.now(timezone.utc).replace(microsecond=0)
    game_row, member_rows = _template(path, now)
    records = corpus_records()
    history = _phase_history(records)
    movement = [i for i, (record, _, _) in enumerate(history) if record["phase"].endswith("M") and i >= 1]
    shared_hash = _hash("not-signed-on-to")
    seats: list[Seat] = []
    traffic_passwords = [(g, k, f"pw-{g}-{k}") for g in range(traffic_games) for k in range(7)]
    with ProcessPoolExecutor() as pool:
        traffic_hashes = list(pool.map(_hash, [pw for _, _, pw in traffic_passwords], chunksize=8))
    hash_of = {(g, k): h for (g, k, _), h in zip(traffic_passwords, traffic_hashes)}

    game_values: list[dict[str, Any]] = []
    member_values: list[dict[str, Any]] = []
    record_values: list[dict[str, Any]] = []
    template_player = next(m for m in member_rows if m["role"] == "player")
    template_master = next(m for m in member_rows if m["role"] == "master")
    first_id = game_row["id"] + 1
    active_seen = 0
    for index in range(games):
        game_id = first_id + index
        name = f"g{index:05d}"
        roll = rng.random() if index >= traffic_games else 0.5
        kind = "forming" if roll < 0.15 else "ended" if roll > 0.85 else "active"
        values = {**game_row, "id": game_id, "name": name, "version": 1, "created_at": now - timedelta(days=30)}
        values["master_password_hash"] = shared_hash
        at = movement[rng.randrange(len(movement))]
        if kind == "forming":
            values.update(status="forming", position=None, phase=None, deadline=None, next_due_at=None)
            seated = rng.randrange(0, 7)
        else:
            record = history[at][0]
            values.update(position=_position_doc(record), phase=record["phase"])
            seated = 7
            if kind == "active":
                deadline = now + timedelta(days=2, minutes=rng.randrange(0, 2000))
                values.update(status="active", deadline=deadline, next_due_at=deadline)
            else:
                values.update(status="ended", deadline=None, next_due_at=None, ended_at=now - timedelta(days=1),
                              outcome={"result": "draw", "powers": list(POWERS[:3]), "phase": record["phase"]})
            for back in (2, 1):
                earlier, results, after = history[at - back] if at - back >= 0 else history[at]
                record_values.append(dict(
                    game_id=game_id, phase=earlier["phase"],
                    position_before=_position_doc(earlier), orders=earlier["orders"], results=results,
                    position_after=after, digest="0" * 64, processed_at=now - timedelta(days=back),
                ))
        game_values.append(values)
        member_values.append({**template_master, "id": None, "game_id": game_id,
                              "address": f"gm{index}@bench.example", "password_hash": shared_hash})
        traffic = kind == "active" and active_seen < traffic_games
        if kind == "active":
            active_seen += 1
        for k in range(seated):
            power = POWERS[k] if kind != "forming" else None
            address = f"p{index}.{k}@bench.example"
            password = f"pw-{index}-{k}" if traffic else "not-signed-on-to"
            member_values.append({**template_player, "id": None, "game_id": game_id, "power": power,
                                  "address": address, "name": None,
                                  "password_hash": hash_of[(index, k)] if traffic else shared_hash})
            if traffic and power is not None:
                orders = tuple(history[at][0]["orders"].get(power, ()))
                seats.append(Seat(name, power, address, password, orders))
    # Phase records of the same game must not repeat a phase (unique constraint).
    unique_records = {(r["game_id"], r["phase"]): r for r in record_values}
    store = Store(f"sqlite:///{path}")
    try:
        with store.unit_of_work() as session:
            for chunk in _chunks(game_values):
                session.execute(insert(Game), chunk)
            for chunk in _chunks([{k: v for k, v in m.items() if k != "id"} for m in member_values]):
                session.execute(insert(Membership), chunk)
            for chunk in _chunks(list(unique_records.values()), 500):
                session.execute(insert(PhaseRecord), chunk)
    finally:
        store.dispose()
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    population = Population(path, games, tuple(seats))
    Path(f"{path}.population.json").write_text(json.dumps(population.to_json()), encoding="utf-8")
    return population


def load_or_build(path: Path, games: int, traffic_games: int, *, rebuild: bool = False) -> Population:
    """Reuse the database at ``path`` when it was built with the same sizes."""
    meta = Path(f"{path}.population.json")
    if not rebuild and path.exists() and meta.exists():
        population = Population.from_json(path, json.loads(meta.read_text(encoding="utf-8")))
        if population.games == games and len({s.game for s in population.seats}) == traffic_games:
            return population
    return build(path, games, traffic_games)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--traffic-games", type=int, default=40)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    population = build(args.path, args.games, args.traffic_games)
    print(f"{population.games} games, {len(population.seats)} signed-on seats, "
          f"{args.path.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
