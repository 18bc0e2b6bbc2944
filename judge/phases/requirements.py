"""What a phase asks of each power (the engine's ``requirements``), remembered per position.

    phase_requirements(variant, position) -> Mapping[power, Requirement]

A mail with orders asked it four or five times (the order check, the DELAY rule's missing
orders, the reply's "units without orders" and adjustment lines), each time building the
board and walking every unit.  Positions are shared immutable values (one per stored
document: judge.store.queries.position_of), so the answer is kept per position object: an
entry holds its position, so the object cannot be freed and its id reused while the entry
lives.  The engine's answer is wrapped read-only: every caller shares it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from types import MappingProxyType
from typing import Mapping

from adjudicator.api import prepare, requirements
from adjudicator.results import Requirement
from adjudicator.types import Position, Variant

#: Positions remembered (as many as judge.store.queries keeps parsed).
REMEMBERED = 512

_lock = threading.Lock()
_remembered: OrderedDict[int, tuple[Position, Variant, Mapping[str, Requirement]]] = OrderedDict()


def phase_requirements(variant: Variant, position: Position) -> Mapping[str, Requirement]:
    """Who must order what in ``position`` on ``variant``: units to order or retreat, builds
    allowed, removals required (read-only)."""
    key = id(position)
    with _lock:
        entry = _remembered.get(key)
        if entry is not None and entry[0] is position and entry[1] is variant:
            _remembered.move_to_end(key)
            return entry[2]
    due: Mapping[str, Requirement] = MappingProxyType(dict(requirements(prepare(variant, position))))
    with _lock:
        _remembered[key] = (position, variant, due)
        _remembered.move_to_end(key)
        while len(_remembered) > REMEMBERED:
            _remembered.popitem(last=False)
    return due
