"""Tables of mail authentication: the DKIM keys every host of this judge signs with."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base


class DkimKeyRecord(Base):
    """One DKIM key pair, under its selector (judge.mailauth.keystore makes them).

    ``private_key``: PEM (PKCS#1) for rsa, the base64 seed for ed25519 (the forms dkimpy
    reads); ``public_key``: the base64 ``p=`` of the DNS record.  Kept in the database so
    every judge process on it signs with the same keys, and a backup carries them.
    """

    __tablename__ = "dkim_key"

    selector: Mapped[str] = mapped_column(String(63), primary_key=True)
    algorithm: Mapped[str] = mapped_column(String(16))
    private_key: Mapped[str] = mapped_column(Text)
    public_key: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    created_by: Mapped[str] = mapped_column(String(255))


class MailSecret(Base):
    """A secret of the judge's mail, made once and shared by every host: the key of the
    tokens in unsubscribe links and bounce addresses (judge.mailauth.tokens)."""

    __tablename__ = "mail_secret"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]


class MailBounce(Base):
    """A bounce tied to the address it is about by its VERP token (judge.mailauth.bounces):
    ``permanent`` (a DSN's 5.x.x, or a bounce without a readable report) or not (4.x.x,
    a delay: kept, not counted)."""

    __tablename__ = "mail_bounce"
    __table_args__ = (Index("ix_mail_bounce_address_at", "address", "bounced_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    address: Mapped[str] = mapped_column(String(320))
    outbox_id: Mapped[int | None]
    inbound_id: Mapped[int | None]
    permanent: Mapped[bool]
    bounced_at: Mapped[datetime]


class UnreachableAddress(Base):
    """An address the judge stopped writing to after ``[mail] bounce_limit`` bounces in
    ``bounce_window_days``; removed when mail comes from it again."""

    __tablename__ = "unreachable_address"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    since: Mapped[datetime]
    bounces: Mapped[int]
