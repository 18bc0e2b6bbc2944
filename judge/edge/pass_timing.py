"""When the daemon's next scheduler pass runs: at the next thing due, to the second.

A pass stores each game's exact next due time (deadline, WARN reminder, end of grace,
end of the settle DELAY: judge.turns.next_due), so the earliest due time after now is the
moment the next pass must run.  A mail that changes a game marks it due at once
(judge/store/schedule.py) without knowing its exact time, and so hides a due time the
pass had stored; the planner therefore remembers the earliest time it saw until a pass
has run, and gives such touched games a pass within ``touched_seconds`` of the last one (a
deadline moved earlier by mail is found then).  The tick stays the safety net: no wait is
longer than ``tick_seconds``.  ``PassPlanner`` is pure; ``due_outlook`` reads the index.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, bindparam, func, select

from judge.store.models_game import Game
from judge.store.times import as_utc


@dataclass(frozen=True)
class DueOutlook:
    """What the due-time index says at one instant."""

    #: The earliest stored due time after that instant (a pass computed it), if any.
    earliest_future: datetime | None
    #: Some game is due at or before that instant (touched by mail, or its time came).
    touched: bool


# Built once: the daemon reads the outlook after every processed mail.
_EARLIEST_FUTURE = select(func.min(Game.next_due_at)).where(Game.next_due_at > bindparam("now"))
_ANY_DUE = select(Game.id).where(Game.next_due_at <= bindparam("now")).limit(1)


def due_outlook(connection: Connection, now: datetime) -> DueOutlook:
    """Two reads of the due-time index (``game.next_due_at``), nothing else; ``connection``
    needs no write turn (``Store.reading``)."""
    earliest = connection.scalar(_EARLIEST_FUTURE, {"now": now})
    touched = connection.scalar(_ANY_DUE, {"now": now}) is not None
    return DueOutlook(earliest_future=as_utc(earliest) if earliest is not None else None, touched=touched)


@dataclass
class PassPlanner:
    """The daemon scheduler's memory between passes: when the next one runs."""

    tick_seconds: float
    touched_seconds: float
    #: The earliest due time seen since the last pass (a touch may hide it in the index).
    remembered: datetime | None = None

    def next_pass_at(self, now: datetime, last_pass: datetime | None, outlook: DueOutlook | None) -> datetime:
        """The instant of the next pass, never later than a tick after ``now``.

        ``last_pass`` None: no pass yet (touched games are looked at at once).  ``outlook``
        None (the store could not be read) leaves the remembered time and the tick."""
        if outlook is not None and outlook.earliest_future is not None:
            if self.remembered is None or outlook.earliest_future < self.remembered:
                self.remembered = outlook.earliest_future
        candidates = [now + timedelta(seconds=self.tick_seconds)]
        if self.remembered is not None:
            candidates.append(self.remembered)
        if outlook is not None and outlook.touched:
            candidates.append(now if last_pass is None else last_pass + timedelta(seconds=self.touched_seconds))
        return min(candidates)

    def passed(self) -> None:
        """A pass ran: every due time it found is stored again, exactly."""
        self.remembered = None
