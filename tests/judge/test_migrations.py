"""The shipped migration and the models must agree; serve refuses an outdated schema.

If this fails after you changed or added a model: ``python -m judge.store.regen_migration``.
"""

import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text

from judge.store.engine import Store
from judge.store.models import load_models
from judge.store.schema import SchemaNotCurrent, check_schema, head_revision, upgrade


def schema_differences(engine):
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, load_models().metadata)


def test_migration_matches_models_on_sqlite(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'j.db'}")
    upgrade(store.engine)
    differences = schema_differences(store.engine)
    store.dispose()
    assert differences == [], (
        "the models differ from the migration; run `python -m judge.store.regen_migration`:\n"
        + "\n".join(map(str, differences))
    )


def test_upgrade_is_idempotent(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'j.db'}")
    upgrade(store.engine)
    upgrade(store.engine)
    check_schema(store.engine)
    store.dispose()


def test_alembic_run_on_its_own_needs_a_database_url(tmp_path):
    # env.py builds an engine from sqlalchemy.url when judge.store.schema hands it none.
    from alembic import command
    from alembic.config import Config

    from judge.store.schema import MIGRATIONS_DIR

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with pytest.raises(SystemExit, match="no database to migrate: run `judge db upgrade`"):
        command.upgrade(config, "head")
    config.set_main_option("sqlalchemy.url", f"sqlite:///{tmp_path / 'j.db'}")
    command.upgrade(config, "head")
    store = Store(f"sqlite:///{tmp_path / 'j.db'}")
    check_schema(store.engine)
    store.dispose()


def test_empty_database_is_refused_naming_the_command(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'j.db'}")
    with pytest.raises(SchemaNotCurrent, match="judge db upgrade"):
        check_schema(store.engine)
    store.dispose()


def test_old_schema_is_refused_naming_both_revisions(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'j.db'}")
    upgrade(store.engine)
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0000old'"))
    with pytest.raises(SchemaNotCurrent) as caught:
        check_schema(store.engine)
    store.dispose()
    assert "0000old" in str(caught.value) and str(head_revision()) in str(caught.value)
    assert "judge db upgrade" in str(caught.value)


def test_revision_0002_keeps_the_rows_of_0001(tmp_path):
    """Upgrading a 0001 database in place keeps its outbox rows (leased_by starts empty)."""
    store = Store(f"sqlite:///{tmp_path / 'j.db'}")
    upgrade(store.engine, "0001")
    with store.engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO outbox (mail_from, recipients, raw, kind, status, attempts, next_attempt_at, created_at) "
            "VALUES ('j@x', '[\"a@x\"]', x'00', 'reply', 'queued', 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00')"))
    upgrade(store.engine)
    check_schema(store.engine)
    with store.engine.connect() as connection:
        rows = connection.execute(text("SELECT status, leased_by FROM outbox")).all()
        tables = set(connection.dialect.get_table_names(connection))
    store.dispose()
    assert [tuple(r) for r in rows] == [("queued", None)]
    assert {"lease_owner", "judge_key"} <= tables


def test_judge_db_upgrade_takes_a_0001_database_to_the_head_with_its_data(tmp_path):
    """The previous release's schema (0001, with a game in it) upgraded by the command an
    operator runs; ``judge db status`` names the database (never its password)."""
    import os
    import subprocess
    import sys

    path = tmp_path / "j.db"
    store = Store(f"sqlite:///{path}")
    upgrade(store.engine, "0001")
    with store.engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO game (name, master_password_hash, map_name, rules, timing, zone, private, description, "
            "status, created_at, version, delay) VALUES ('g1', 'x', 'standard', '[]', '{}', 'UTC', 0, 'kept', "
            "'forming', '2026-01-01 00:00:00', 1, 0)"))
    store.dispose()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")} | {"JUDGE_STORE_URL": f"sqlite:///{path}"}

    def judge(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "judge.cli", *args], capture_output=True, text=True, env=env)

    before = judge("db", "status")
    assert before.returncode == 1 and "0001" in before.stdout + before.stderr and str(path) in before.stdout + before.stderr
    done = judge("db", "upgrade")
    assert done.returncode == 0 and f"upgraded from 0001 to revision {head_revision()}" in done.stdout
    assert judge("db", "status").returncode == 0
    store = Store(f"sqlite:///{path}")
    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT name, description FROM game")).all() == [("g1", "kept")]
    store.dispose()
    secret = {"JUDGE_STORE_URL": "postgresql+psycopg://judge:s3cret@127.0.0.1:1/none"}
    hidden = subprocess.run([sys.executable, "-m", "judge.cli", "db", "status"], capture_output=True, text=True,
                            env=env | secret)
    assert "s3cret" not in hidden.stdout + hidden.stderr and "judge:***@127.0.0.1" in hidden.stdout + hidden.stderr


def test_the_revisions_form_one_chain_numbered_in_order():
    """Branches that each add a revision after the same head leave two heads; the one who
    merges second renumbers and re-chains (docs/design.md).  File numbers follow the chain."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from judge.store.schema import MIGRATIONS_DIR

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    scripts = ScriptDirectory.from_config(config)
    assert len(scripts.get_heads()) == 1, f"several heads: {scripts.get_heads()}"
    assert head_revision() == scripts.get_current_head()  # the check's own reading of the scripts
    chain = [revision for revision in scripts.walk_revisions()][::-1]  # base first
    numbers = [int(revision.path.rsplit("/", 1)[1][:4]) for revision in chain]
    assert numbers == list(range(1, len(chain) + 1)), numbers


def test_checking_a_schema_imports_no_alembic(tmp_path):
    """``judge serve`` checks the schema at every start; Alembic (with Mako and Pygments)
    would stay in its memory for good (judge/store/schema.py)."""
    url = f"sqlite:///{tmp_path / 'j.db'}"
    store = Store(url)
    upgrade(store.engine)
    store.dispose()
    probe = ("import sys; from judge.store import Store, check_schema; "
             f"check_schema(Store({url!r}).engine); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('alembic', 'mako', 'pygments')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
