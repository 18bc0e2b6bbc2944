"""Every model module, imported so ``Base.metadata`` is complete (migrations, schema check).

A helper adding tables writes ``judge/store/models_<topic>.py``, lists it here and runs
``python -m judge.store.regen_migration``; tests/judge/test_migrations.py fails until then.
"""

from __future__ import annotations

import importlib

from judge.store.base import Base

MODEL_MODULES: tuple[str, ...] = (
    "judge.store.models_mail",
    "judge.store.models_game",
    "judge.store.models_turns",
    "judge.store.models_sealed",
    "judge.store.models_fair",
    "judge.store.models_hosts",
    "judge.store.models_daide",
    "judge.store.models_signon",
    "judge.store.models_mailauth",
    "judge.store.models_bots",
    "judge.store.models_web",
    "judge.registry.models",
    "judge.store.models_standing",
)


def load_models() -> type[Base]:
    for name in MODEL_MODULES:
        importlib.import_module(name)
    return Base
