"""Fair power assignment (RULE PREFERENCES, RULE BLIND_ASSIGN): what survives between emails.

The pure values of ``judge.fair`` are stored as JSON through ``judge.fair.serialize``
(``to_data``/``from_data``), so a row always holds a complete ``AssignmentState``,
``Contest``, ``Lottery`` or blind-protocol side.  The escrow's peeling is stored as the
log of accepted answers and is recomputed from it (its values hold gpg verdicts).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from judge.store.base import Base

# FairAssignment statuses.
REVEALING_LISTS = "revealing"  # RULE SEALED: the committed lists are being revealed
ASSIGNING = "assigning"
ASSIGNED = "assigned"

# FairLottery stages (as judge.fair.lottery.Stage), plus the escrow's peeling.
LOTTERY_COMMITTING = "committing"
LOTTERY_REVEALING = "revealing"
LOTTERY_PEELING = "peeling"
LOTTERY_CLOSED = "closed"

# BlindRun roles.
ROLE_GM = "gm"
ROLE_WITNESS = "witness"


class FairPreference(Base):
    """A member's preference list (SET PREFERENCE), canonical ``AE(GI)R`` form."""

    __tablename__ = "fair_preference"
    __table_args__ = (UniqueConstraint("game_id", "membership_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    membership_id: Mapped[int] = mapped_column(ForeignKey("membership.id"))
    text: Mapped[str] = mapped_column(String(64))
    reserve: Mapped[bool] = mapped_column(default=False)
    set_at: Mapped[datetime]
    # RULE SEALED: the list is committed (COMMIT while the game forms) and revealed when
    # the game fills; ``text`` stays "*" until a reveal verifies.
    commit_kind: Mapped[str | None] = mapped_column(String(16))
    commitment: Mapped[bytes | None] = mapped_column(LargeBinary)
    digest: Mapped[str | None] = mapped_column(String(64))
    fingerprint: Mapped[str | None] = mapped_column(String(64))
    revealed_at: Mapped[datetime | None]


class FairAssignment(Base):
    """One game's assignment from preference lists.

    ``players``: ``[[label, membership_id], ...]`` in player order; ``entries``: the lists
    as ``[[label, canonical text], ...]`` (what ``judge.fair.assignment.replay`` needs);
    ``numbers``: each lottery's result in order; ``state``: the ``AssignmentState``.
    """

    __tablename__ = "fair_assignment"

    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), default=ASSIGNING)
    powers: Mapped[list[Any]] = mapped_column(default=list)
    players: Mapped[list[Any]] = mapped_column(default=list)
    entries: Mapped[list[Any]] = mapped_column(default=list)
    numbers: Mapped[list[Any]] = mapped_column(default=list)
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    reveal_deadline: Mapped[datetime | None] = mapped_column(index=True)


class FairLottery(Base):
    """One email lottery: the published contest, the ``Lottery`` value, its deadlines.

    ``last_player`` is the label of the designated last revealer (who deposits the escrow
    under RULE LOTTERY_ESCROW); ``outcome`` is the closing record (numbers, who defaulted).
    """

    __tablename__ = "fair_lottery"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), index=True)
    seq: Mapped[int]
    purpose: Mapped[str] = mapped_column(String(16), default="assign")
    stage: Mapped[str] = mapped_column(String(16), default=LOTTERY_COMMITTING)
    contest: Mapped[dict[str, Any]] = mapped_column(default=dict)
    lottery: Mapped[dict[str, Any]] = mapped_column(default=dict)
    last_player: Mapped[str | None] = mapped_column(String(32))
    opened_at: Mapped[datetime]
    deadline: Mapped[datetime | None] = mapped_column(index=True)
    published_at: Mapped[datetime | None]
    closed_at: Mapped[datetime | None]
    outcome: Mapped[dict[str, Any] | None]


class FairNumber(Base):
    """A participant's commitment to a lottery number, and its reveal once made."""

    __tablename__ = "fair_number"
    __table_args__ = (UniqueConstraint("lottery_id", "label"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    lottery_id: Mapped[int] = mapped_column(ForeignKey("fair_lottery.id"))
    label: Mapped[str] = mapped_column(String(32))
    membership_id: Mapped[int] = mapped_column(ForeignKey("membership.id"))
    kind: Mapped[str] = mapped_column(String(16))  # "signature" or "sha256"
    signature: Mapped[bytes | None] = mapped_column(LargeBinary)
    digest: Mapped[str | None] = mapped_column(String(64))
    fingerprint: Mapped[str | None] = mapped_column(String(64))
    committed_at: Mapped[datetime]
    number: Mapped[int | None]
    revealed_data: Mapped[bytes | None] = mapped_column(LargeBinary)
    reveal_note: Mapped[str] = mapped_column(Text, default="")
    revealed_at: Mapped[datetime | None]


class FairEscrow(Base):
    """The last-number escrow of one lottery and the log of its peeling.

    ``peels``: ``[[armored text, fingerprint of who published it], ...]`` accepted in
    order; ``vanished``: fingerprints that missed a peel deadline.
    """

    __tablename__ = "fair_escrow"

    lottery_id: Mapped[int] = mapped_column(ForeignKey("fair_lottery.id"), primary_key=True)
    label: Mapped[str] = mapped_column(String(32))
    escrow: Mapped[str] = mapped_column(Text)
    plan: Mapped[str] = mapped_column(Text, default="")
    deposited_at: Mapped[datetime]
    peels: Mapped[list[Any]] = mapped_column(default=list)
    vanished: Mapped[list[Any]] = mapped_column(default=list)
    asked: Mapped[list[Any]] = mapped_column(default=list)
    deadline: Mapped[datetime | None]
    result: Mapped[str | None] = mapped_column(Text)


class BlindRun(Base):
    """One run of the blinded assignment, on the GM judge or on the witness judge.

    ``game_name``/``gm_address`` name the game on a witness (which has no game row);
    ``players``: the players' addresses in protocol order; ``state``: the ``GmSide`` or
    ``WitnessSide``.  ``waiting_since`` is when the run last moved; ``told_master_at``
    when the master was last told that the witness is silent.
    """

    __tablename__ = "blind_run"
    __table_args__ = (Index("ix_blind_run_role_game_name", "role", "game_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    role: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("game.id"))
    game_name: Mapped[str] = mapped_column(String(64))
    gm_address: Mapped[str] = mapped_column(String(320))
    witness_address: Mapped[str] = mapped_column(String(320))
    players: Mapped[list[Any]] = mapped_column(default=list)
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    log: Mapped[list[Any]] = mapped_column(default=list)
    started_at: Mapped[datetime]
    waiting_since: Mapped[datetime]
    told_master_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    # The other party's signing key (armored) and fingerprint, pinned from the first signed
    # protocol mail accepted: the witness's on the GM judge, the GM's on the witness.
    peer_key: Mapped[str | None] = mapped_column(Text)
    peer_fingerprint: Mapped[str | None] = mapped_column(String(40))


class FairWitness(Base):
    """The witness of a RULE BLIND_ASSIGN game (status line WITNESS address)."""

    __tablename__ = "fair_witness"

    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), primary_key=True)
    address: Mapped[str] = mapped_column(String(320))
    set_at: Mapped[datetime]
