"""Repeated log lines, rate-limited: an attack (a flood of connections, a resource run
out) must not fill the disk with the same warning.  Each place in the code that logs a
warning or an error (its logger, file and line) may write ``burst`` lines a ``window``;
the rest are counted, and the next line let through from that place says how many were
left out.  Info and debug lines pass untouched (they are not what floods)."""

from __future__ import annotations

import logging
import time
from typing import Callable


class RepeatFilter(logging.Filter):
    def __init__(self, burst: int = 10, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.burst, self.window, self._clock = burst, window, clock
        self._seen: dict[tuple[str, str, int], tuple[float, int, int]] = {}  # place -> (window start, lines, left out)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        place = (record.name, record.pathname, record.lineno)
        now = self._clock()
        start, lines, left_out = self._seen.get(place, (now, 0, 0))
        if now - start >= self.window:
            start, lines = now, 0
        if lines >= self.burst:
            self._seen[place] = (start, lines, left_out + 1)
            return False
        self._seen[place] = (start, lines + 1, 0)
        if left_out:
            record.msg = f"{record.msg} [{left_out} more like this left out of the log]"
        return True


def install(handler: logging.Handler | None = None) -> None:
    """The filter on ``handler`` (default: every handler of the root logger)."""
    for each in [handler] if handler is not None else logging.getLogger().handlers:
        if not any(isinstance(f, RepeatFilter) for f in each.filters):
            each.addFilter(RepeatFilter())
