"""Email lotteries (reference 002, "fair random numbers"): announce, commit, publish, reveal,
decide -- for the power assignment of RULE PREFERENCES.

1. The judge broadcasts the contest: N outcomes and which numbers win for whom.
2. Every player sends ``COMMIT`` (a detached signature over a file holding one number
   0..N-1, made fresh for this lottery) or, under RULE LOTTERY_SHA256, ``COMMIT SHA256``.
   Under RULE LOTTERY_ESCROW the designated last revealer also sends ``ESCROW``.
3. When all are in (or the deadline passes) the commitments are broadcast.
4. Players send ``REVEAL n`` (or ``REVEAL`` with the number file or, for SHA256, the
   number and the SALT line); the sum mod N decides.  Whoever has not revealed by the
   deadline counts as 0 -- unless the escrow can still be peeled (judge/commands/fair_escrow.py).

COMMIT and REVEAL belong to sealed orders too: the interceptors here take them only while
the signed-on player's game has a lottery open.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Callable, Sequence

from sqlalchemy import select

from judge.crypto.commitments import (
    Committed,
    check_reveal,
    CommitmentFormatError,
    check_commitment,
    read_number,
    split_salted,
)
from judge.crypto.armor import enarmor
from judge.fair import ledger
from judge.fair.assignment import Contest
from judge.fair.lottery import Lottery, LotteryError, Stage
from judge.fair.serialize import from_data, to_data
from judge.mailio.render import render
from judge.publish.broadcast import broadcast, to_member
from judge.publish.signing import FileAttachment
from judge.commands.context import Ctx, MailContext
from judge.mailio.inbound import CommandRefused
from judge.commands.fair_players import claim_game, judge_keyring, label_for, registered_key
from judge.store.queries import as_utc, has_rule, timing_of
from judge.store.models_fair import (
    LOTTERY_CLOSED,
    LOTTERY_COMMITTING,
    LOTTERY_PEELING,
    LOTTERY_REVEALING,
    FairEscrow,
    FairLottery,
    FairNumber,
)
from judge.store.models_game import Game, Membership
from judge.commands.commitments import Commit, CommitSha256, Reveal, RevealNumber


SIGNATURE = "signature"
SHA256 = "sha256"
DEFAULT_WINDOW = timedelta(days=1)
OPEN_STAGES = (LOTTERY_COMMITTING, LOTTERY_REVEALING, LOTTERY_PEELING)

#: purpose -> what to do with a decided lottery: ``f(ctx, game, row, contest, number)``.
DECIDED: dict[str, Callable[[Ctx, Game, FairLottery, Contest, int], None]] = {}


def window(game: Game) -> timedelta:
    """How long commitments (and then reveals) are collected: TIMING REVEAL, else a day."""
    span = timing_of(game).reveal
    if span is None or span.is_zero:
        return DEFAULT_WINDOW
    return timedelta(days=span.days, seconds=span.seconds)


def lottery_of(row: FairLottery) -> Lottery:
    return from_data(row.lottery)


def contest_of(row: FairLottery) -> Contest:
    return from_data(row.contest)


def open_lottery_of(ctx: Ctx, game: Game) -> FairLottery | None:
    return ctx.session.execute(
        select(FairLottery).where(FairLottery.game_id == game.id, FairLottery.stage.in_(OPEN_STAGES))
    ).scalars().first()


def numbers_of(ctx: Ctx, row: FairLottery) -> dict[str, FairNumber]:
    found = ctx.session.execute(select(FairNumber).where(FairNumber.lottery_id == row.id)).scalars()
    return {number.label: number for number in found}


def record_file(name: str, document: dict) -> FileAttachment:
    """A lottery record as the JSON file its broadcast carries (judge/fair/ledger.py)."""
    return FileAttachment(name, json.dumps(document, indent=1, sort_keys=True).encode("utf-8"), "application/json")


def stored_commitment(kind: str, digest: str | None, signature: bytes | None, fingerprint: str | None) -> dict:
    """A stored commitment as every record carries it: the digest, or the armored signature."""
    if kind == SHA256:
        return ledger.commitment_entry(SHA256, digest or "", None)
    data = signature or b""
    text = data.decode("ascii") if data.lstrip().startswith(b"-----BEGIN PGP") else (enarmor(data) if data else "")
    return ledger.commitment_entry(kind, text, fingerprint)


def signers_keys(ctx: Ctx, members: Sequence[Membership | None]) -> str:
    """The registered public keys of ``members``, armored, for a commitments record."""
    keys = {}
    for member in members:
        key = registered_key(ctx.session, member) if member is not None else None
        if key is not None:
            keys[key.fingerprint] = key.armored
    return "".join(keys.values())


def commitment_entry(number: FairNumber) -> dict:
    return stored_commitment(number.kind, number.digest, number.signature, number.fingerprint)


def share_lines(contest: Contest) -> list[str]:
    lines = []
    for share in contest.shares:
        first, last = share.numbers.start, share.numbers.stop - 1
        numbers = str(first) if first == last else f"{first} to {last}"
        who = share.player if share.player is not None else f"nobody ({contest.power} stays unplayed)"
        lines.append(f"{numbers}: {who} ({share.chances} chance{'s' if share.chances != 1 else ''})")
    return lines


def open_lottery(ctx: Ctx, game: Game, contest: Contest, *, purpose: str, what: str,
                 participants: tuple[str, ...]) -> FairLottery:
    """Announce a lottery: the odds are published before anyone commits."""
    seq = len(ctx.session.execute(select(FairLottery.id).where(FairLottery.game_id == game.id)).all()) + 1
    lottery = Lottery.announce(contest.outcomes, participants)
    escrow = has_rule(game, "LOTTERY_ESCROW")
    last = participants[(seq - 1) % len(participants)] if escrow and len(participants) >= 4 else None
    deadline = ctx.now + window(game)
    row = FairLottery(
        game_id=game.id, seq=seq, purpose=purpose, stage=LOTTERY_COMMITTING, contest=to_data(contest),
        lottery=to_data(lottery), last_player=last, opened_at=ctx.now, deadline=deadline,
    )
    ctx.session.add(row)
    ctx.session.flush()
    body = render(
        "fair_lottery_open.j2", game=game.name, seq=seq, what=what, contest=contest,
        shares=share_lines(contest), participants=participants, outcomes=contest.outcomes,
        deadline=as_utc(deadline).strftime("%Y-%m-%d %H:%M UTC"), sha256=has_rule(game, "LOTTERY_SHA256"),
        last=last, layers=_reference_layers(ctx, game, participants, last) if last else None,
    )
    odds = ledger.odds_record(game.name, seq, purpose, contest.power, contest.outcomes,
                              [(s.player, s.numbers.start, s.numbers.stop - 1) for s in contest.shares], participants)
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: lottery {seq} for {contest.power}",
                       body=body, kind="fair_lottery",
                       attachments=[record_file(ledger.record_name(game.name, seq, ledger.ODDS), odds)]))
    return row


def _reference_layers(ctx: Ctx, game: Game, participants: tuple[str, ...], last: str) -> str | None:
    """The reference's layer order (B,C,D,E;F+G;E+F;D+E;C+B;B+G) with the registered keys of
    the six players after ``last``, for its ``judge player escrow build --layers``."""
    from judge.crypto.escrow import REFERENCE_LAYERS

    members = {label_for(ctx.session, game, m): m for m in _members(ctx, game)}
    start = participants.index(last)
    others = [participants[(start + step) % len(participants)] for step in range(1, len(participants))]
    if len(others) < 6:
        return None
    keys = []
    for label in others[:6]:
        member = members.get(label)
        key = registered_key(ctx.session, member) if member is not None else None
        if key is None:
            return None
        keys.append(key.fingerprint)
    letters = dict(zip("BCDEFG", keys))
    return "".join(letters.get(char, char) for char in REFERENCE_LAYERS)


def _members(ctx: Ctx, game: Game) -> list[Membership]:
    from judge.store.queries import members

    return members(ctx.session, game)


# -- commitments --------------------------------------------------------------------------
def _open_for(ctx: MailContext) -> tuple[Game, Membership, str, FairLottery] | None:
    """The signed-on player's open lottery, if there is one."""
    who = ctx.signed_on
    if who is None or not (who.is_player or who.is_observer):  # observers: reserves
        return None
    row = open_lottery_of(ctx, who.game)
    if row is None:
        return None
    label = label_for(ctx.session, who.game, who.membership)
    if label is None or label not in lottery_of(row).participants:
        return None
    claim_game(ctx.session, who.game)  # a deadline pass closing this lottery meanwhile: retried
    return who.game, who.membership, label, row


