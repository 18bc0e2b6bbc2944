"""What the judge keeps for players across games (judge/standing): how each power's orders
came in each phase, and the history of every rating.

A record, a dedication score and a rating are computed from these and from the games
themselves; nothing here is typed in by anyone.  ``rating_entry`` is derived data: `judge
ratings rebuild` empties it and recomputes it from the finished games.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base

# TurnRecord.verdict values.
ON_TIME = "on_time"
LATE = "late"
MISSED = "missed"


class TurnRecord(Base):
    """One power's punctuality in one processed phase that waited for its orders: on time
    (orders in by the deadline), late (in after it) or missed (civil-disorder defaults).
    ``address`` is the seat's at the time, in lower case (a later SET ADDRESS does not
    rewrite history)."""

    __tablename__ = "turn_record"
    __table_args__ = (UniqueConstraint("game_id", "phase", "power"), Index("ix_turn_record_address", "address"))

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    phase: Mapped[str] = mapped_column(String(16))
    power: Mapped[str] = mapped_column(String(32))
    membership_id: Mapped[int | None] = mapped_column(ForeignKey("membership.id"))
    address: Mapped[str] = mapped_column(String(320))
    verdict: Mapped[str] = mapped_column(String(16))


class RatingEntry(Base):
    """A player's rating in one pool (press or gunboat) after one finished game: the
    history of a player is the entries in the order the games were rated (``seq``, one per
    game)."""

    __tablename__ = "rating_entry"
    __table_args__ = (Index("ix_rating_entry_player_pool_seq", "player", "pool", "seq"),
                      Index("ix_rating_entry_pool_latest_rating", "pool", "latest", "rating"))

    id: Mapped[int] = mapped_column(primary_key=True)
    seq: Mapped[int]
    player: Mapped[str] = mapped_column(String(320))
    pool: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), index=True)
    game_name: Mapped[str] = mapped_column(String(64))
    result: Mapped[str] = mapped_column(String(16))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[float] = mapped_column(Float)
    rated_at: Mapped[datetime]
    # The player's current entry in the pool (one per player and pool): RATINGS' top list
    # reads these alone.
    latest: Mapped[bool] = mapped_column(default=True)
