"""The frozen values the standing computations read: finished games seat by seat, and
punctuality counts."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime


class Pool(str, enum.Enum):
    """Ratings are kept apart for games with press and gunboat (no-press) games."""

    PRESS = "press"
    GUNBOAT = "gunboat"


class Result(str, enum.Enum):
    """How one player's part in a finished game ended."""

    SOLO = "solo"  # won alone (a concession counts as one)
    DRAW = "draw"  # in the passed draw
    SURVIVED = "survived"  # still on the board, not in the draw or the winner
    ELIMINATED = "eliminated"  # no centre and no unit at the end
    ABANDONED = "abandoned"  # resigned, ejected or dismissed before the end


#: Order of merit, best first: the rating's ranks (ties share a rank).
RESULT_RANK: dict[Result, int] = {
    Result.SOLO: 1, Result.DRAW: 1, Result.SURVIVED: 2, Result.ELIMINATED: 3, Result.ABANDONED: 4,
}


@dataclass(frozen=True, slots=True)
class Seat:
    """One player's part in a finished game: the power, how it ended, and for a draw how
    many shared it (``draw_size``; 0 otherwise)."""

    player: str
    power: str
    result: Result
    draw_size: int = 0

    @property
    def draw_share(self) -> float:
        return 1.0 / self.draw_size if self.result is Result.DRAW and self.draw_size else 0.0


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A game that ended in a solo, a draw or a concession, as the rating reads it."""

    game_id: int
    name: str
    ended_at: datetime
    pool: Pool
    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class Punctuality:
    """Phases that waited for a player's orders: in by the deadline, in after it, never in
    (civil-disorder defaults)."""

    on_time: int = 0
    late: int = 0
    missed: int = 0

    @property
    def turns(self) -> int:
        return self.on_time + self.late + self.missed

    def __add__(self, other: Punctuality) -> Punctuality:
        return Punctuality(self.on_time + other.on_time, self.late + other.late, self.missed + other.missed)
