"""What every machine player offers, and the pieces they share.

A player is asked for one power's orders in one phase: ``orders(board, power)`` returns
orders the adjudicator accepts for that phase (movement, retreat or adjustment).  A player
is deterministic for its seed: its random choices come from a generator seeded by the
seed, the phase and the power (``phase_rng``), so the order in which it is asked does not
matter and a game replays exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from adjudicator.api import Board
from adjudicator.orders import Order


class Player(Protocol):
    """A machine player; ``name`` is shown in results and benchmarks."""

    @property
    def name(self) -> str:
        """Read only: a frozen player (StrategicBot) is a player too."""
        ...

    def orders(self, board: Board, power: str) -> list[Order]:
        """Legal orders for ``power`` in the board's phase (every unit or requirement covered)."""
        ...


# The default budget: a count of evaluations, so that the bot plays the same for its seed
# and as strongly on a loaded machine as on a quiet one (about what 4 s bought on a quiet
# machine's midgame phases; docs/benchmarks.md), with a wall-time cap that only a very slow
# or loaded machine reaches, so that a DAIDE movement deadline of 20 s is not missed.
DEFAULT_EVALUATIONS = 30_000
SAFETY_SECONDS = 15.0


@dataclass(frozen=True)
class Budget:
    """How long a search may run in one phase: at most ``iterations`` candidate evaluations
    and at most ``seconds`` of wall time (either may be ``None``: no such limit).  A search
    that ends by its iterations is deterministic for its seed; seconds bound the wait on a
    slow machine.  ``Budget()`` is the bot's default: ``DEFAULT_EVALUATIONS`` capped at
    ``SAFETY_SECONDS``."""

    iterations: int | None = DEFAULT_EVALUATIONS
    seconds: float | None = SAFETY_SECONDS

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a budget needs iterations or seconds (or both)")
        if self.iterations is not None and self.iterations < 0:
            raise ValueError(f"iterations must be 0 or more, not {self.iterations}")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError(f"seconds must be more than 0, not {self.seconds}")


def phase_rng(seed: int, board: Board, power: str, salt: str = "") -> random.Random:
    """The generator of one player's choices for ``power`` in the board's phase (a string seed
    is hashed with SHA-512 by ``random``: the same on every run and machine)."""
    return random.Random(f"{seed}/{board.position.phase}/{power}/{salt}")
