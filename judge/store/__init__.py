"""The judge's database: typed models, ``Store.unit_of_work()``, Alembic migrations.

Import models from their modules (``judge.store.models_mail``, ``models_game``, ...);
``judge.store.models.load_models()`` imports them all.
"""

from judge.store.base import Base
from judge.store.engine import Store, make_engine
from judge.store.schema import SchemaNotCurrent, check_schema, upgrade

__all__ = ["Base", "Store", "make_engine", "SchemaNotCurrent", "check_schema", "upgrade"]
