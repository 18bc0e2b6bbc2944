"""RULE BLIND_ASSIGN (reference 001): the game master's side of the blinded assignment.

When the game fills, the judge (the GM) starts a ``GmSide``: it sends the witness (the
game's ``WITNESS`` address: a second judge run with ``judge serve --role witness``, or a
person) ``SHUFFLE``, and each player a GM-blinded message.  The witness's mail
(``SHUFFLED``, ``COLLECTED``, ``CONFIRMED``, ``BLINDS``) drives the state machine on; the
judge answers with ``RECEIVED``, the final messages, ``REJECTED`` and ``FORMAT``.  When the
blinds are published, the GM's record says who plays what and the game starts.

Mail between the two judges carries ``Auto-Submitted: no``: it is protocol mail the other
judge must act on (their replies are auto-replied and never acted on, so nothing loops).
It is signed PGP/MIME with each judge's key and checked on receipt
(judge/publish/peer_mail.py): the witness's key is pinned from its first signed mail.
A witness silent for a day is reported to the master (judge/edge/fair_due.py, the
scheduler's deadline work); the game waits and keeps its state.
"""

from __future__ import annotations

import secrets
from typing import Sequence

from sqlalchemy import select

from judge.fair.blind import BlindError
from judge.fair.blind_messages import (
    WITNESS,
    BlindMessage,
    BlindsCollected,
    BlindsPublished,
    FinalMessage,
    FormatPublished,
    GmBlinded,
    ListReceipt,
    ReceiptsComplete,
    ReceiptsRejected,
    ShuffledList,
    ShuffleRequest,
)
from judge.fair.blind_protocol import GmSide, GmStage, ProtocolError
from judge.fair.serialize import from_data, to_data
from judge.mailio.outgoing import OutgoingMail
from judge.mailio.render import render
from judge.crypto.verdict import spaced
from judge.publish.broadcast import list_headers
from judge.publish.peer_mail import check_peer_mail, signed_peer_mail
from judge.commands.context import Ctx, MailContext
from judge.mailio.inbound import CommandRefused
from judge.store.queries import find_game, master_of, players, variant_of
from judge.commands.start import DEFERRERS, start_game
from judge.store.models_fair import ROLE_GM, BlindRun, FairWitness
from judge.lifecycle import FORMING
from judge.store.models_game import Game
from judge.commands.create import WitnessStatus
from judge.commands.fair import BlindCollected, BlindEchoes, BlindList, ShuffledList as ShuffledCmd
from mailcmds import Command
from judge.commands.handler import Handler, Needs
from judge.commands.fair import BlindConfirm, BlindFactor, BlindFormat, BlindReceipt, BlindShuffle, BlindedMessage


def witness_of(ctx: Ctx, game: Game) -> str | None:
    row = ctx.session.get(FairWitness, game.id)
    return row.address if row else None


def run_of(ctx: Ctx, game: Game) -> BlindRun | None:
    return ctx.session.execute(
        select(BlindRun).where(BlindRun.role == ROLE_GM, BlindRun.game_id == game.id).order_by(BlindRun.id.desc())
    ).scalars().first()


def set_witness(ctx: MailContext, command: WitnessStatus) -> None:
    game = ctx.require_master().game
    address = command.address.lower()
    if address == ctx.judge.address.lower():
        raise CommandRefused("the witness must be a third party, not this judge: name another judge "
                             "(judge serve --role witness) or a person")
    run = run_of(ctx, game)
    if run is not None:
        raise CommandRefused(f"the blinded assignment of '{game.name}' is under way with the witness "
                             f"{run.witness_address}; the witness cannot change now")
    row = ctx.session.get(FairWitness, game.id)
    if row is None:
        row = FairWitness(game_id=game.id, address=address, set_at=ctx.now)
        ctx.session.add(row)
    row.address, row.set_at = address, ctx.now
    ctx.done(command, f"the witness of game '{game.name}' is {address}")
    if game.status == FORMING and len(players(ctx.session, game)) == len(variant_of(game).powers):
        start_game(ctx, game)  # the game was full and waiting for its witness


