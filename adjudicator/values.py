"""``value``: the engine's frozen dataclass, built with a faster ``__init__``.

A movement phase builds a few dozen frozen values (orders, units, results).  The
``__init__`` that ``dataclasses`` writes for a frozen class stores each field with
``object.__setattr__`` looked up anew per field; storing through the slot's own
descriptor does the same thing in about two thirds of the time.  Everything else
(equality, hashing, ordering, repr, immutability, ``dataclasses.replace``) is the
dataclass's own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_MISSING = dataclasses.MISSING


def value(*, order: bool = False, eq: bool = True) -> Callable[[type[T]], type[T]]:
    """``@dataclass(frozen=True, slots=True, order=..., eq=...)`` with the quick ``__init__``
    (which calls ``__post_init__`` last, as the dataclass's does).  Not for default factories."""

    def make(cls: type[T]) -> type[T]:
        made = dataclasses.dataclass(frozen=True, slots=True, order=order, eq=eq)(cls)
        made.__init__ = _quick_init(made)  # type: ignore[misc]
        return made

    return make


def _quick_init(cls: type) -> Callable[..., None]:
    fields = dataclasses.fields(cls)
    namespace: dict[str, Any] = {}
    parameters: list[str] = []
    body: list[str] = []
    for number, field in enumerate(fields):
        if field.default_factory is not _MISSING or not field.init:
            raise TypeError(f"{cls.__name__}.{field.name} has a default factory or is not an __init__ parameter: use dataclasses.dataclass")
        if field.default is _MISSING:
            parameters.append(field.name)
        else:
            namespace[f"_default_{number}"] = field.default
            parameters.append(f"{field.name}=_default_{number}")
        namespace[f"_store_{number}"] = cls.__dict__[field.name].__set__  # the slot's member descriptor
        body.append(f"    _store_{number}(self, {field.name})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # the same technique dataclasses uses to write __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


# ``made(Cls, (field, ...))``: a named tuple of class ``Cls`` from its fields in order, with
# no Python-level ``__new__`` on the way (about a third of the time of ``Cls(...)``, and
# quicker than a ``functools.partial`` of it); the engine's hot paths build orders, units and
# results so.
made = tuple.__new__
