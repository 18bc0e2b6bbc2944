"""``value``: the engine's frozen dataclass, and ``made``: a named tuple built without ``__new__``.

The engine's values are frozen: named tuples where a phase builds dozens (orders, units,
results), frozen slotted dataclasses for the few built once per phase (positions, boards,
adjudications), whose ``__init__`` is the dataclass's own.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True)
def value(*, order: bool = False, eq: bool = True) -> Callable[[type[T]], type[T]]:
    """``@dataclass(frozen=True, slots=True, order=..., eq=...)``."""

    def make(cls: type[T]) -> type[T]:
        return dataclasses.dataclass(frozen=True, slots=True, order=order, eq=eq)(cls)

    return make


# ``made(Cls, (field, ...))``: a named tuple of class ``Cls`` from its fields in order, with
# no Python-level ``__new__`` on the way (about a third of the time of ``Cls(...)``, and
# quicker than a ``functools.partial`` of it); the engine's hot paths build orders, units,
# notes and results so.
made = tuple.__new__
