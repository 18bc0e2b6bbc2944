"""judge.phases.bot_moves.StoredJobsWatch: says once that this process stored a bot job since
the last look; each watch on its own."""

from __future__ import annotations

from judge.phases.bot_moves import StoredJobsWatch, _StoredJobs


def test_a_watch_says_once_that_jobs_were_stored() -> None:
    stored = _StoredJobs()
    stored.add(2)
    watch = StoredJobsWatch(stored)  # what was stored before it was made is not news
    assert not watch.moved()
    stored.add(1)
    assert watch.moved() and not watch.moved()
    other = StoredJobsWatch(stored)
    stored.add(1)
    assert watch.moved() and other.moved()

