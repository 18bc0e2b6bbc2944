"""COMMIT, COMMIT SHA256 and REVEAL: sealed orders (RULE SEALED, RULE SEALED_SHA256).

The judge never sees a power's orders before every power is bound to its own: orders
sent as plain lines are refused in a sealed game (``plain_orders_refusal``), a COMMIT
carries only a signature, and a REVEAL before the commitments are published is refused
without being stored.  The phase itself moves on in judge/phases/sealed_flow.py and sealed_stages.py.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from judge.crypto.commitments import Committed, check_commitment, check_reveal
from judge.crypto.gpg import Keyring
from judge.record import orders_from_revealed
from judge.commands.context import MailContext, SignedOn
from judge.mailio.inbound import CommandRefused
from judge.store.queries import as_utc, position_of, variant_of
from judge.commands.keys import effective_key, ensure_imported
from judge.crypto.verdict import spaced
from judge.phases.sealed_flow import (
    all_committed,
    allows_sha256,
    close_commitments,
    commitments_of,
    current_phase,
    is_sealed,
    publish_reveal,
    reveals_of,
)
from judge.phases.sealed_stages import maybe_process
from judge.publish.signing import judge_keyring, keyring_held
from judge.lifecycle import ACTIVE
from judge.store.models_game import Game, Membership
from judge.store.models_sealed import (
    COMMITTING,
    PROCESSED,
    SHA256,
    SIGNATURE,
    SealedCommitment,
    SealedPhase,
    SealedReveal,
)
from judge.turns import format_deadline
from judge.commands.commitments import Commit, CommitSha256, Reveal
from mailcmds import Command
from judge.phases.requirements import phase_requirements

__all__ = ["commit", "commit_sha256", "plain_orders_refusal", "reveal"]


def plain_orders_refusal(game: Game) -> str | None:
    """Why plain order lines are refused in ``game`` (None: they are accepted)."""
    if not is_sealed(game):
        return None
    return (f"game '{game.name}' uses sealed orders (RULE SEALED): the judge must not see your orders "
            "before everyone has committed, so they are not taken as plain lines. Write them in a file, "
            "sign it (gpg --armor --detach-sign orders.txt) and send COMMIT with orders.txt.asc attached; "
            "REVEAL the file once the commitments are published")


def _sealed_game(ctx: MailContext, verb: str) -> tuple[SignedOn, Game, str]:
    who = ctx.require_player()
    game = who.game
    if not is_sealed(game):
        raise CommandRefused(f"game '{game.name}' does not use sealed orders (RULE SEALED): send your orders as "
                             f"lines, no {verb} is needed")
    if game.status != ACTIVE or game.phase is None or who.power is None:
        raise CommandRefused(f"game '{game.name}' is not running ({game.status}): {verb} is taken once it has started")
    return who, game, who.power


def _open_for_commits(ctx: MailContext, game: Game, power: str) -> SealedPhase:
    stage = current_phase(ctx.session, game, ctx.now)
    if stage.stage != COMMITTING:
        raise CommandRefused(
            f"the commitments for {stage.phase} are closed (published to the game's list): a commitment can no "
            "longer be made or changed; REVEAL the orders you committed to"
        )
    if power not in stage.required and power not in phase_requirements(variant_of(game), position_of(game)):
        raise CommandRefused(f"{power} has nothing to order in {stage.phase}: no commitment is needed")
    return stage


def _record(ctx: MailContext, game: Game, power: str, member_id: int, *, kind: str, signature: bytes | None,
            digest: str | None, fingerprint: str | None) -> SealedCommitment:
    existing = commitments_of(ctx.session, game, game.phase or "").get(power)
    if existing is None:
        existing = SealedCommitment(game_id=game.id, phase=game.phase, power=power, membership_id=member_id,
                                    kind=kind, signature=signature, digest=digest, fingerprint=fingerprint,
                                    times=1, committed_at=ctx.now)
        ctx.session.add(existing)
    else:
        existing.membership_id = member_id
        existing.kind, existing.signature, existing.digest, existing.fingerprint = kind, signature, digest, fingerprint
        existing.times = int(existing.times or 1) + 1
        existing.committed_at = ctx.now
    ctx.session.flush()
    return existing


def _after_commit(ctx: MailContext, command: Command, game: Game, stage: SealedPhase, row: SealedCommitment,
                  what: str) -> None:
    again = " (it replaces your earlier commitment)" if row.times > 1 else ""
    message = (f"commitment of {row.power} for {stage.phase} recorded: {what}{again}. It stays sealed: nobody "
               "learns who has committed until all commitments are published together")
    if all_committed(ctx.session, game, stage):
        ctx.send(close_commitments(ctx.session, game, ctx.judge, ctx.now, stage))
        message += "; every power has now committed, so the commitments have been published: REVEAL now"
        ctx.send(maybe_process(ctx.session, game, ctx.judge, ctx.now))
    ctx.done(command, message)


def commit(ctx: MailContext, command: Commit) -> None:
    with keyring_held(ctx.judge):  # one gpg-agent for the check and a possible publication
        _commit(ctx, command)


def _commit(ctx: MailContext, command: Commit) -> None:
    who, game, power = _sealed_game(ctx, "COMMIT")
    stage = _open_for_commits(ctx, game, power)
    key = effective_key(ctx.session, who.membership)
    if key is None:
        raise CommandRefused(
            f"{power} has no registered key: send SET KEY with your public key (gpg --armor --export you) first, "
            "then COMMIT again"
        )
    signature = command.signature_data
    with judge_keyring(ctx.judge, create=True) as judge_key:
        assert judge_key is not None
        ensure_imported(judge_key.keyring, key)
        verdict = check_commitment(judge_key.keyring, signature, key.fingerprint)
    if not verdict.valid:
        raise CommandRefused(f"commitment refused: {verdict.reason}")
    row = _record(ctx, game, power, who.membership.id, kind=SIGNATURE, signature=signature, digest=None,
                  fingerprint=key.fingerprint)
    _after_commit(ctx, command, game, stage, row, f"a detached signature by your key {spaced(key.fingerprint)}")


def commit_sha256(ctx: MailContext, command: CommitSha256) -> None:
    who, game, power = _sealed_game(ctx, "COMMIT SHA256")
    if not allows_sha256(game):
        raise CommandRefused(
            f"game '{game.name}' accepts only signed commitments (COMMIT with orders.txt.asc from "
            "gpg --armor --detach-sign orders.txt); COMMIT SHA256 needs RULE SEALED_SHA256"
        )
    stage = _open_for_commits(ctx, game, power)
    row = _record(ctx, game, power, who.membership.id, kind=SHA256, signature=None, digest=command.digest,
                  fingerprint=None)
    _after_commit(ctx, command, game, stage, row, f"SHA256 {command.digest} (reveal the orders text with your SALT line last)")


def _revealed_bytes(command: Reveal) -> tuple[bytes, str | None]:
    if command.attachment is not None:
        return command.attachment.data, command.attachment.filename
    return command.data(), None


def reveal(ctx: MailContext, command: Reveal) -> None:
    with keyring_held(ctx.judge):  # one gpg-agent for the verification and the results
        _reveal(ctx, command)


def _reveal(ctx: MailContext, command: Reveal) -> None:
    who, game, power = _sealed_game(ctx, "REVEAL")
    stage = current_phase(ctx.session, game, ctx.now)
    if stage.stage == COMMITTING:
        raise CommandRefused(
            f"REVEAL refused and not kept: the commitments for {stage.phase} are not all in, and showing your "
            "orders now would let others change theirs. Wait for the commitments broadcast, then REVEAL"
        )
    if stage.stage == PROCESSED:
        raise CommandRefused(f"{stage.phase} has been processed: nothing to reveal")
    commitment = commitments_of(ctx.session, game, stage.phase).get(power)
    if commitment is None:
        raise CommandRefused(f"{power} made no commitment for {stage.phase}: there is nothing to reveal, and its "
                             "units hold")
    earlier = reveals_of(ctx.session, game, stage.phase).get(power)
    if earlier is not None and earlier.valid:
        raise CommandRefused(f"{power}'s orders for {stage.phase} are already revealed and verified")
    if stage.reveal_deadline is not None and ctx.now >= as_utc(stage.reveal_deadline):
        raise CommandRefused(f"the reveal window for {stage.phase} closed at "
                             f"{format_deadline(as_utc(stage.reveal_deadline), game.zone or 'UTC')}")
    data, filename = _revealed_bytes(command)
    committed = (Committed(digest=commitment.digest or "") if commitment.kind == SHA256
                 else Committed(signature=commitment.signature or b"", fingerprint=commitment.fingerprint or ""))
    check = check_reveal(committed, data, lambda: _keyring_with_key(ctx, who.membership, committed.fingerprint))
    verdict, signed = check.verdict, check.signed
    if command.target is not None and not verdict.valid:  # passed on by anyone: only a match is kept
        raise CommandRefused(f"REVEAL {command.target}: the file does not match {power}'s commitment "
                             f"({verdict.reason}); nothing was kept")
    row = earlier or SealedReveal(game_id=game.id, phase=stage.phase, power=power, revealed_at=ctx.now, data=b"")
    row.data, row.signed_data, row.filename = data, signed, filename
    row.valid, row.reason, row.variant, row.revealed_at = verdict.valid, verdict.reason, verdict.variant, ctx.now
    if earlier is None:
        ctx.session.add(row)
    ctx.session.flush()
    if not verdict.valid:
        ctx.failed(command.source, (
            f"the revealed orders do NOT match {power}'s commitment: {verdict.reason}. Send the exact file you "
            "signed (attached) before the reveal deadline; otherwise all your units hold"
        ))
        return
    read = orders_from_revealed(variant_of(game), position_of(game), power, signed or data)
    shown = "; ".join(read.orders) or "no orders"
    message = f"revealed orders verified ({verdict.reason}); orders read: {shown}"
    if read.ignored:
        message += f"; lines that are not orders (ignored): {'; '.join(line for line, _ in read.ignored)}"
    ctx.done(command, message)
    ctx.send(publish_reveal(ctx.session, game, ctx.judge, row, commitment.kind))
    ctx.send(maybe_process(ctx.session, game, ctx.judge, ctx.now))


@contextmanager
def _keyring_with_key(ctx: MailContext, member: Membership, fingerprint: str) -> Iterator[Keyring]:
    """The judge's keyring with the player's key in it (when it is the committed one)."""
    with judge_keyring(ctx.judge, create=True) as judge_key:
        assert judge_key is not None
        key = effective_key(ctx.session, member)
        if key is not None and key.fingerprint == fingerprint:
            ensure_imported(judge_key.keyring, key)
        yield judge_key.keyring
