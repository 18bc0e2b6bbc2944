"""The shipped migration and the models must agree; serve refuses an outdated schema.

If this fails after you changed or added a model: ``python -m judge.store.regen_migration``.
"""

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
