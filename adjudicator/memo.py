"""``per_variant``: derived data of a map, built once and kept while the map lives.

The engine's tables (``tables_for``), canonical forms (``forms_for``) and order
parser (``parser_for``) are computed from an immutable ``Variant`` only, so keeping
them for as long as that variant object lives keeps every engine function pure (same
inputs, same outputs).  They are looked up once or twice per phase: the memo is a plain
dict keyed by the variant's ``id`` (a C-level lookup), each entry holding a weak
reference that removes it when the variant is collected, before its ``id`` can be
reused.  (``Tables`` refers to its variant, so a variant whose tables were built lives
as long as the process: callers keep one ``Variant`` per map, as
``judge.store.queries.variant_named`` and ``judge adjudicate`` do.)
"""

from __future__ import annotations

import weakref
from typing import Callable, TypeVar

from adjudicator.types import Variant

T = TypeVar("T")


def per_variant(build: Callable[[Variant], T]) -> Callable[[Variant], T]:
    """``build(variant)``, memoised per variant object (see the module docstring)."""
    kept: dict[int, tuple[weakref.ref[Variant], T]] = {}

    def derived(variant: Variant) -> T:
        entry = kept.get(id(variant))
        if entry is not None and entry[0]() is variant:
            return entry[1]
        value = build(variant)
        key = id(variant)
        kept[key] = (weakref.ref(variant, lambda _: kept.pop(key, None)), value)
        return value

    derived.__name__ = build.__name__
    derived.__doc__ = build.__doc__
    return derived