def begin(ctx: Ctx, game: Game) -> bool:
    """The game filled: start the blinded assignment (True while it runs)."""
    run = run_of(ctx, game)
    if run is not None:
        return run.finished_at is None
    witness = witness_of(ctx, game)
    if witness is None:
        tell_master(ctx, game, "the game is full, but it has no witness: send WITNESS address (a judge "
                                "run with judge serve --role witness, or a person) and the blinded "
                                "assignment begins; the game waits until then")
        return True
    addresses = [member.address.lower() for member in players(ctx.session, game)]
    powers = [power.name for power in variant_of(game).powers]
    step = GmSide.start(addresses, powers, secrets.SystemRandom())
    run = BlindRun(role=ROLE_GM, game_id=game.id, game_name=game.name, gm_address=ctx.judge.address.lower(),
                   witness_address=witness, players=addresses, state=to_data(step.state), log=[],
                   started_at=ctx.now, waiting_since=ctx.now)
    ctx.session.add(run)
    ctx.session.flush()
    send_blind(ctx, game, run, step.outgoing)
    return True


def tell_master(ctx: Ctx, game: Game, text: str) -> None:
    master = master_of(ctx.session, game)
    if master is not None:
        ctx.send([OutgoingMail(recipients=(master.address,), subject=f"{game.name}: blinded assignment",
                               body=render("power_changed.j2", game=game.name, text=text), kind="fair_blind_master",
                               game_id=game.id)])


def _to_peer(ctx: Ctx, game: Game, run: BlindRun, subject: str, body: str) -> OutgoingMail:
    return signed_peer_mail(ctx.judge, run.witness_address, f"{game.name}: {subject}", body,
                            kind="fair_blind_peer", game_id=game.id)


def _require_witness_signature(ctx: MailContext, game: Game, run: BlindRun) -> None:
    """The witness's mail must be signed by its key: the first signed mail of the run pins
    it (the master is told its fingerprint), later ones must match.  A forged From is
    refused, and nothing of it is acted on."""
    checked = check_peer_mail(ctx.mail.raw, run.peer_key)
    if not checked.valid:
        raise CommandRefused(f"mail for the blinded assignment of '{game.name}' refused: {checked.reason}")
    if run.peer_key is None:
        run.peer_key, run.peer_fingerprint = checked.key, checked.fingerprint
        tell_master(ctx, game, f"the witness {run.witness_address} signs its mail with the key "
                                f"{spaced(checked.fingerprint or '')}; from now on only mail signed by that key "
                                "is taken as the witness's")


def _to_player(ctx: Ctx, game: Game, address: str, subject: str, body: str) -> OutgoingMail:
    return OutgoingMail(recipients=(address,), subject=f"{game.name}: {subject}", body=body,
                        kind="fair_blind_player", game_id=game.id, headers=list_headers(game, ctx.judge))


def send_blind(ctx: Ctx, game: Game, run: BlindRun, messages: Sequence[BlindMessage]) -> None:
    """Each protocol message as the email that carries it."""
    mails: list[OutgoingMail] = []
    witness = run.witness_address
    for message in messages:
        if isinstance(message, ShuffleRequest):
            body = render("fair_blind_shuffle.j2", game=game.name, length=message.length, players=message.players,
                          gm=ctx.judge.address)
            mails.append(_to_peer(ctx, game, run, "please shuffle (blinded assignment)", body))
        elif isinstance(message, GmBlinded):
            body = render("fair_blind_player.j2", game=game.name, message=message.message, witness=witness)
            mails.extend(_to_player(ctx, game, a, "your GM-blinded message", body) for a in message.recipients)
        elif isinstance(message, ListReceipt):
            mails.append(_to_peer(ctx, game, run, "list received", f"RECEIVED {game.name} {message.digest}\n"))
        elif isinstance(message, FinalMessage):
            body = render("fair_blind_final.j2", game=game.name, message=message.message, witness=witness)
            mails.extend(_to_player(ctx, game, a, "your final message", body) for a in message.recipients)
        elif isinstance(message, ReceiptsRejected):
            lines = "".join(f"{player} {echo}\n" for player, echo in message.rejected)
            mails.append(_to_peer(ctx, game, run, "receipts rejected", f"REJECTED {game.name}\n{lines}"))
        elif isinstance(message, FormatPublished):
            line = f"FORMAT {game.name} {message.format.template} {' '.join(message.format.powers)}\n"
            body = render("fair_blind_format.j2", game=game.name, line=line, witness=witness)
            for address in message.recipients:
                if address == WITNESS:
                    mails.append(_to_peer(ctx, game, run, "format published", line))
                else:
                    mails.append(_to_player(ctx, game, address, "the message format", body))
        else:  # pragma: no cover - the GM sends nothing else
            raise AssertionError(f"the GM does not send {type(message).__name__}")
    ctx.send(mails)


