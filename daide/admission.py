"""Who may hold a DAIDE connection: caps on open connections per game, per client address
and in all, shared by every ``GameServer`` of one process (the judge's edge runs one
listener a game, but they draw on one budget of file descriptors).

A connection over a cap is closed at once, before anything is read from it, so a
stranger's flood of idle sockets costs the judge at most ``total`` descriptors and
never the ones mail intake needs (``total_for_limit`` keeps a reserve below the
process's open-file limit).
"""

from __future__ import annotations

import resource
from collections import Counter
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Caps:
    """``total`` connections in all, ``per_game`` to one game's port, ``per_address`` from
    one client address (across games)."""

    total: int = 512
    per_game: int = 32
    per_address: int = 16


def total_for_limit(wanted: int, reserve: int, limit: int | None = None) -> int:
    """``wanted`` connections, or fewer when the open-file limit (default: this process's
    soft RLIMIT_NOFILE) minus ``reserve`` descriptors for mail, the database and logs is
    lower; never below 0."""
    if limit is None:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        limit = soft if soft != resource.RLIM_INFINITY else wanted + reserve
    return max(0, min(wanted, limit - reserve))


class Admission:
    """Counts the open connections; ``admit`` says why one may not open (None: it may) and
    counts it when it may, ``leave`` uncounts it."""

    def __init__(self, caps: Caps = Caps()) -> None:
        self.caps = caps
        self.open = 0
        self._per_game: Counter[object] = Counter()
        self._per_address: Counter[str] = Counter()

    def admit(self, game: object, address: str) -> str | None:
        if self.open >= self.caps.total:
            return f"the judge holds its most DAIDE connections ({self.caps.total})"
        if self._per_game[game] >= self.caps.per_game:
            return f"this game has its most connections ({self.caps.per_game})"
        if self._per_address[address] >= self.caps.per_address:
            return f"{address} holds its most connections ({self.caps.per_address})"
        self.open += 1
        self._per_game[game] += 1
        self._per_address[address] += 1
        return None

    def leave(self, game: object, address: str) -> None:
        self.open -= 1
        _uncount(self._per_game, game)
        _uncount(self._per_address, address)

    def of_address(self, address: str) -> int:
        return self._per_address[address]


def _uncount(counter: Counter[Any], key: object) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]
