"""The last-number escrow by email (reference 002), under RULE LOTTERY_ESCROW.

The designated last revealer sends ``ESCROW`` (the nested message built with ``judge player
escrow build``) with the commitment; it is broadcast with the commitments.  If that player
has not revealed when the reveal deadline passes, the judge asks the players who can open
the outermost layer to ``PEEL`` it (``judge player escrow peel``), checks the escrower's
signature on what they publish, broadcasts it and asks for the next layer, until the number
is out and verified against the commitment S(M).  Either member of a pair will do; if
nobody who can open a layer answers by the peel deadline, the peeling has broken down and
the number counts as 0.  The peeling is stored as the log of accepted layers and replayed.
"""

from __future__ import annotations

from judge.crypto.commitments import CommitmentFormatError, read_number
from judge.crypto.escrow import (
    EscrowError,
    EscrowPeeling,
    accept_peeled,
    mark_vanished,
    parse_plan,
    start_peeling,
    whom_to_ask,
)
from judge.crypto.gpg import Keyring
from judge.crypto.verdict import normalize_fingerprint
from judge.mailio.render import render
from judge.publish.broadcast import broadcast, to_member
from judge.commands.context import Ctx, MailContext
from judge.mailio.inbound import CommandRefused
from judge.commands.fair_lottery import (
    _open_for,
    contest_of,
    count_number,
    numbers_of,
    maybe_publish,
    window,
)
from judge.commands.fair_players import judge_keyring, numbered_players, registered_key
from judge.store.queries import as_utc
from judge.store.models_fair import LOTTERY_COMMITTING, LOTTERY_PEELING, LOTTERY_REVEALING, FairEscrow, FairLottery
from judge.store.models_game import Game, Membership
from judge.commands.fair import EscrowDeposit, EscrowPeel
from judge.commands.handler import Handler, Needs


def _published(command: EscrowDeposit | EscrowPeel) -> bytes:
    if command.attachment is not None:
        return command.attachment.data
    return (command.message or "").encode("utf-8")


def escrow_ring(ctx: Ctx, game: Game) -> Keyring:
    return judge_keyring(ctx.session, ctx.judge, [m for _, m in numbered_players(ctx.session, game)])


def deposit(ctx: MailContext, command: EscrowDeposit) -> None:
    found = _open_for(ctx)
    if found is None:
        raise CommandRefused("ESCROW goes with a lottery commitment, and no lottery of yours is open")
    game, member, label, row = found
    if row.last_player != label:
        who = row.last_player or "nobody (this game has no RULE LOTTERY_ESCROW)"
        raise CommandRefused(f"only the designated last revealer deposits an escrow in lottery {row.seq}: {who}")
    if row.stage != LOTTERY_COMMITTING:
        raise CommandRefused(f"the commitments of lottery {row.seq} are published: the escrow came too late")
    number = numbers_of(ctx, row).get(label)
    if number is None or number.signature is None:
        raise CommandRefused("send your signed COMMIT first (in the same mail, above ESCROW): the escrow "
                             "is checked against it")
    data = _published(command)
    with escrow_ring(ctx, game) as ring:
        try:
            peeling = start_peeling(ring, data, number.fingerprint or "", number.signature)
        except EscrowError as problem:
            raise CommandRefused(f"escrow refused: {problem}") from None
        layers = " or ".join(whom_to_ask(peeling)) or "nobody"
    escrow = ctx.session.get(FairEscrow, row.id)
    if escrow is None:
        escrow = FairEscrow(lottery_id=row.id, label=label, escrow="", deposited_at=ctx.now)
        ctx.session.add(escrow)
    escrow.escrow, escrow.deposited_at, escrow.peels, escrow.vanished = data.decode("ascii", "replace"), ctx.now, [], []
    ctx.session.flush()
    ctx.done(command, f"escrow recorded for lottery {row.seq}: signed by you, outermost layer for {layers}")
    maybe_publish(ctx, game, row)


def replay_peeling(ring: Keyring, escrow: FairEscrow, number_signature: bytes, fingerprint: str) -> EscrowPeeling:
    """The peeling as it stands, recomputed from the deposited escrow and the accepted layers."""
    plan = parse_plan(escrow.plan) if escrow.plan.strip() else None
    peeling = start_peeling(ring, escrow.escrow.encode("ascii"), fingerprint, number_signature, plan)
    for text, by in escrow.peels:
        peeling, answer = accept_peeled(ring, peeling, str(text).encode("utf-8"), by)
        if not answer.accepted:
            raise EscrowError(f"a stored layer no longer checks: {answer.reason}")
    for gone in escrow.vanished:
        peeling = mark_vanished(peeling, str(gone))
    return peeling


