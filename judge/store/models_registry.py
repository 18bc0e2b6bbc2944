"""The registry's tables: registered players, their linked addresses, pending links.

An address belongs to at most one player (unique ``registered_address.address``); a link
is made only when the token mailed to the address comes back from it
(``address_request`` holds the token's hash until then).  A deleted registration keeps
its row with the name alone (``deleted_at`` set), so the games recorded under the name
keep it and nobody else can take it; every personal field is emptied.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base


class RegisteredPlayer(Base):
    """One player name.  ``name_key`` is the name folded to lower case (names are
    unique whatever their case); ``public`` the fields shown to others, space-separated
    (judge.registry.profile.PUBLIC_FIELDS)."""

    __tablename__ = "registered_player"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(24))
    name_key: Mapped[str] = mapped_column(String(24), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200), default="")
    real_name: Mapped[str | None] = mapped_column(String(64))
    country: Mapped[str | None] = mapped_column(String(48))
    zone: Mapped[str | None] = mapped_column(String(64))
    level: Mapped[str | None] = mapped_column(String(16))
    public: Mapped[str] = mapped_column(String(120), default="")
    registered_at: Mapped[datetime]
    deleted_at: Mapped[datetime | None]


class RegisteredAddress(Base):
    """An address linked to a player, once confirmed from it."""

    __tablename__ = "registered_address"
    __table_args__ = (Index("ix_registered_address_player_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("registered_player.id"))
    address: Mapped[str] = mapped_column(String(320), unique=True)  # lower case
    linked_at: Mapped[datetime]


class AddressRequest(Base):
    """A link asked for and not yet confirmed: the SHA-256 of the token mailed to
    ``address``; it lapses after judge.registry.store.REQUEST_LIFETIME."""

    __tablename__ = "address_request"
    __table_args__ = (Index("ix_address_request_player_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("registered_player.id"))
    address: Mapped[str] = mapped_column(String(320))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    requested_at: Mapped[datetime]
