"""Resolving ``module:function`` settings to callables (the worker's and scheduler's hooks),
and importing the modules that a given install may not have."""

from __future__ import annotations

import importlib
from datetime import datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from judge.config import Settings
    from judge.mailio.inbound import ProcessHook
    from judge.store.engine import Store


class HookError(ValueError):
    """A hook setting that names nothing callable; the message quotes it."""


def import_if_present(module_name: str) -> ModuleType | None:
    """The module, or None when it (or a package above it) is not part of this install.

    Only a missing module counts as "not installed": an import error inside an existing
    module is a bug and propagates.
    """
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module_name == missing or module_name.startswith(missing + "."):
            return None
        raise


def resolve_hook(spec: str) -> Callable[..., Any] | None:
    """The callable named by ``spec``; None when its module is not part of this install
    (see :func:`import_if_present`)."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise HookError(f"hook {spec!r} is not of the form module.path:function")
    module = import_if_present(module_name)
    if module is None:
        return None
    target = getattr(module, attribute, None)
    if target is None:
        raise HookError(f"hook {spec!r}: module {module_name} has no {attribute!r}")
    if not callable(target):
        raise HookError(f"hook {spec!r} names {type(target).__name__}, not a function")
    return target


def default_process_hook(settings: "Settings") -> "ProcessHook":
    """The configured ``[worker] handler``; a module that is not installed is an error."""
    hook = resolve_hook(settings.worker.handler)
    if hook is None:
        raise HookError(f"[worker] handler {settings.worker.handler!r}: no such module in this install")
    return hook


DEFAULT_SCHEDULER = "judge.edge.scheduler:run_pass"


def after_commit_hook(settings: "Settings", store: "Store") -> Callable[[frozenset[int], datetime], None] | None:
    """What the worker runs after a mail that made phases ready (judge.daemon.worker): the default
    scheduler's pass for those games; None when ``[scheduler] handler`` is another (its
    passes then decide alone when phases are processed)."""
    if settings.scheduler.handler != DEFAULT_SCHEDULER:
        return None

    def process_ready(game_ids: frozenset[int], now: datetime) -> None:
        # Imported at the first use: a worker process starts without the turn machinery.
        from judge.edge.scheduler import process_games

        process_games(store, settings, now, game_ids)

    return process_ready
