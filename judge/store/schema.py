"""Alembic, run from code: upgrade to head, and check that a database is current.

The migration scripts ship inside the package (judge/store/migrations); no alembic.ini
is needed at run time.  Checking is done without Alembic: ``judge serve`` checks at every
start, and Alembic with what it imports (Mako, Pygments) stays in the process for good,
about 11 MiB of its memory (docs/benchmarks.md, "Memory of judge serve").  Alembic is
imported only to upgrade.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, inspect, text

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
#: Alembic's table of the revision a database is at (env.py keeps Alembic's default name).
VERSION_TABLE = "alembic_version"


class SchemaNotCurrent(RuntimeError):
    """The database is empty or older than this code; the message names the fix."""


def alembic_config(engine: Engine) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # env.py takes this engine instead of building one from a URL.
    config.attributes["engine"] = engine
    return config


def _revision_lines(path: Path) -> tuple[str, tuple[str, ...]]:
    """A migration script's ``revision`` and the revisions it revises (its ``down_revision``:
    none, one, or several for a merge), read from its assignments without running it."""
    found: dict[str, Any] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target: ast.expr
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
            found[target.id] = ast.literal_eval(value)
    revision, down = str(found["revision"]), found.get("down_revision")
    if down is None:
        return revision, ()
    return revision, (down,) if isinstance(down, str) else tuple(map(str, down))


def head_revision() -> str | None:
    """The revision the shipped migrations end at: the one no other revises.  Several
    would be a broken chain (two branches' revisions after one head): an error."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in (MIGRATIONS_DIR / "versions").glob("*.py"):
        revision, down = _revision_lines(path)
        revisions.add(revision)
        revised.update(down)
    heads = sorted(revisions - revised)
    if len(heads) > 1:
        raise RuntimeError(f"the shipped migrations have several heads: {', '.join(heads)}")
    return heads[0] if heads else None


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at; None for one Alembic never upgraded."""
    with engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return None
        rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    if len(rows) > 1:
        raise RuntimeError(f"the database is at several revisions at once: {', '.join(rows)}")
    return rows[0] if rows else None


def upgrade(engine: Engine, revision: str = "head") -> None:
    from alembic import command

    command.upgrade(alembic_config(engine), revision)


def is_empty(engine: Engine) -> bool:
    """True for a database without any table (a brand-new file or database)."""
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
