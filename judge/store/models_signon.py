"""Refused sign-ons, kept a day: the throttle against password guessing reads them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base


class SignonFailure(Base):
    """One refused SIGNON: from which address, for which game and power (or name)."""

    __tablename__ = "signon_failure"
    __table_args__ = (Index("ix_signon_failure_address_at", "address", "failed_at"),
                      Index("ix_signon_failure_target_at", "game", "who", "failed_at"))

    id: Mapped[int] = mapped_column(primary_key=True)
    address: Mapped[str] = mapped_column(String(320))
    game: Mapped[str] = mapped_column(String(64))
    who: Mapped[str] = mapped_column(String(64))
    failed_at: Mapped[datetime]
