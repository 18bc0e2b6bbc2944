"""The phase of a RULE SEALED game: commitments, one published list, reveals, processing.

    committing --(every power that must order has committed, or the deadline)--> revealing
    revealing  --(every committed power has revealed, or the reveal deadline)--> processed

Closing the commitments is ONE signed broadcast to the game's list with every commitment
attached (``close_commitments``).  Before it, nothing the judge sends says who has
committed: the COMMIT reply goes to the committing player only, no reminder or notice
names powers, and the master sees no more than anyone else.  The reveal window is
TIMING's ``REVEAL`` span (default one day).  The stages are driven by
judge/phases/sealed_stages.py (the scheduler pass, the master's PROCESS); the phase is
processed by judge.phases.processing with the orders this module reads from the verified
reveals (``sealed_orders``, one of the order sources of judge/phases/order_sources.py); a
power with a bad or missing reveal (or no commitment) has no orders: its units hold,
retreats disband, builds are waived.

Entry points for other modules:

    sealed_orders(session, game) -> dict[power, list[str]] | None    order sources (None: not sealed)
    sealed_results(session, game, variant, before, now) -> SealedResults  the results record
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from adjudicator.types import Position, Variant
from judge.config import JudgeSettings
from judge.crypto.armor import enarmor
from judge.mailio.outgoing import OutgoingMail
from judge.record import (
    reveal_document,
    reveal_record_name,
    commitment_name,
    commitments_document,
    commitments_name,
    keys_name,
    orders_from_revealed,
    revealed_name,
    sealed_entry,
)
from judge.mailio.render import render
from judge.publish.broadcast import broadcast
from judge.store.queries import as_utc, has_rule, position_of, timing_of, variant_of
from judge.crypto.verdict import spaced
from judge.publish.signing import FileAttachment
from judge.store.models_game import Game
from judge.store.models_sealed import (
    BAD_REVEAL,
    COMMITTING,
    NO_COMMITMENT,
    NO_REVEAL,
    PROCESSED,
    REVEALING,
    SHA256,
    VERIFIED,
    PlayerKey,
    SealedCommitment,
    SealedPhase,
    SealedReveal,
    SealedVerdict,
)
from judge.phases.turnstate import active_powers, seats
from judge.turns import Span, add_span, format_deadline

SEALED = "SEALED"
SEALED_SHA256 = "SEALED_SHA256"
DEFAULT_REVEAL = Span(days=1)

__all__ = [
    "SEALED", "SEALED_SHA256", "SealedResults", "allows_sha256", "close_commitments", "current_phase",
    "is_sealed", "preview_refusal", "ready_to_process", "sealed_orders", "sealed_results", "unverified",
]


def is_sealed(game: Game) -> bool:
    return has_rule(game, SEALED) or has_rule(game, SEALED_SHA256)


def allows_sha256(game: Game) -> bool:
    return has_rule(game, SEALED_SHA256)


def required_powers(session: Session, game: Game) -> list[str]:
    """The powers that must commit this phase: the ones the turn logic waits for."""

    variant = variant_of(game)
    position = position_of(game)
    return sorted(active_powers(variant, position, seats(session, game, variant).dummies))


def current_phase(session: Session, game: Game, now: datetime) -> SealedPhase:
    """The SealedPhase row of the game's current phase (opened on first use)."""
    assert game.phase is not None
    row = session.execute(
        select(SealedPhase).where(SealedPhase.game_id == game.id, SealedPhase.phase == game.phase)
    ).scalar_one_or_none()
    if row is None:
        row = SealedPhase(game_id=game.id, phase=game.phase, stage=COMMITTING,
                          required=required_powers(session, game), opened_at=now)
        session.add(row)
        session.flush()
    return row


def commitments_of(session: Session, game: Game, phase: str) -> dict[str, SealedCommitment]:
    rows = session.execute(
        select(SealedCommitment).where(SealedCommitment.game_id == game.id, SealedCommitment.phase == phase)
    ).scalars()
    return {row.power: row for row in rows}


def reveals_of(session: Session, game: Game, phase: str) -> dict[str, SealedReveal]:
    rows = session.execute(
        select(SealedReveal).where(SealedReveal.game_id == game.id, SealedReveal.phase == phase)
    ).scalars()
    return {row.power: row for row in rows}


def all_committed(session: Session, game: Game, stage: SealedPhase) -> bool:
    return set(stage.required) <= set(commitments_of(session, game, stage.phase))


def armored_signature(signature: bytes) -> bytes:
    """The commitment as an .asc file: armored as received, binary ones armored here."""
    if b"-----BEGIN PGP" in signature:
        return signature
    return enarmor(signature, "SIGNATURE").encode("ascii")


