"""TEST ONLY: a clock read from a file, so tests can move a running judge through time.

``judge serve --clock-file PATH`` and ``judge tick --clock-file PATH`` take "now" from the
file: one ISO 8601 instant with its offset (``2026-01-05T20:00:00+00:00``).  Time stands
still until the test writes another instant.  Never use it in a deployment: deadlines
would only pass when someone edits the file.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path


class ClockFileError(ValueError):
    """The clock file is missing or does not hold an aware ISO 8601 instant."""


class FileClock:
    """A callable clock returning the instant stored in ``path`` (read on every call)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self()  # fail at start-up, not in a worker thread

    def __call__(self) -> datetime:
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ClockFileError(f"clock file {str(self.path)!r} cannot be read: {exc.strerror}") from None
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ClockFileError(
                f"clock file {str(self.path)!r} holds {text[:60]!r}, not an ISO 8601 instant "
                "such as 2026-01-05T20:00:00+00:00"
            ) from None
        if moment.tzinfo is None:
            raise ClockFileError(f"clock file {str(self.path)!r}: {text!r} has no UTC offset (add +00:00)")
        return moment.astimezone(timezone.utc)


def set_clock(path: str | Path, moment: datetime) -> None:
    """Write ``moment`` (aware) into the clock file atomically (tests)."""
    if moment.tzinfo is None:
        raise ValueError("the clock needs an aware datetime")
    target = Path(path)
    scratch = target.with_name(target.name + ".tmp")
    scratch.write_text(moment.astimezone(timezone.utc).isoformat() + "\n", encoding="utf-8")
    scratch.replace(target)
