"""Names each thread of a process started with this folder on its ``PYTHONPATH`` after its
Python thread (``prctl(PR_SET_NAME)``, the first 15 bytes), so /proc/PID/task/*/stat tells
them apart: ``python -m benchmarks.intake_bench --threads`` reads the daemon's CPU per thread.
Only for the benchmark's daemon; the judge itself leaves thread names alone."""

import ctypes
import threading

_PR_SET_NAME = 15
_started = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]


def _named(self: threading.Thread) -> None:
    try:
        ctypes.CDLL(None).prctl(_PR_SET_NAME, self.name[:15].encode("utf-8", "replace"), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl here: the thread keeps its name
        pass
    _started(self)


threading.Thread._bootstrap_inner = _named  # type: ignore[attr-defined]
