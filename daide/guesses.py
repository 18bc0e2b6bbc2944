"""How often a wrong IAM may be tried: a DAIDE passcode is one of 8,191 numbers, so an
unlimited IAM finds a seat's passcode in seconds.  Each key (a game's power, a client
address) gets ``free`` wrong tries; after that every further try must wait a lock that
starts at ``first_lock`` seconds and doubles with each wrong try, up to ``longest_lock``.
A right IAM, or ``forget_after`` seconds without a wrong one, clears the key.

With the defaults the steady rate on one power is one guess an hour, so the expected time
to hit a passcode (about 4,096 tries) is some 24 weeks (docs/daide.md, "Passcodes").
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Hashable

MAX_KEYS = 100_000


@dataclass(frozen=True)
class GuessPolicy:
    free: int = 3
    first_lock: float = 60.0
    longest_lock: float = 3600.0
    forget_after: float = 86400.0

    def lock_after(self, wrong: int) -> float:
        """Seconds to wait after the ``wrong``-th wrong try."""
        if wrong < self.free:
            return 0.0
        return min(self.longest_lock, self.first_lock * 2.0 ** min(wrong - self.free, 32))


class Guesses:
    """Wrong tries per key, in memory (a restart forgets them, as it forgets the connections)."""

    def __init__(self, policy: GuessPolicy = GuessPolicy(), clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy
        self._clock = clock
        self._wrong: dict[Hashable, tuple[int, float]] = {}  # key -> (wrong tries, when the last was)

    def wait(self, key: Hashable) -> float:
        """Seconds before ``key`` may try again (0: now)."""
        count, last = self._current(key)
        return max(0.0, last + self.policy.lock_after(count) - self._clock()) if count else 0.0

    def wrong(self, key: Hashable) -> None:
        count, _ = self._current(key)
        self._wrong[key] = (count + 1, self._clock())
        if len(self._wrong) > MAX_KEYS:  # many addresses: the memory stays bounded, the oldest go
            for stale in sorted(self._wrong, key=lambda k: self._wrong[k][1])[:MAX_KEYS // 2]:
                del self._wrong[stale]

    def right(self, key: Hashable) -> None:
        self._wrong.pop(key, None)

    def _current(self, key: Hashable) -> tuple[int, float]:
        found = self._wrong.get(key)
        if found is None:
            return 0, 0.0
        if self._clock() - found[1] >= self.policy.forget_after:
            del self._wrong[key]
            return 0, 0.0
        return found
