"""benchmarks.scale_bench: layouts as written on its command line, and the population copied
from SQLite into PostgreSQL whole, with its id sequences past the copied rows."""

from __future__ import annotations

import argparse

import pytest
from sqlalchemy import create_engine, func, insert, select

from benchmarks import intake_population, scale_bench
from judge.store.models import load_models
from judge.store.models_game import Game

pytestmark = pytest.mark.postgres


def test_layouts_are_daemons_by_worker_processes() -> None:
    assert [(layout.name, layout.workers) for layout in map(scale_bench.Layout.parse, ("1", "2x0", "1x4", "2x2"))] \
        == [("1x0", 1), ("2x0", 2), ("1x4", 4), ("2x2", 4)]
    for wrong in ("two", "0x1", "1x-1"):
        with pytest.raises(argparse.ArgumentTypeError, match=wrong):
            scale_bench.Layout.parse(wrong)


def test_the_population_is_copied_row_for_row(tmp_path, postgres_url) -> None:  # type: ignore[no-untyped-def]
    population = intake_population.build(tmp_path / "p.db", games=4, traffic_games=1)
    scale_bench.copy_population(population.path, postgres_url)
    source, target = create_engine(f"sqlite:///{population.path}"), create_engine(postgres_url)
    try:
        with source.connect() as sqlite, target.begin() as postgres:
            for table in load_models().metadata.sorted_tables:
                count = select(func.count()).select_from(table)
                assert postgres.scalar(count) == sqlite.scalar(count), table.name
            highest = postgres.scalar(select(func.max(Game.id)))
            row = {**dict(postgres.execute(select(Game.__table__).where(Game.id == highest)).one()._mapping),
                   "name": "fresh"}
            del row["id"]
            new_id = postgres.execute(insert(Game.__table__).values(row).returning(Game.id)).scalar_one()
            assert new_id > highest
    finally:
        source.dispose()
        target.dispose()
