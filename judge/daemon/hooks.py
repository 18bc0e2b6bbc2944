"""Resolving ``module:function`` settings to callables (the worker's and scheduler's hooks).

The judge's own hooks are a table of explicit imports (``BUILT_IN``), so the import rules
see those edges; only a module outside the project (an operator's or a test's) is loaded
by its name, and a setting naming another module of the judge is refused, so no edge of
the project hides behind a name.
"""

from __future__ import annotations

import importlib
from datetime import datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Mapping

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


def _process_mail() -> Callable[..., Any]:
    from judge.commands import process_mail

    return process_mail


def _run_pass() -> Callable[..., Any]:
    # Imported at the first use: a worker process starts without the turn machinery.
    from judge.edge.scheduler import run_pass

    return run_pass


def _witness_mail() -> Callable[..., Any]:
    from judge.commands.fair_witness import process_witness_mail

    return process_witness_mail


DEFAULT_WORKER = "judge.commands:process_mail"
DEFAULT_SCHEDULER = "judge.edge.scheduler:run_pass"
#: ``judge serve --role witness``'s worker (the setting it runs with; the one place it is named).
WITNESS_WORKER = "judge.commands.fair_witness:process_witness_mail"
#: The judge's own hooks: the setting's text -> the function that imports the callable.
BUILT_IN: Mapping[str, Callable[[], Callable[..., Any]]] = {
    DEFAULT_WORKER: _process_mail,
    DEFAULT_SCHEDULER: _run_pass,
    WITNESS_WORKER: _witness_mail,
}
#: The project's top-level packages: a hook there must be one of ``BUILT_IN``.
PROJECT_PACKAGES = frozenset({"adjudicator", "bot", "daide", "judge", "mailcmds", "maps", "pictures", "templates"})


def resolve_hook(spec: str) -> Callable[..., Any] | None:
    """The callable named by ``spec``: a built-in hook, or a function of a module outside
    the project; None when that module is not part of this install (see
    :func:`import_if_present`).  A module of the project that is not a built-in hook is
    refused: its edge would be hidden from the import rules."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise HookError(f"hook {spec!r} is not of the form module.path:function")
    if spec in BUILT_IN:
        return BUILT_IN[spec]()
    if module_name.split(".")[0] in PROJECT_PACKAGES:
        raise HookError(f"hook {spec!r}: the judge's own hooks are {', '.join(sorted(BUILT_IN))}; "
                        "another hook must live in a module outside the judge's packages")
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
