"""What the scheduler remembers about a game's current phase between passes.

The turn logic (judge.turns.readiness) needs, per phase, which TIMING WARN reminders have
already gone out and which late powers have already been charged a grace use
(RULE GRACE_BUDGET), and how many late notices went out.  All reset when the phase changes, so the row carries the phase it
belongs to and a row for another phase reads as empty.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base


class TurnProgress(Base):
    """One row per game: the scheduler's memory of the game's current phase."""

    __tablename__ = "turn_progress"

    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), primary_key=True)
    phase: Mapped[str] = mapped_column(String(16))
    # WARN offsets (seconds before the deadline) already sent this phase.
    reminders_sent: Mapped[list[Any]] = mapped_column(default=list)
    # Powers charged one grace use this phase (GRACE_BUDGET).
    graced: Mapped[list[Any]] = mapped_column(default=list)
    # Late notices sent this phase: the first goes to everyone, repeats only to the late
    # powers and the master (as the DPjudge sends them).
    late_notices: Mapped[int] = mapped_column(default=0, server_default="0")
    # The master's PROCESS or PROCESS! of this phase, waiting for the judge's bot's moves:
    # the pass that finds them made processes the phase as the master asked.
    master_process: Mapped[str | None] = mapped_column(String(16))