def _require_committing(row: FairLottery, lottery: Lottery) -> None:
    if row.stage != LOTTERY_COMMITTING:
        raise CommandRefused(
            f"the commitments of lottery {row.seq} were already published: a commitment cannot be "
            f"made or changed now; send REVEAL n with the number you committed to"
        )


def lottery_commit(ctx: MailContext, command: Commit) -> bool:
    found = _open_for(ctx)
    if found is None:
        return False
    game, member, label, row = found
    lottery = lottery_of(row)
    _require_committing(row, lottery)
    key = registered_key(ctx.session, member)
    if key is None:
        raise CommandRefused("you have no registered key: send SET KEY with your public key first"
                             + (", or use COMMIT SHA256" if has_rule(game, "LOTTERY_SHA256") else ""))
    with judge_keyring(ctx.session, ctx.judge, [member]) as ring:
        verdict = check_commitment(ring, command.signature_data, key.fingerprint)
    if not verdict.valid:
        raise CommandRefused(f"commitment refused: {verdict.reason}")
    _store_commitment(ctx, row, member, label, SIGNATURE, signature=command.signature_data,
                      fingerprint=key.fingerprint)
    ctx.done(command, f"commitment to your number for lottery {row.seq} ({contest_of(row).power}) recorded; "
                      f"it is published when every player has committed")
    maybe_publish(ctx, game, row)
    return True


