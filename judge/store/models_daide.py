"""Machine players' seats (judge/edge/daide): the DAIDE port of a game with RULE
MACHINES and, per machine in it, the name it gave (revealed only when the game ends) and
the passcode of its HLO (for IAM after a dropped connection; never mailed).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base


class DaidePort(Base):
    """The port a game's DAIDE server listens on (one game a port), given at ``given_at``.
    No port: a forming game that gave its port back for idling (judge.commands.daide_ports)."""

    __tablename__ = "daide_port"

    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), primary_key=True)
    port: Mapped[int | None] = mapped_column(unique=True)
    given_at: Mapped[datetime | None]


class MachineSeat(Base):
    """A machine player's membership: its NME name and version, and its passcode."""

    __tablename__ = "machine_seat"
    __table_args__ = (UniqueConstraint("game_id", "membership_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), index=True)
    membership_id: Mapped[int] = mapped_column(ForeignKey("membership.id"))
    name: Mapped[str] = mapped_column(String(64))
    version: Mapped[str] = mapped_column(String(64))
    passcode: Mapped[int]