def commitment_file(game: Game, commitment: SealedCommitment) -> FileAttachment:
    name = commitment_name(game.name, commitment.phase, commitment.power, commitment.kind)
    if commitment.kind == SHA256:
        return FileAttachment(name, (commitment.digest or "").encode("ascii") + b"\n", "text/plain")
    return FileAttachment(name, armored_signature(commitment.signature or b""), "application/pgp-signature")


def _key_bundle(session: Session, commitments: Sequence[SealedCommitment]) -> bytes:
    """The public keys that made the commitments (one armored block each, by fingerprint)."""
    blocks: dict[str, str] = {}
    for commitment in commitments:
        if commitment.fingerprint is None or commitment.fingerprint in blocks:
            continue
        key = session.execute(
            select(PlayerKey).where(PlayerKey.fingerprint == commitment.fingerprint).order_by(PlayerKey.id.desc())
        ).scalars().first()
        if key is not None:
            blocks[commitment.fingerprint] = key.armored.strip() + "\n"
    return "".join(blocks[f] for f in sorted(blocks)).encode("ascii")


def reveal_deadline(game: Game, now: datetime) -> datetime:
    timing = timing_of(game)
    return add_span(now, timing.reveal or DEFAULT_REVEAL, timing)


def close_commitments(session: Session, game: Game, judge: JudgeSettings, now: datetime,
                      stage: SealedPhase) -> list[OutgoingMail]:
    """Publish every commitment in one signed broadcast and open the reveal window."""
    commitments = commitments_of(session, game, stage.phase)
    ordered = [commitments[p] for p in sorted(commitments)]
    stage.stage = REVEALING
    stage.published_at = now
    stage.reveal_deadline = reveal_deadline(game, now)
    game.next_due_at = stage.reveal_deadline
    files = [commitment_file(game, c) for c in ordered]
    entries = {
        c.power: {"kind": c.kind, "fingerprint": c.fingerprint, "file": commitment_name(game.name, c.phase, c.power, c.kind),
                  "digest": c.digest}
        for c in ordered
    }
    document = commitments_document(game=game.name, phase=stage.phase, required=stage.required, commitments=entries)
    files.append(FileAttachment(keys_name(game.name, stage.phase), _key_bundle(session, ordered), "application/pgp-keys"))
    files.append(FileAttachment(commitments_name(game.name, stage.phase),
                                (json.dumps(document, indent=1, sort_keys=True) + "\n").encode("ascii"),
                                "application/json"))
    rows = []
    for power in sorted(set(stage.required) | set(commitments)):
        commitment = commitments.get(power)
        if commitment is None:
            text = "no commitment: all its units hold"
        elif commitment.kind == SHA256:
            text = f"SHA256 {commitment.digest}"
        else:
            text = f"signed by {spaced(commitment.fingerprint or '')}"
        rows.append({"power": power, "text": text})
    body = render("sealed_commitments.j2", game=game.name, phase=stage.phase, rows=rows,
                  reveal_deadline=format_deadline(stage.reveal_deadline, game.zone or "UTC"))
    return broadcast(session, game, judge, subject=f"{game.name} {stage.phase}: commitments", body=body,
                     kind="commitments", attachments=files)


def publish_reveal(session: Session, game: Game, judge: JudgeSettings, reveal: SealedReveal,
                   kind: str) -> list[OutgoingMail]:
    """A verified reveal goes to the game's list as it arrives, with the bytes that verified:
    a judge that later called it missing is contradicted by its own signed broadcast."""
    published = reveal.signed_data if reveal.signed_data is not None else reveal.data
    document = reveal_document(game=game.name, phase=reveal.phase, power=reveal.power, kind=kind)
    files = [FileAttachment(revealed_name(game.name, reveal.phase, reveal.power), published, "application/octet-stream"),
             FileAttachment(reveal_record_name(game.name, reveal.phase, reveal.power),
                            (json.dumps(document, indent=1, sort_keys=True) + "\n").encode("ascii"), "application/json")]
    body = render("sealed_reveal.j2", game=game.name, phase=reveal.phase, power=reveal.power,
                  file=revealed_name(game.name, reveal.phase, reveal.power))
    return broadcast(session, game, judge, subject=f"{game.name} {reveal.phase}: {reveal.power} revealed", body=body,
                     kind="sealed_reveal", attachments=files)


def ready_to_process(session: Session, game: Game, stage: SealedPhase, now: datetime) -> bool:
    """In the reveal window: every committed power has a verified reveal, or time is up."""
    if stage.stage != REVEALING:
        return False
    if stage.reveal_deadline is not None and now >= as_utc(stage.reveal_deadline):
        return True
    reveals = reveals_of(session, game, stage.phase)
    return all(power in reveals and reveals[power].valid for power in commitments_of(session, game, stage.phase))


