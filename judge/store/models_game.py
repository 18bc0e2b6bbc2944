"""Game tables: games, who is in them, orders, processed phases, press.

Positions are stored as the JSON of shared/contracts/adjudicate.md
(``adjudicator.jsonio.position_to_json``), so a stored game can always be re-checked with
``judge adjudicate``.  Later features (keys, commitments, lotteries) add their own model
modules rather than widening these tables.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from judge.lifecycle import FORMING
from judge.store.base import Base

# Game statuses, what each permits and the moves between them are judge/lifecycle.py's.

# Membership roles and statuses.
PLAYER = "player"
MASTER = "master"
OBSERVER = "observer"
MEMBER_ACTIVE = "active"
RESIGNED = "resigned"
DISMISSED = "dismissed"  # dismissed by the judge when grace ran out
EJECTED = "ejected"  # removed by the master (EJECT)
DUMMY = "dummy"


class Game(Base):
    """A game and its current state.

    ``version`` is SQLAlchemy's version counter: every UPDATE of a game row says
    ``WHERE version = <the version read>`` and raises ``StaleDataError`` when another
    transaction got there first.  That guards phase processing on SQLite as well as on
    PostgreSQL (where a row lock, ``with_for_update()``, can be taken too).
    ``next_due_at`` is when the scheduler must look at the game next (deadline, reminder,
    delay step); NULL means never, so an idle pass touches only due games.
    """

    __tablename__ = "game"
    __table_args__ = (Index("ix_game_created_by_at", "created_by", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    master_password_hash: Mapped[str] = mapped_column(String(200))
    map_name: Mapped[str] = mapped_column(String(64), default="standard")
    rules: Mapped[list[Any]] = mapped_column(default=list)
    timing: Mapped[dict[str, Any]] = mapped_column(default=dict)
    zone: Mapped[str] = mapped_column(String(64), default="UTC")
    private: Mapped[bool] = mapped_column(default=False)
    # Hash of the PRIVATE keyword players must add to JOIN / OBSERVE / TAKEOVER.
    privacy_hash: Mapped[str | None] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    list_address: Mapped[str | None] = mapped_column(String(320))
    status: Mapped[str] = mapped_column(String(16), default=FORMING, index=True)
    position: Mapped[dict[str, Any] | None]
    phase: Mapped[str | None] = mapped_column(String(16))
    deadline: Mapped[datetime | None]
    # When PAUSE stopped the clock (NULL: not paused); RESUME moves the deadline on by the
    # time paused.
    paused_at: Mapped[datetime | None]
    delay: Mapped[int] = mapped_column(default=0)
    next_due_at: Mapped[datetime | None] = mapped_column(index=True)
    outcome: Mapped[dict[str, Any] | None]
    created_at: Mapped[datetime]
    # Who sent the CREATE, as judge.mailio.senders.sender_of names it: [judge] create_per_day
    # counts a sender's games of the last day by it (None for games older than the limit).
    created_by: Mapped[str | None] = mapped_column(String(400))
    ended_at: Mapped[datetime | None]
    version: Mapped[int] = mapped_column(default=1)

    memberships: Mapped[list["Membership"]] = relationship(
        back_populates="game", order_by="Membership.id"
    )

    __mapper_args__ = {"version_id_col": version}


class Membership(Base):
    """A person's part in a game: a player of a power, the master, or an observer.

    A power's history of players is kept: a replaced player's row stays with status
    resigned/dismissed and the new one is added, so (game, power) is not unique.
    """

    __tablename__ = "membership"
    __table_args__ = (Index("ix_membership_game_id_power", "game_id", "power"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    role: Mapped[str] = mapped_column(String(16))
    power: Mapped[str | None] = mapped_column(String(32))
    name: Mapped[str | None] = mapped_column(String(64))
    address: Mapped[str] = mapped_column(String(320), index=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default=MEMBER_ACTIVE)
    wait: Mapped[bool] = mapped_column(default=False)
    zone: Mapped[str | None] = mapped_column(String(64))
    absences: Mapped[list[Any]] = mapped_column(default=list)
    grace_used: Mapped[int] = mapped_column(default=0)
    draw_vote: Mapped[dict[str, Any] | None]
    key_fingerprint: Mapped[str | None] = mapped_column(String(64))
    joined_at: Mapped[datetime]

    game: Mapped[Game] = relationship(back_populates="memberships")


class OrderSet(Base):
    """A power's current orders for one phase, each line in canonical form."""

    __tablename__ = "order_set"
    __table_args__ = (UniqueConstraint("game_id", "phase", "power"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    phase: Mapped[str] = mapped_column(String(16))
    power: Mapped[str] = mapped_column(String(32))
    orders: Mapped[list[Any]] = mapped_column(default=list)
    submitted_at: Mapped[datetime]


class PhaseRecord(Base):
    """A processed phase, complete enough to replay, audit or roll back to it."""

    __tablename__ = "phase_record"
    __table_args__ = (UniqueConstraint("game_id", "phase"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    phase: Mapped[str] = mapped_column(String(16))
    position_before: Mapped[dict[str, Any]]
    orders: Mapped[dict[str, Any]]
    results: Mapped[list[Any]]
    position_after: Mapped[dict[str, Any]]
    digest: Mapped[str] = mapped_column(String(64))
    processed_at: Mapped[datetime]


class PressLog(Base):
    """Press relayed by the judge; ``sender`` is a power name or ``MASTER``."""

    __tablename__ = "press_log"
    __table_args__ = (Index("ix_press_log_game_id_sent_at", "game_id", "sent_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    phase: Mapped[str | None] = mapped_column(String(16))
    sender: Mapped[str] = mapped_column(String(32))
    membership_id: Mapped[int | None] = mapped_column(ForeignKey("membership.id"))
    recipients: Mapped[list[Any]]
    grey: Mapped[bool] = mapped_column(default=False)
    broadcast: Mapped[bool] = mapped_column(default=False)
    subject: Mapped[str] = mapped_column(String(998), default="")
    body: Mapped[str] = mapped_column(Text)
    sent_at: Mapped[datetime]
    #: DAIDE press messages (text form) the press carried to machine players: read from a
    #: player's PRESS, or a machine's own press; None for press between players only.
    daide: Mapped[list[Any] | None]
