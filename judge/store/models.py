"""Every model module, imported so ``Base.metadata`` is complete (migrations, schema check).

A helper adding tables writes ``judge/store/models_<topic>.py``, imports it here and runs
``python -m judge.store.regen_migration``; tests/judge/test_migrations.py fails until then.
"""

from __future__ import annotations

from types import ModuleType

from judge.store import (models_bots, models_daide, models_fair, models_game, models_hosts, models_mail,
                         models_mailauth, models_registry, models_sealed, models_signon, models_standing,
                         models_turns, models_web)
from judge.store.base import Base

MODEL_MODULES: tuple[ModuleType, ...] = (
    models_mail,
    models_game,
    models_turns,
    models_sealed,
    models_fair,
    models_hosts,
    models_daide,
    models_signon,
    models_mailauth,
    models_bots,
    models_web,
    models_registry,
    models_standing,
)


def load_models() -> type[Base]:
    """The declarative base, with every model module's tables in its metadata (they are
    imported with this module)."""
    return Base
