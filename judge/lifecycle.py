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
from typing import Callable, Final, Mapping, Protocol

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


_S = GameStatus

# The stored strings, for comparing with ``Game.status`` and for queries; this module is
# the only one that names them (tests/test_structure.py checks).
PREPARATION: Final = _S.PREPARATION.value
FORMING: Final = _S.FORMING.value
ACTIVE: Final = _S.ACTIVE.value
PAUSED: Final = _S.PAUSED.value
ENDED: Final = _S.ENDED.value

#: What each status may become, and the event that moves it (for the refusal's words).
TRANSITIONS: Mapping[GameStatus, Mapping[GameStatus, str]] = MappingProxyType({
    _S.PREPARATION: {_S.FORMING: "FORM", _S.ENDED: "TERMINATE"},
    _S.FORMING: {_S.ACTIVE: "the start", _S.ENDED: "TERMINATE"},
    _S.ACTIVE: {_S.PAUSED: "PAUSE", _S.ENDED: "the end of the game"},
    _S.PAUSED: {_S.ACTIVE: "RESUME", _S.ENDED: "TERMINATE"},
    _S.ENDED: {_S.ACTIVE: "ROLLBACK"},
})

#: How LIST, SUMMARY and replies name each status.
STATUS_TEXT: Mapping[GameStatus, str] = MappingProxyType({
    _S.PREPARATION: "in preparation (the master has not opened it with FORM)",
    _S.FORMING: "forming (waiting for players)",
    _S.ACTIVE: "active",
    _S.PAUSED: "paused by the master",
    _S.ENDED: "ended",
})


# What each status permits.  Code elsewhere asks one of these (or compares with a single
# status); it never lists statuses itself, so a new status is placed here once.

def before_start(status: str) -> bool:
    """Not started yet (preparation, forming): seats are taken and given up, powers
    reserved, the game's settings still change, no board exists."""
    return status in (PREPARATION, FORMING)


def in_play(status: str) -> bool:
    """Started and not over (active, paused): there is a board, orders, draw votes and
    the timing apply; a pause only stops the clock."""
    return status in (ACTIVE, PAUSED)


def is_live(status: str) -> bool:
    """Not ended: the game keeps its DAIDE port and its seats."""
    return status != ENDED


def seats_players(status: str) -> bool:
    """Players sit at the board (forming or in play): machines connect and take powers."""
    return status == FORMING or in_play(status)


def statuses_where(permits: Callable[[str], bool]) -> tuple[str, ...]:
    """The stored statuses for which ``permits`` holds, for a query's ``IN``."""
    return tuple(status.value for status in GameStatus if permits(status.value))


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


def may_move(current: str, to: GameStatus | str) -> bool:
    return GameStatus(to) in TRANSITIONS[GameStatus(current)]


def move(game: HasStatus, to: GameStatus | str) -> None:
    """Set ``game.status`` to ``to`` if the table allows it from the current status.

    The unit of work recomputes the game's next due time when it commits
    (judge/store/schedule.py), so the caller has nothing else to remember."""
    to = GameStatus(to)
    current = GameStatus(game.status)
    if to not in TRANSITIONS[current]:
        allowed = ", ".join(f"{target.value} (by {event})" for target, event in TRANSITIONS[current].items())
        raise TransitionRefused(f"game '{game.name}' is {current.value}: it cannot become {to.value}; "
                                f"from {current.value} it can become {allowed or 'nothing'}")
    game.status = to.value