def lottery_commit_sha256(ctx: MailContext, command: CommitSha256) -> bool:
    found = _open_for(ctx)
    if found is None:
        return False
    game, member, label, row = found
    _require_committing(row, lottery_of(row))
    if not has_rule(game, "LOTTERY_SHA256"):
        raise CommandRefused(f"game '{game.name}' wants signed commitments (no RULE LOTTERY_SHA256): "
                             "attach number.txt.asc made with gpg --armor --detach-sign number.txt")
    _store_commitment(ctx, row, member, label, SHA256, digest=command.digest)
    ctx.done(command, f"SHA-256 commitment for lottery {row.seq} ({contest_of(row).power}) recorded")
    maybe_publish(ctx, game, row)
    return True


def _refuse_reused(ctx: MailContext, row: FairLottery, label: str, signature: bytes | None, digest: str | None) -> None:
    """A commitment must be made fresh for each lottery (reference 002): one seen before in
    this game -- an earlier lottery's, or another player's -- is refused."""
    same = FairNumber.signature == signature if signature is not None else FairNumber.digest == digest
    earlier = ctx.session.execute(
        select(FairLottery.seq, FairNumber.label).join(FairLottery, FairLottery.id == FairNumber.lottery_id)
        .where(FairLottery.game_id == row.game_id, same)
    ).first()
    if earlier is not None and (earlier.seq, earlier.label) != (row.seq, label):
        raise CommandRefused(
            f"this commitment was already used (lottery {earlier.seq}): commit to your number in a new file, "
            "signed afresh" + ("" if signature is not None else ", with a new SALT line")
        )


def _store_commitment(ctx: MailContext, row: FairLottery, member: Membership, label: str, kind: str, *,
                      signature: bytes | None = None, digest: str | None = None,
                      fingerprint: str | None = None) -> None:
    _refuse_reused(ctx, row, label, signature, digest)
    existing = numbers_of(ctx, row).get(label)
    if existing is None:
        existing = FairNumber(lottery_id=row.id, label=label, membership_id=member.id, kind=kind,
                              committed_at=ctx.now)
        ctx.session.add(existing)
    existing.kind, existing.signature, existing.digest, existing.fingerprint = kind, signature, digest, fingerprint
    existing.committed_at = ctx.now
    row.lottery = to_data(lottery_of(row).commit(label))


def escrow_missing(ctx: Ctx, row: FairLottery) -> bool:
    return row.last_player is not None and ctx.session.get(FairEscrow, row.id) is None


