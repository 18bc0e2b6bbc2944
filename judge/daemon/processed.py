"""What a processed mail did that ``judge serve`` acts on, whichever worker processed it
(its thread, or a worker process that says so in its processed byte,
judge.daemon.worker_process): wake the scheduler when the mail's phase pass ran, the
bot processes when a bot job was stored."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable


@dataclass(frozen=True)
class Processed:
    """What one or more processed mails did (``a | b``: what either did)."""

    phases_processed: bool = False  # a phase pass ran after the mail: due times may be nearer
    bot_jobs_stored: bool = False

    def __or__(self, other: "Processed") -> "Processed":
        return Processed(self.phases_processed or other.phases_processed, self.bot_jobs_stored or other.bot_jobs_stored)


class PhasePasses:
    """The worker's after-commit hook (the pass for the phases a mail made ready), noting
    whether it ran since the last look."""

    def __init__(self, hook: Callable[[frozenset[int], datetime], None] | None) -> None:
        self._hook = hook
        self._ran = False
        self.hook = None if hook is None else self._run

    def _run(self, games: frozenset[int], now: datetime) -> None:
        self._ran = True  # even if it fails: what it stored before is committed
        assert self._hook is not None
        self._hook(games, now)

    def ran(self) -> bool:
        ran, self._ran = self._ran, False
        return ran
