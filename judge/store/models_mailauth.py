"""Tables of mail authentication: the DKIM keys every host of this judge signs with."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
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
