"""A game's life: its status and the one table of moves between statuses.

    preparation --FORM--> forming --(every power seated: start)--> active
    active --PAUSE--> paused --RESUME--> active
    active --(solo, draw, concession)--> ended        any but ended --TERMINATE--> ended
    ended --ROLLBACK--> active

Fair power assignment and a blinded assignment run while the game is ``forming`` (their
own progress is in their tables); the kind of ending (won, drawn, terminated) is in the
game's ``outcome``.  Every status change goes through :func:`move`, which refuses a move
the table does not allow with a message that names both statuses.
"""

from __future__ import annotations

import enum
from types import MappingProxyType
from typing import Mapping, Protocol

from judge.refusal import CommandRefused


class GameStatus(str, enum.Enum):
    """The stored value of ``Game.status`` (the string is what the database holds)."""

    PREPARATION = "preparation"
    FORMING = "forming"
    ACTIVE = "active"
    PAUSED = "paused"
    ENDED = "ended"

    def __str__(self) -> str:
        return self.value


PREPARATION, FORMING, ACTIVE, PAUSED, ENDED = GameStatus

#: What each status may become, and the event that moves it (for the refusal's words).
TRANSITIONS: Mapping[GameStatus, Mapping[GameStatus, str]] = MappingProxyType({
    PREPARATION: {FORMING: "FORM", ENDED: "TERMINATE"},
    FORMING: {ACTIVE: "the start", ENDED: "TERMINATE"},
    ACTIVE: {PAUSED: "PAUSE", ENDED: "the end of the game"},
    PAUSED: {ACTIVE: "RESUME", ENDED: "TERMINATE"},
    ENDED: {ACTIVE: "ROLLBACK"},
})

#: How LIST, SUMMARY and replies name each status.
STATUS_TEXT: Mapping[GameStatus, str] = MappingProxyType({
    PREPARATION: "in preparation (the master has not opened it with FORM)",
    FORMING: "forming (waiting for players)",
    ACTIVE: "active",
    PAUSED: "paused by the master",
    ENDED: "ended",
})


def status_text(status: str) -> str:
    """``STATUS_TEXT`` of a stored status (a status this code does not know: as stored)."""
    try:
        return STATUS_TEXT[GameStatus(status)]
    except ValueError:
        return status


class TransitionRefused(CommandRefused):
    """A status change the table does not allow; the message names both statuses."""


class HasStatus(Protocol):
    name: str
    status: str


def may_move(current: str, to: GameStatus) -> bool:
    return to in TRANSITIONS[GameStatus(current)]


def move(game: HasStatus, to: GameStatus) -> None:
    """Set ``game.status`` to ``to`` if the table allows it from the current status.

    The unit of work recomputes the game's next due time when it commits
    (judge/store/schedule.py), so the caller has nothing else to remember."""
    current = GameStatus(game.status)
    if to not in TRANSITIONS[current]:
        allowed = ", ".join(f"{target.value} (by {event})" for target, event in TRANSITIONS[current].items())
        raise TransitionRefused(f"game '{game.name}' is {current.value}: it cannot become {to.value}; "
                                f"from {current.value} it can become {allowed or 'nothing'}")
    game.status = to.value