def _members_by_fingerprint(ctx: Ctx, game: Game) -> dict[str, Membership]:
    found: dict[str, Membership] = {}
    for _, member in numbered_players(ctx.session, game):
        key = registered_key(ctx.session, member)
        if key is not None:
            found[normalize_fingerprint(key.fingerprint)] = member
    return found


def ask_for_layer(ctx: Ctx, game: Game, row: FairLottery, escrow: FairEscrow, signature: bytes, fingerprint: str) -> None:
    with escrow_ring(ctx, game) as ring:
        peeling = replay_peeling(ring, escrow, signature, fingerprint)
    layer_number = peeling.stage + 1
    asked = list(whom_to_ask(peeling))
    escrow.asked = asked
    row.deadline = ctx.now + window(game)
    escrow.deadline = row.deadline
    holders = _members_by_fingerprint(ctx, game)
    layer_text = escrow.escrow if not escrow.peels else str(escrow.peels[-1][0])
    labels = {member.id: label for label, member in numbered_players(ctx.session, game)}
    names = [labels.get(holders[f].id, f) if f in holders else f for f in asked]
    body = render("fair_escrow_ask.j2", game=game.name, seq=row.seq, label=escrow.label, layer=layer_number,
                  escrower=fingerprint,
                  names=names, text=layer_text.strip(), deadline=as_utc(row.deadline).strftime("%Y-%m-%d %H:%M UTC"))
    for fingerprint_asked in asked:
        member = holders.get(fingerprint_asked)
        if member is not None:
            ctx.send([to_member(game, ctx.judge, member, subject=f"{game.name}: please open escrow layer {layer_number}",
                                body=body, kind="fair_escrow_ask")])
    notice = render("fair_escrow_notice.j2", game=game.name, seq=row.seq, label=escrow.label,
                    layer=layer_number, names=names, text=layer_text.strip())
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: lottery {row.seq} escrow layer {layer_number}",
                       body=notice, kind="fair_escrow_notice"))


def peel(ctx: MailContext, command: EscrowPeel) -> None:
    found = _open_for(ctx)
    if found is None:
        raise CommandRefused("PEEL answers the judge's request to open an escrow layer, and none is open for you")
    game, member, label, row = found
    escrow = ctx.session.get(FairEscrow, row.id)
    if row.stage != LOTTERY_PEELING or escrow is None:
        raise CommandRefused(f"no escrow of lottery {row.seq} is being opened now")
    key = registered_key(ctx.session, member)
    mine = normalize_fingerprint(key.fingerprint) if key else ""
    if mine not in escrow.asked:
        raise CommandRefused(f"this escrow layer is for {', '.join(escrow.asked)}, not for your key {mine or '(none)'}")
    escrower = numbers_of(ctx, row)[escrow.label]
    data = _published(command)
    with escrow_ring(ctx, game) as ring:
        peeling = replay_peeling(ring, escrow, escrower.signature or b"", escrower.fingerprint or "")
        peeling, answer = accept_peeled(ring, peeling, data, mine)
    if not answer.accepted:
        raise CommandRefused(f"layer refused: {answer.reason}")
    escrow.peels = [*escrow.peels, [data.decode("utf-8", "replace"), mine]]
    if peeling.number_file is None:
        ctx.done(command, f"{answer.reason}; the next layer is asked for")
        ask_for_layer(ctx, game, row, escrow, escrower.signature or b"", escrower.fingerprint or "")
        return
    try:
        value = read_number(peeling.number_file, contest_of(row).outcomes)
    except CommitmentFormatError as problem:
        value = 0
        escrow.result = f"the escrowed number cannot count: {problem}; counts as 0"
    else:
        escrow.result = f"{value}, recovered from the escrow and verified against the commitment"
    ctx.done(command, f"{answer.reason}: {escrow.label}'s number is {value}")
    row.stage = LOTTERY_REVEALING
    count_number(ctx, game, row, escrow.label, value, peeling.number_file, escrow.result)


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    EscrowDeposit: Handler(deposit, Needs.PLAYER),
    EscrowPeel: Handler(peel, Needs.PLAYER),
}