def maybe_publish(ctx: Ctx, game: Game, row: FairLottery, *, deadline_passed: bool = False) -> None:
    """Publish the commitments once all are in (and the escrow, where one is due)."""
    lottery = lottery_of(row)
    if not deadline_passed and (lottery.missing_commitments or escrow_missing(ctx, row)):
        return
    lottery = lottery.publish_commitments(deadline_passed=True)
    row.lottery = to_data(lottery)
    row.stage = LOTTERY_REVEALING
    row.published_at = ctx.now
    row.deadline = ctx.now + window(game)
    numbers = numbers_of(ctx, row)
    commitments = []
    for label in lottery.participants:
        number = numbers.get(label)
        if number is None:
            commitments.append((label, "no commitment: counts as 0", ""))
        elif number.kind == SHA256:
            commitments.append((label, f"SHA256 {number.digest}", ""))
        else:
            text = (number.signature or b"").decode("ascii", "replace")
            commitments.append((label, f"signed by {number.fingerprint}", text.strip()))
    escrow = ctx.session.get(FairEscrow, row.id)
    body = render(
        "fair_commitments.j2", game=game.name, seq=row.seq, power=contest_of(row).power,
        commitments=commitments, escrow=escrow, last=row.last_player,
        deadline=as_utc(row.deadline).strftime("%Y-%m-%d %H:%M UTC"), outcomes=contest_of(row).outcomes,
    )
    record = ledger.commitments_record(game.name, row.seq, {
        label: commitment_entry(numbers[label]) if label in numbers else None for label in lottery.participants},
        keys=signers_keys(ctx, [ctx.session.get(Membership, n.membership_id) for n in numbers.values()
                                if n.kind != SHA256]))
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: lottery {row.seq} commitments",
                       body=body, kind="fair_commitments",
                       attachments=[record_file(ledger.record_name(game.name, row.seq, ledger.COMMITMENTS), record)]))


# -- reveals ------------------------------------------------------------------------------
def _require_revealing(row: FairLottery) -> None:
    if row.stage == LOTTERY_COMMITTING:
        # Who has not committed is not said: as with sealed orders, it would tell others'
        # progress to a player who has no business knowing it.
        raise CommandRefused(
            f"you cannot reveal yet: the commitments of lottery {row.seq} are not published; "
            "reveal after the judge broadcasts them"
        )


def lottery_reveal_number(ctx: MailContext, command: RevealNumber) -> bool:
    found = _open_for(ctx)
    if found is None:
        raise CommandRefused("REVEAL n reveals a lottery number, and no lottery of yours is open")
    game, member, label, row = found
    _require_revealing(row)
    outcomes = contest_of(row).outcomes
    if not 0 <= command.number < outcomes:
        raise CommandRefused(f"number {command.number} is outside 0..{outcomes - 1}: lottery {row.seq} "
                             f"has {outcomes} outcomes; reveal the number from 0 to {outcomes - 1} you committed to")
    number = _commitment(ctx, row, label)
    if number.kind == SHA256:
        raise CommandRefused("your commitment is a SHA-256 hash: send REVEAL, then the number and your "
                             "SALT line on the lines below it")
    _record_reveal(ctx, game, row, label, f"{command.number}\n".encode("ascii"))
    ctx.done(command, f"number {command.number} revealed for lottery {row.seq} and verified against your commitment")
    return True


def lottery_reveal_file(ctx: MailContext, command: Reveal) -> bool:
    found = _open_for(ctx)
    if found is None:
        return False
    game, member, label, row = found
    _require_revealing(row)
    _commitment(ctx, row, label)
    number = _record_reveal(ctx, game, row, label, command.data())
    ctx.done(command, f"number {number} revealed for lottery {row.seq} and verified against your commitment")
    return True


def _commitment(ctx: MailContext, row: FairLottery, label: str) -> FairNumber:
    number = numbers_of(ctx, row).get(label)
    if number is None:
        raise CommandRefused(f"you made no commitment in time for lottery {row.seq}: your number counts as 0")
    if number.number is not None:
        raise CommandRefused(f"you already revealed {number.number} for lottery {row.seq}")
    return number


