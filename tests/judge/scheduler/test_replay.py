"""A known game replayed through the store and the scheduler, every phase compared.

The reference is game 6 of the shipped peer corpus (benchmarks/data/corpus-s1-g12-y10.jsonl,
lines 198-235: ten years played by the ``diplomacy`` package with seeded orders, including
deliberately impossible ones).  Each record holds a phase's position and the orders given;
the next record is the peer's position after it.  The game has none of the documented
disagreements with the peer (benchmarks/known.py), so every phase must match exactly.

The orders go in as each power's stored OrderSet, the clock moves past the deadline, and a
scheduler pass processes the phase (RULE CIVIL_DISORDER: powers that ordered nothing or
not every unit are processed with defaults, as the peer does).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import func, select

from judge.config import Settings
from judge.store.models_game import Game, OrderSet, PhaseRecord
from judge.edge.scheduler import PROCESSED, run_pass
from tests.judge.scheduler.seed import seed_game
from tests.judge.commands.harness import JUDGE
from tests.judge.storage import migrated_store

CORPUS = Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "corpus-s1-g12-y10.jsonl"
FIRST_LINE, LAST_LINE = 198, 235
START = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


def reference_game() -> list[dict]:
    with CORPUS.open(encoding="utf-8") as corpus:
        lines = corpus.read().splitlines()
    return [json.loads(line) for line in lines[FIRST_LINE - 1:LAST_LINE]]


def board(document: dict) -> dict:
    """The comparable part of a position: phase, units, centres, dislodged units and retreats."""
    dislodged = {
        power: sorted((d["unit"], tuple(sorted(d["retreats"]))) for d in entries)
        for power, entries in (document.get("dislodged") or {}).items() if entries
    }
    return {
        "phase": document["phase"],
        "units": {p: sorted(u) for p, u in document["units"].items() if u},
        "centers": {p: sorted(c) for p, c in document["centers"].items() if c},
        "dislodged": dislodged,
    }


def test_every_phase_of_a_known_game_matches_the_reference(tmp_path):
    records = reference_game()
    assert records[0]["phase"] == "S1901M" and records[-1]["phase"] == "W1910A"
    store = migrated_store(tmp_path, "replay.db")
    settings = Settings(judge=JUDGE)
    with store.unit_of_work() as session:
        game = seed_game(session, "replay", START, orders=False)
        game.rules = ["CIVIL_DISORDER"]
        game_id = game.id
    compared = 0
    for record, expected in zip(records, records[1:]):
        with store.unit_of_work(now=START) as session:  # storing orders makes the game due
            game = session.get(Game, game_id)
            assert board(game.position) == board(record), f"before {record['phase']}"
            for power, lines in record["orders"].items():
                session.add(OrderSet(game_id=game_id, phase=game.phase, power=power, orders=lines, submitted_at=START))
            now = game.deadline + timedelta(minutes=1)
        report = run_pass(store, settings, now)
        assert report.count(PROCESSED) == 1, f"{record['phase']}: {report}"
        with store.unit_of_work() as session:
            game = session.get(Game, game_id)
            assert board(game.position) == board(expected), f"after {record['phase']}"
        compared += 1
    with store.unit_of_work() as session:
        assert session.execute(select(func.count()).select_from(PhaseRecord)).scalar() == compared == 37
        phases = session.execute(select(PhaseRecord.phase).order_by(PhaseRecord.id)).scalars().all()
        assert phases == [r["phase"] for r in records[:-1]]
    store.dispose()
