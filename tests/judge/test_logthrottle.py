"""The same warning from the same place is written at most ``burst`` times a window; the
next one after says how many were left out; info lines and other places pass."""

from __future__ import annotations

import io
import logging

from judge.daemon.logthrottle import RepeatFilter


def test_a_repeated_warning_is_cut_to_the_burst_and_the_next_window_counts_what_was_left_out() -> None:
    clock = [0.0]
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RepeatFilter(burst=3, window=60.0, clock=lambda: clock[0]))
    log = logging.getLogger("tests.logthrottle")
    log.addHandler(handler)
    log.propagate = False
    log.setLevel(logging.INFO)
    def refuse(n: int) -> None:  # one place in the code
        log.warning("refused connection %d", n)
    try:
        for n in range(1000):
            refuse(n)
        for n in range(5):
            log.info("ordinary line %d", n)
        log.error("another place")
        clock[0] = 61.0
        refuse(1000)
    finally:
        log.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert lines[:3] == ["refused connection 0", "refused connection 1", "refused connection 2"]
    assert lines[3:8] == [f"ordinary line {n}" for n in range(5)]
    assert lines[8:] == ["another place", "refused connection 1000 [997 more like this left out of the log]"]