def _record_reveal(ctx: MailContext, game: Game, row: FairLottery, label: str, data: bytes) -> int:
    """Check revealed bytes against the commitment and count the number."""
    number = numbers_of(ctx, row)[label]
    outcomes = contest_of(row).outcomes
    member = ctx.session.get(Membership, number.membership_id)
    committed = (Committed(digest=number.digest or "") if number.kind == SHA256
                 else Committed(signature=number.signature or b"", fingerprint=number.fingerprint or ""))
    try:
        check = check_reveal(committed, data, lambda: judge_keyring(ctx.session, ctx.judge, [member] if member else []))
        verdict = check.verdict
        if check.signed is None:
            shown = "" if number.kind == SHA256 else f" {data.decode('utf-8', 'replace').strip()!r}"
            raise CommandRefused(f"the reveal{shown} does not match your commitment: {verdict.reason}")
        if number.kind == SHA256:
            text, _salt = split_salted(check.signed.decode("utf-8"))
            value = read_number(text.encode("utf-8"), outcomes)
        else:
            value = read_number(check.signed, outcomes)
    except CommitmentFormatError as problem:
        raise CommandRefused(str(problem)) from None
    count_number(ctx, game, row, label, value, data, verdict.reason)
    return value


def count_number(ctx: Ctx, game: Game, row: FairLottery, label: str, value: int, data: bytes, note: str) -> None:
    """A verified number: record it, and decide the lottery once every number is in."""
    number = numbers_of(ctx, row)[label]
    number.number, number.revealed_data, number.reveal_note, number.revealed_at = value, data, note, ctx.now
    try:
        lottery = lottery_of(row).reveal(label, value)
    except LotteryError as problem:
        raise CommandRefused(str(problem)) from None
    row.lottery = to_data(lottery)
    publish_reveal(ctx, game, row, label, value, data)
    if lottery.stage is Stage.CLOSED:
        decide(ctx, game, row)


def publish_reveal(ctx: Ctx, game: Game, row: FairLottery, label: str, value: int, data: bytes) -> None:
    """Each verified reveal goes to the game's list as it arrives, with its record: a reveal
    the judge later claimed missing is then in every player's archive (issue 12.9)."""
    revealed = data.decode("utf-8", "replace")
    record = ledger.reveal_record(game.name, row.seq, label, value, revealed)
    body = render("fair_lottery_reveal.j2", game=game.name, seq=row.seq, power=contest_of(row).power, label=label,
                  number=value, revealed=revealed)
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: lottery {row.seq}: {label} revealed",
                       body=body, kind="fair_reveal",
                       attachments=[record_file(ledger.record_name(game.name, row.seq, ledger.REVEAL, label), record)]))


def decide(ctx: Ctx, game: Game, row: FairLottery) -> None:
    """Close the lottery: sum mod N, broadcast the working, hand the number on."""
    lottery = lottery_of(row)
    if lottery.stage is not Stage.CLOSED:
        lottery = lottery.close()
    outcome = lottery.outcome()
    contest = contest_of(row)
    winner = contest.winner(outcome.number)
    row.lottery = to_data(lottery)
    row.stage = LOTTERY_CLOSED
    row.closed_at = ctx.now
    row.deadline = None
    row.outcome = {
        "counted": [list(pair) for pair in outcome.counted], "defaulted": list(outcome.defaulted),
        "total": outcome.total, "number": outcome.number, "winner": winner,
    }
    body = render(
        "fair_lottery_result.j2", game=game.name, seq=row.seq, power=contest.power, outcome=outcome,
        winner=winner, outcomes=contest.outcomes, shares=share_lines(contest),
    )
    record = ledger.result_record(game.name, row.seq, row.outcome["counted"], row.outcome["defaulted"],
                                  outcome.number, winner)
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: lottery {row.seq} result",
                       body=body, kind="fair_lottery_result",
                       attachments=[record_file(ledger.record_name(game.name, row.seq, ledger.RESULT), record)]))
    DECIDED[row.purpose](ctx, game, row, contest, outcome.number)


# -- deadlines ----------------------------------------------------------------------------
def tell_member(ctx: Ctx, game: Game, member: Membership, subject: str, body: str, kind: str) -> None:
    ctx.send([to_member(game, ctx.judge, member, subject=subject, body=body, kind=kind)])


__all__ = [
    "DECIDED", "count_number", "decide", "maybe_publish", "open_lottery",
    "open_lottery_of", "window",
]