def _receive(ctx: MailContext, game_name: str, message: BlindMessage, command) -> None:
    game = find_game(ctx.session, game_name)
    run = run_of(ctx, game)
    if run is None:
        raise CommandRefused(f"game '{game.name}' has no blinded assignment under way")
    if ctx.sender.lower() != run.witness_address:
        raise CommandRefused(f"only the witness of game '{game.name}' sends this")
    _require_witness_signature(ctx, game, run)
    state: GmSide = from_data(run.state)
    try:
        step = state.receive(message, secrets.SystemRandom())
    except (ProtocolError, BlindError) as problem:
        raise CommandRefused(str(problem)) from None
    run.state = to_data(step.state)
    run.log = [*run.log, type(message).__name__]
    run.waiting_since = ctx.now
    run.told_master_at = None
    send_blind(ctx, game, run, step.outgoing)
    ctx.done(command, f"blinded assignment of '{game.name}': {step.state.stage.value}")
    if step.state.stage is GmStage.DONE and run.finished_at is None:
        _finish(ctx, game, run, step.state)


def _finish(ctx: MailContext, game: Game, run: BlindRun, state: GmSide) -> None:
    record = state.record
    assert record is not None
    if record.problems:
        tell_master(ctx, game, "the blinded assignment went wrong: " + "; ".join(record.problems)
                     + ". The game waits; the run's record is kept.")
        return
    run.finished_at = ctx.now
    by_address = {member.address.lower(): member for member in players(ctx.session, game)}
    for address, power in record.assignment:
        by_address[address].power = power
    ctx.session.flush()
    start_game(ctx, game)


def shuffled(ctx: MailContext, command: ShuffledCmd) -> None:
    _receive(ctx, command.game, ShuffledList(tuple(command.values)), command)


def collected(ctx: MailContext, command: BlindCollected) -> None:
    _receive(ctx, command.game, BlindsCollected(command.count), command)


def confirmed(ctx: MailContext, command: BlindEchoes) -> None:
    if command.rejected:
        raise CommandRefused("REJECTED goes from the game master to the witness, not to this judge")
    _receive(ctx, command.game, ReceiptsComplete(tuple(command.echoes)), command)


def blinds_published(ctx: MailContext, command: BlindList) -> None:
    _receive(ctx, command.game, BlindsPublished((), tuple(command.values)), command)


DEFERRERS["BLIND_ASSIGN"] = begin


def for_the_witness(ctx: MailContext, command: Command) -> None:
    """A player's or master's line meant for the witness judge, sent to this one instead."""
    words = command.source.text.split()
    verb = words[0].upper() if words else type(command).__name__.upper()  # each such verb is one word
    raise CommandRefused(f"{verb}: this mail belongs to the witness of a blinded assignment, not to the judge; "
                         f"send it to the witness's address; nothing was done")


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    ShuffledCmd: Handler(shuffled),
    BlindList: Handler(blinds_published),
    BlindCollected: Handler(collected),
    BlindEchoes: Handler(confirmed),
    BlindedMessage: Handler(for_the_witness),
    BlindFactor: Handler(for_the_witness),
    BlindReceipt: Handler(for_the_witness),
    BlindShuffle: Handler(for_the_witness),
    BlindConfirm: Handler(for_the_witness),
    BlindFormat: Handler(for_the_witness),
    WitnessStatus: Handler(set_witness, Needs.MASTER),
}
