"""The judge's own bot as queued work: one ``BotJob`` per power and position that needs the
bot's moves (a seat the master gave it with ``SEAT power BOT``, or a power in civil
disorder under RULE CD_BOT).

A job is stored by the transaction that finds the moves missing (the phase is then left
for later), claimed by a bot process (judge/daemon/bot_worker.py) like an outbox lease
(``claimed_by`` names a ``LeaseOwner``; the leases of a process that is gone are given
back), and finished once: ``done_at`` is set by a guarded update in the transaction that
stores its lines, which also makes the game due so the phase is processed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base


class BotJob(Base):
    """One power's moves in one position, by the judge's bot."""

    __tablename__ = "bot_job"
    # One job per game, position and power: asking again for the same moves finds it.
    __table_args__ = (
        UniqueConstraint("game_id", "digest", "power"),
        Index("ix_bot_job_waiting", "done_at", "claimed_by", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    phase: Mapped[str] = mapped_column(String(16))
    power: Mapped[str] = mapped_column(String(32))
    digest: Mapped[str] = mapped_column(String(64))  # adjudicator.api.position_digest of ``position``
    map_name: Mapped[str] = mapped_column(String(64))
    position: Mapped[dict[str, Any]]  # the contract's JSON: the bot needs nothing else of the game
    seed: Mapped[int]
    created_at: Mapped[datetime]
    claimed_by: Mapped[str | None] = mapped_column(String(32))  # a LeaseOwner id while a process thinks
    claimed_at: Mapped[datetime | None]
    # Claims so far: a job whose process died [bots] max_attempts times is given up (no lines).
    attempts: Mapped[int] = mapped_column(default=0, server_default="0")
    done_at: Mapped[datetime | None]
    lines: Mapped[list[Any] | None]  # the canonical order lines; None with done_at: given up
