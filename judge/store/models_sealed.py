"""Sealed orders (RULE SEALED): players' keys, commitments, reveals and verdicts.

A phase of a sealed game goes through three stages, recorded in ``SealedPhase``:
``committing`` (COMMITs are collected and shown to nobody), ``revealing`` (the
commitments have been broadcast; REVEALs are accepted until the reveal deadline) and
``processed`` (each power's ``SealedVerdict`` says which orders were used and why).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base

# PlayerKey statuses: in use, waiting for the master's approval, superseded (kept as history).
KEY_ACTIVE = "active"
KEY_PENDING = "pending"
KEY_REPLACED = "replaced"

# Commitment kinds.
SIGNATURE = "signature"
SHA256 = "sha256"

# SealedPhase stages.
COMMITTING = "committing"
REVEALING = "revealing"
PROCESSED = "processed"

# Verdict outcomes.
VERIFIED = "verified"
BAD_REVEAL = "bad_reveal"
NO_REVEAL = "no_reveal"
NO_COMMITMENT = "no_commitment"


class PlayerKey(Base):
    """An OpenPGP public key registered with SET KEY.

    ``game_id``/``membership_id`` NULL: the key of an address on this judge, used in every
    game where that address has no key of its own.  Replaced keys are kept (status
    ``replaced``) so that an old commitment can still be shown with the key that made it.
    """

    __tablename__ = "player_key"
    __table_args__ = (Index("ix_player_key_address_game_id", "address", "game_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    address: Mapped[str] = mapped_column(String(320))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("game.id"))
    membership_id: Mapped[int | None] = mapped_column(ForeignKey("membership.id"), index=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    armored: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=KEY_ACTIVE)
    registered_at: Mapped[datetime]


class SealedPhase(Base):
    """The stage of one phase of a sealed game, and when the reveal window closes."""

    __tablename__ = "sealed_phase"
    __table_args__ = (UniqueConstraint("game_id", "phase"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    phase: Mapped[str] = mapped_column(String(16))
    stage: Mapped[str] = mapped_column(String(16), default=COMMITTING)
    # Powers that must commit this phase (the engine's requirements when the phase opened).
    required: Mapped[list[Any]] = mapped_column(default=list)
    opened_at: Mapped[datetime]
    published_at: Mapped[datetime | None]
    reveal_deadline: Mapped[datetime | None]


class SealedCommitment(Base):
    """A power's current commitment for a phase (re-committing replaces it until publication)."""

    __tablename__ = "sealed_commitment"
    __table_args__ = (UniqueConstraint("game_id", "phase", "power"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    phase: Mapped[str] = mapped_column(String(16))
    power: Mapped[str] = mapped_column(String(32))
    membership_id: Mapped[int] = mapped_column(ForeignKey("membership.id"))
    kind: Mapped[str] = mapped_column(String(16))
    # The detached signature exactly as received (armored or binary), or None for SHA256.
    signature: Mapped[bytes | None] = mapped_column(LargeBinary)
    digest: Mapped[str | None] = mapped_column(String(64))
    # The registered key the signature was checked against (None for SHA256).
    fingerprint: Mapped[str | None] = mapped_column(String(64))
    times: Mapped[int] = mapped_column(default=1)
    committed_at: Mapped[datetime]


class SealedReveal(Base):
    """The orders file a power revealed, byte for byte, and the verification verdict."""

    __tablename__ = "sealed_reveal"
    __table_args__ = (UniqueConstraint("game_id", "phase", "power"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    phase: Mapped[str] = mapped_column(String(16))
    power: Mapped[str] = mapped_column(String(32))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    # The bytes that verified (a line-ending variant of ``data``), None if none did.
    signed_data: Mapped[bytes | None] = mapped_column(LargeBinary)
    filename: Mapped[str | None] = mapped_column(String(255))
    valid: Mapped[bool] = mapped_column(default=False)
    reason: Mapped[str] = mapped_column(Text, default="")
    variant: Mapped[str | None] = mapped_column(String(120))
    revealed_at: Mapped[datetime]


class SealedVerdict(Base):
    """What a phase's processing did with a power: the orders used and why."""

    __tablename__ = "sealed_verdict"
    __table_args__ = (UniqueConstraint("game_id", "phase", "power"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    phase: Mapped[str] = mapped_column(String(16))
    power: Mapped[str] = mapped_column(String(32))
    outcome: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text, default="")
    orders: Mapped[list[Any]] = mapped_column(default=list)
    ignored: Mapped[list[Any]] = mapped_column(default=list)
    decided_at: Mapped[datetime]
