"""Alembic, run from code: upgrade to head, and check that a database is current.

The migration scripts ship inside the package (judge/store/migrations); no alembic.ini
is needed at run time.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


class SchemaNotCurrent(RuntimeError):
    """The database is empty or older than this code; the message names the fix."""


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # env.py takes this engine instead of building one from a URL.
    config.attributes["engine"] = engine
    return config


def head_revision() -> str | None:
    script = ScriptDirectory(str(MIGRATIONS_DIR))
    return script.get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    command.upgrade(alembic_config(engine), revision)


def is_empty(engine: Engine) -> bool:
    """True for a database without any table (a brand-new file or database)."""
    from sqlalchemy import inspect

    return not inspect(engine).get_table_names()


def check_schema(engine: Engine) -> None:
    """Raise ``SchemaNotCurrent`` unless the database is at the code's head revision."""
    head = head_revision()
    current = current_revision(engine)
    if current == head:
        return
    where = engine.url.render_as_string(hide_password=True)
    if current is None:
        raise SchemaNotCurrent(
            f"the database {where} has no judge schema yet; "
            "run `judge db upgrade` (with the same --config) first"
        )
    raise SchemaNotCurrent(
        f"the database {where} is at schema revision {current}, this judge needs {head}; "
        "run `judge db upgrade` (with the same --config) first"
    )
