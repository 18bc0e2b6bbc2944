"""The witness of the blinded assignment (reference 001): ``judge serve --role witness``.

A witness judge runs no games.  Its worker hook, :func:`process_witness_mail`, reads
``SHUFFLE`` from a game master judge (which starts a ``WitnessSide``), the players'
``BLINDED``, ``BLIND`` and ``CONFIRM`` lines, and the master judge's ``RECEIVED``,
``REJECTED`` and ``FORMAT``; it shuffles, forwards and publishes as the protocol says.
Runs are keyed by (game master's address, game name); players by their addresses.  Mail
from and to the game master judge is PGP/MIME signed (judge/publish/peer_mail.py): the key
a SHUFFLE is signed with is pinned for its run, and the GM's later lines must be signed by it.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.fair.blind import BlindError, MessageFormat
from judge.fair.blind_messages import (
    GM,
    BlindMessage,
    BlindReport,
    BlindRequest,
    BlindsCollected,
    BlindsPublished,
    FinalReceipt,
    FormatPublished,
    ListReceipt,
    PlayerBlinded,
    ReceiptsComplete,
    ReceiptsRejected,
    ShuffledList,
    ShuffleRequest,
)
from judge.fair.blind_protocol import ProtocolError, WitnessSide
from judge.fair.serialize import from_data, to_data
from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail
from judge.publish.peer_mail import PeerCheck, check_peer_mail, signed_peer_mail
from judge.mailio.render import render
from judge.store.models_fair import ROLE_WITNESS, BlindRun
from judge.mailio.inbound import InboundMail
from judge.commands.fair import (
    BlindConfirm,
    BlindEchoes,
    BlindFactor,
    BlindFormat,
    BlindReceipt,
    BlindShuffle,
    BlindedMessage,
)
from judge.commands.signoff import Signoff
from judge.commands.registry import parse_mail
from mailcmds import Command
from mailcmds.model import quote

class WitnessRefusal(Exception):
    """A line the witness cannot act on; the message says why."""


def _run(session: Session, game: str, *, gm: str | None = None, player: str | None = None) -> BlindRun:
    query = select(BlindRun).where(BlindRun.role == ROLE_WITNESS, BlindRun.game_name == game,
                                   BlindRun.finished_at.is_(None)).order_by(BlindRun.id.desc())
    for run in session.execute(query).scalars():
        if gm is not None and run.gm_address == gm:
            return run
        if player is not None and player in run.players:
            return run
    if gm is not None:
        raise WitnessRefusal(f"no blinded assignment of game '{game}' from {gm} is under way here")
    raise WitnessRefusal(f"you ({player}) are not a player of a blinded assignment of game '{game}' here")


class PeerSignatures:
    """The signature check of one mail from a game master judge, done once per mail."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self._checked: dict[str | None, PeerCheck] = {}

    def require(self, run_key: str | None, game: str) -> PeerCheck:
        if run_key not in self._checked:
            self._checked[run_key] = check_peer_mail(self.raw, run_key)
        checked = self._checked[run_key]
        if not checked.valid:
            raise WitnessRefusal(f"mail from the game master judge of '{game}' refused: {checked.reason}")
        return checked


def _start(session: Session, command: BlindShuffle, sender: str, now: datetime,
           signatures: PeerSignatures) -> BlindRun | None:
    players = tuple(address.lower() for address in command.players)
    existing = session.execute(select(BlindRun).where(
        BlindRun.role == ROLE_WITNESS, BlindRun.game_name == command.game, BlindRun.gm_address == sender,
        BlindRun.finished_at.is_(None))).scalars().first()
    checked = signatures.require(existing.peer_key if existing is not None else None, command.game)
    if existing is not None:
        if tuple(existing.players) == players:
            return None  # the same request again
        raise WitnessRefusal(f"a blinded assignment of game '{command.game}' from {sender} is already under way")
    try:
        state = WitnessSide.from_request(ShuffleRequest(players, command.length))
    except ProtocolError as problem:
        raise WitnessRefusal(str(problem)) from None
    run = BlindRun(role=ROLE_WITNESS, game_name=command.game, gm_address=sender, witness_address="",
                   players=list(players), state=to_data(state), log=[], started_at=now, waiting_since=now,
                   peer_key=checked.key, peer_fingerprint=checked.fingerprint)
    session.add(run)
    session.flush()
    return run


def _message(command: Command, sender: str, run: BlindRun) -> BlindMessage:
    """The protocol message a line stands for (GM-only lines checked against the sender)."""
    from_gm = sender == run.gm_address
    if isinstance(command, BlindedMessage):
        return PlayerBlinded(sender, command.value)
    if isinstance(command, BlindFactor):
        return BlindReport(sender, command.value)
    if isinstance(command, BlindConfirm):
        return FinalReceipt(sender, command.value)
    if not from_gm:
        raise WitnessRefusal(f"only the game master judge {run.gm_address} sends {command.source.text.split()[0]}")
    if isinstance(command, BlindReceipt):
        if command.digest is None:
            raise WitnessRefusal("RECEIVED needs the digest of the list as received (RECEIVED game digest)")
        return ListReceipt(command.digest, len(run.players))
    if isinstance(command, BlindEchoes) and command.rejected:
        return ReceiptsRejected(command.echoes)
    if isinstance(command, BlindFormat):
        try:
            fmt = MessageFormat(command.template, command.powers)
        except BlindError as problem:
            raise WitnessRefusal(str(problem)) from None
        return FormatPublished((), fmt)
    raise WitnessRefusal("a witness does not take this line")