def unverified(session: Session, game: Game, stage: SealedPhase) -> list[str]:
    reveals = reveals_of(session, game, stage.phase)
    return sorted(p for p in stage.required if p not in reveals or not reveals[p].valid)


def preview_refusal(game: Game) -> str | None:
    """PREVIEW would show the master revealed orders before the phase is processed."""
    if not is_sealed(game):
        return None
    return (f"PREVIEW is not available in game '{game.name}' (RULE SEALED): it would show you revealed orders "
            "before the phase is processed")


def sealed_orders(session: Session, game: Game) -> dict[str, list[str]] | None:
    """power -> the orders read from its verified reveal (None: the game is not sealed).

    Only powers with a verified reveal appear; the others have no orders.  Reads only.
    """
    if not is_sealed(game) or game.phase is None:
        return None
    variant, position = variant_of(game), position_of(game)
    orders: dict[str, list[str]] = {}
    for power, reveal in sorted(reveals_of(session, game, game.phase).items()):
        if reveal.valid and reveal.signed_data is not None:
            orders[power] = list(orders_from_revealed(variant, position, power, reveal.signed_data).orders)
    return orders


@dataclass(frozen=True)
class SealedResults:
    """What the results broadcast adds for a sealed phase."""

    text: str
    attachments: tuple[FileAttachment, ...]
    section: dict[str, Any]  # the phase document's "sealed" part


def sealed_results(session: Session, game: Game, variant: Variant, before: Position,
                   now: datetime) -> SealedResults:
    """Write each power's verdict for the phase just adjudicated and describe it for the
    results: commitment, revealed file and verdict per power."""

    phase = str(before.phase)  # the game has already moved on to the next phase
    stage = session.execute(
        select(SealedPhase).where(SealedPhase.game_id == game.id, SealedPhase.phase == phase)
    ).scalar_one_or_none()
    if stage is None:  # processed (PROCESS!) before anyone committed
        required = sorted(active_powers(variant, before, seats(session, game, variant).dummies))
        stage = SealedPhase(game_id=game.id, phase=phase, stage=COMMITTING, required=required, opened_at=now)
        session.add(stage)
    commitments = commitments_of(session, game, phase)
    reveals = reveals_of(session, game, phase)
    files: list[FileAttachment] = []
    section: dict[str, Any] = {}
    lines: list[str] = []
    for power in sorted(set(stage.required) | set(commitments) | set(reveals)):
        commitment = commitments.get(power)
        reveal = reveals.get(power)
        orders: tuple[str, ...] = ()
        ignored: tuple[tuple[str, str], ...] = ()
        if commitment is None:
            outcome, reason = NO_COMMITMENT, "no commitment before the commitments closed: all units hold"
        elif reveal is None:
            outcome, reason = NO_REVEAL, "no reveal before the reveal deadline: all units hold"
        elif not reveal.valid or reveal.signed_data is None:
            outcome, reason = BAD_REVEAL, f"the revealed orders do not match the commitment ({reveal.reason}): all units hold"
        else:
            read = orders_from_revealed(variant, before, power, reveal.signed_data)
            orders, ignored = read.orders, read.ignored
            outcome, reason = VERIFIED, reveal.reason
        if commitment is not None:
            files.append(commitment_file(game, commitment))
        if reveal is not None:
            # The bytes the player signed (a line-ending variant of what arrived, when mail
            # changed them), so that gpg --verify on the published file succeeds.
            published = reveal.signed_data if reveal.valid and reveal.signed_data is not None else reveal.data
            files.append(FileAttachment(revealed_name(game.name, phase, power), published, "application/octet-stream"))
        session.add(SealedVerdict(game_id=game.id, phase=phase, power=power, outcome=outcome, reason=reason,
                                  orders=list(orders), ignored=[list(i) for i in ignored], decided_at=now))
        section[power] = sealed_entry(
            outcome=outcome, reason=reason, kind=commitment.kind if commitment else None,
            fingerprint=commitment.fingerprint if commitment else None,
            commitment_file=commitment_name(game.name, phase, power, commitment.kind) if commitment else None,
            revealed_file=revealed_name(game.name, phase, power) if reveal else None,
            variant=reveal.variant if reveal is not None and reveal.valid else None,
            orders=orders, ignored=ignored,
        )
        lines.append(f"  {power:<10} {outcome.replace('_', ' ')}: {reason}")
    stage.stage = PROCESSED
    text = render("sealed_results.j2", game=game.name, phase=phase, lines=lines)
    return SealedResults(text, tuple(files), section)

