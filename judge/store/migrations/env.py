"""Alembic environment: runs on the engine handed over by judge.store.schema."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from judge.store.models import load_models

target_metadata = load_models().metadata
config = context.config


def _run() -> None:
    engine = config.attributes.get("engine")
    if engine is None:
        url = config.get_main_option("sqlalchemy.url")
        if url is None:
            raise SystemExit("no database to migrate: run `judge db upgrade` (or give alembic a sqlalchemy.url)")
        engine = create_engine(url)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; run `judge db upgrade`")
_run()