def _mails(judge: JudgeSettings, run: BlindRun, messages: Sequence[BlindMessage]) -> list[OutgoingMail]:
    game, gm = run.game_name, run.gm_address
    mails: list[OutgoingMail] = []

    def to_gm(subject: str, body: str) -> OutgoingMail:
        return signed_peer_mail(judge, gm, subject, body, kind="fair_witness_peer")

    for message in messages:
        if isinstance(message, ShuffledList):
            body = f"SHUFFLED {game}\n" + "".join(f"{m}\n" for m in message.messages)
            mails.append(to_gm(f"{game}: shuffled list", body))
        elif isinstance(message, BlindRequest):
            body = render("fair_witness_blind_request.j2", game=game)
            mails.extend(OutgoingMail((p,), f"{game}: send your blind", body, kind="fair_witness_player")
                         for p in message.recipients)
        elif isinstance(message, BlindsCollected):
            mails.append(to_gm(f"{game}: blinds collected", f"COLLECTED {game} {message.count}\n"))
        elif isinstance(message, ReceiptsComplete):
            body = f"CONFIRMED {game}\n" + "".join(f"{p} {m}\n" for p, m in message.confirmed)
            mails.append(to_gm(f"{game}: receipts", body))
        elif isinstance(message, BlindsPublished):
            line = f"BLINDS {game}\n" + "".join(f"{b}\n" for b in message.blinds)
            for party in message.recipients:
                if party == GM:
                    mails.append(to_gm(f"{game}: the blinds", line))
                else:
                    body = render("fair_witness_blinds.j2", game=game, line=line)
                    mails.append(OutgoingMail((party,), f"{game}: the blinds", body, kind="fair_witness_player"))
        else:  # pragma: no cover - the witness sends nothing else
            raise AssertionError(f"the witness does not send {type(message).__name__}")
    return mails


def process_witness_mail(session: Session, inbound: InboundMail, now: datetime) -> list[OutgoingMail]:
    """The worker hook of ``judge serve --role witness``."""
    if not inbound.may_reply:
        return []
    sender = inbound.reply_address
    parsed = parse_mail(inbound.message)
    results: list[tuple[int, str, str, bool]] = []
    outgoing: list[OutgoingMail] = []
    signatures = PeerSignatures(inbound.raw)
    for command in parsed.commands:
        if isinstance(command, Signoff):
            break
        savepoint = session.begin_nested()
        try:
            if isinstance(command, BlindShuffle):
                run = _start(session, command, sender, now, signatures)
                note = "blinded assignment begun: waiting for the players' blinded messages" if run else "already begun"
            else:
                game = getattr(command, "game", None)
                if game is None:
                    raise WitnessRefusal("this judge is a witness for blinded power assignment and runs no games")
                run = _run(session, game, gm=sender if sender in _gms(session, game) else None, player=sender)
                if sender == run.gm_address:  # whatever its From says, the GM's mail is signed by its key
                    signatures.require(run.peer_key, game)
                state: WitnessSide = from_data(run.state)
                step = state.receive(_message(command, sender, run), secrets.SystemRandom())
                run.state = to_data(step.state)
                run.log = [*run.log, type(command).__name__]
                run.waiting_since = now
                if step.state.stage.name == "DONE":
                    run.finished_at = now
                outgoing.extend(_mails(inbound.judge, run, step.outgoing))
                note = step.state.stage.value
        except (WitnessRefusal, ProtocolError, BlindError) as problem:
            savepoint.rollback()
            results.append((command.source.number, quote(command.source.text), str(problem), False))
            continue
        savepoint.commit()
        results.append((command.source.number, quote(command.source.text), note, True))
    replies = _reply(inbound, sender, session, results, parsed)
    return replies + outgoing


def _gms(session: Session, game: str) -> set[str]:
    rows = session.execute(select(BlindRun.gm_address).where(BlindRun.role == ROLE_WITNESS,
                                                               BlindRun.game_name == game)).scalars()
    return set(rows)


def _reply(inbound: InboundMail, sender: str, session: Session, results: list[tuple[int, str, str, bool]],
           parsed) -> list[OutgoingMail]:
    """Players get a reply; a game master judge only hears about lines refused."""
    from_gm = session.execute(select(BlindRun.id).where(BlindRun.role == ROLE_WITNESS,
                                                        BlindRun.gm_address == sender)).first() is not None
    errors = [r for r in results if not r[3]] + [(e.line_no, e.text, e.message, False) for e in parsed.errors]
    if from_gm and not errors:
        return []
    body = render("fair_witness_reply.j2", results=sorted(results + [e for e in errors if e not in results]),
                  judge=inbound.judge.name)
    return [inbound.reply(body)]
