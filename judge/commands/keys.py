"""SET KEY (a player's OpenPGP key) and GET KEY (the judge's), and which key counts for whom.

A key is registered for one game (SET KEY after SIGNON as a player) or for the sender's
address on this judge (SET KEY without SIGNON), used in every game where the address
has no key of its own.  Before a game starts a player may replace a key freely; after
the start a new key only counts once the master approves it, so nobody (a master who
knows the password included) can slip in a key and sign commitments in a player's name:

* the player's SET KEY is stored as *pending* and the master is sent the key;
* the master approves by SIGNON master@game and SET KEY with that same key block.

When a game starts, each player's address key is copied into the game as its game key
(unless the player registered one for the game), so replacing the address key, or moving
to another address, leaves started games on the key they had, for the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.crypto.gpg import KeyImportError, Keyring
from judge.crypto.verdict import spaced
from judge.mailio.render import render
from judge.publish.broadcast import to_member
from judge.commands.context import MailContext
from judge.mailio.inbound import CommandRefused
from judge.store.queries import master_of
from judge.publish.signing import judge_keyring
from judge.lifecycle import before_start
from judge.store.models_game import MEMBER_ACTIVE, PLAYER, Game, Membership
from judge.store.models_sealed import KEY_ACTIVE, KEY_PENDING, KEY_REPLACED, PlayerKey
from judge.commands.commitments import SetKey
from judge.commands.handler import Handler
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, no_args

__all__ = ["effective_key", "ensure_imported", "get_key", "pin_address_keys", "set_key"]

HELP_ORDER = 12  # GET KEY after info's rows in GETTING STARTED


@dataclass(frozen=True, slots=True)
class GetKey(Command):
    """``GET KEY``: the judge's public OpenPGP key."""

    answered_once: ClassVar[bool] = True


def _get_key(ctx: ParseContext, line: CommandLine) -> GetKey:
    no_args(line)
    return GetKey(source=line.source)


def _started(game: Game) -> bool:
    return not before_start(game.status)


def game_key(session: Session, membership: Membership, status: str = KEY_ACTIVE) -> PlayerKey | None:
    return session.execute(
        select(PlayerKey)
        .where(PlayerKey.membership_id == membership.id, PlayerKey.status == status)
        .order_by(PlayerKey.id.desc()).limit(1)
    ).scalar_one_or_none()


def address_key(session: Session, address: str) -> PlayerKey | None:
    return session.execute(
        select(PlayerKey)
        .where(PlayerKey.address == address.lower(), PlayerKey.game_id.is_(None), PlayerKey.status == KEY_ACTIVE)
        .order_by(PlayerKey.id.desc()).limit(1)
    ).scalar_one_or_none()


def effective_key(session: Session, membership: Membership) -> PlayerKey | None:
    """The key that signs for ``membership``: its game key, else its address's key."""
    return game_key(session, membership) or address_key(session, membership.address)


def ensure_imported(keyring: Keyring, key: PlayerKey) -> None:
    """Put a registered key into the judge's keyring (after a restore or a new home)."""
    if keyring.primary_fingerprint(key.fingerprint) is None:
        keyring.import_public_key(key.armored)


def _import(ctx: MailContext, command: SetKey) -> tuple[str, str]:
    """(fingerprint, armored text) of the key block, checked and imported by gpg."""
    data = command.key_data
    try:
        armored = data.decode("ascii")
    except UnicodeDecodeError:
        raise CommandRefused(
            "the key is not ASCII-armored: send the output of gpg --armor --export you@example.org"
        ) from None
    with judge_keyring(ctx.judge, create=True) as key:
        assert key is not None
        try:
            fingerprint = key.keyring.import_public_key(armored)
        except KeyImportError as problem:
            raise CommandRefused(f"key not registered: {problem}") from None
        if fingerprint == key.fingerprint:
            raise CommandRefused("that is the judge's own key; send YOUR public key")
    return fingerprint, armored


def _pin(session: Session, member: Membership, key: PlayerKey, now: datetime) -> None:
    """Give ``member`` its own copy of ``key`` as its game key."""
    session.add(PlayerKey(address=key.address, game_id=member.game_id, membership_id=member.id,
                          fingerprint=key.fingerprint, armored=key.armored, status=KEY_ACTIVE,
                          registered_at=now))
    member.key_fingerprint = key.fingerprint


def pin_address_keys(session: Session, game: Game, now: datetime) -> None:
    """The game starts: each player without a game key of its own gets a copy of its
    address's key, so the game keeps that key whatever later happens to the address
    (a new address key, SET ADDRESS to an address without one)."""
    for member in session.execute(select(Membership).where(
            Membership.game_id == game.id, Membership.role == PLAYER, Membership.status == MEMBER_ACTIVE)).scalars():
        key = address_key(session, member.address)
        if key is not None and game_key(session, member) is None:
            _pin(session, member, key, now)
    session.flush()


def _pin_started_games(session: Session, old: PlayerKey, now: datetime) -> list[str]:
    """Give every started game of the address that used ``old`` its own copy of it."""
    pinned = []
    rows = session.execute(
        select(Membership).where(Membership.address == old.address, Membership.role == PLAYER,
                                 Membership.status == MEMBER_ACTIVE)
    ).scalars()
    for member in rows:
        if not _started(member.game) or game_key(session, member) is not None:
            continue
        _pin(session, member, old, now)
        pinned.append(member.game.name)
    return pinned


def _set_address_key(ctx: MailContext, command: SetKey, fingerprint: str, armored: str) -> None:
    address = ctx.sender.lower()
    old = address_key(ctx.session, address)
    if old is not None and old.fingerprint == fingerprint:
        ctx.done(command, f"key {spaced(fingerprint)} was already registered for {address}")
        return
    pinned: list[str] = []
    if old is not None:
        pinned = _pin_started_games(ctx.session, old, ctx.now)
        old.status = KEY_REPLACED
    ctx.session.add(PlayerKey(address=address, game_id=None, membership_id=None, fingerprint=fingerprint,
                              armored=armored, status=KEY_ACTIVE, registered_at=ctx.now))
    message = f"key {spaced(fingerprint)} registered for {address} (every game without a key of its own)"
    if pinned:
        message += (f"; started game(s) {', '.join(sorted(pinned))} keep the previous key: SIGNON there "
                    "and SET KEY to ask the master to change it")
    ctx.done(command, message)


def _set_game_key(ctx: MailContext, command: SetKey, member: Membership, fingerprint: str, armored: str) -> None:
    game = member.game
    current = effective_key(ctx.session, member)
    label = member.power or "you"
    if current is not None and current.fingerprint == fingerprint:
        ctx.done(command, f"key {spaced(fingerprint)} is already the key of {label} in game '{game.name}'")
        return
    row = PlayerKey(address=member.address.lower(), game_id=game.id, membership_id=member.id,
                    fingerprint=fingerprint, armored=armored, status=KEY_ACTIVE, registered_at=ctx.now)
    if current is None or not _started(game):
        old = game_key(ctx.session, member)
        if old is not None:
            old.status = KEY_REPLACED
        ctx.session.add(row)
        member.key_fingerprint = fingerprint
        ctx.done(command, f"key {spaced(fingerprint)} registered for {label} in game '{game.name}'")
        return
    # A started game with a key in use: the master must approve the change.
    for pending in _pending(ctx.session, member):
        pending.status = KEY_REPLACED
    row.status = KEY_PENDING
    ctx.session.add(row)
    master = master_of(ctx.session, game)
    if master is not None:
        body = render("sealed_key_request.j2", game=game.name, power=label, old=spaced(current.fingerprint),
                      new=spaced(fingerprint), key=armored.strip())
        ctx.send([to_member(game, ctx.judge, master, subject=f"{game.name}: {label} asks to change its key",
                            body=body, kind="key_request")])
    ctx.done(command, (
        f"key {spaced(fingerprint)} is waiting for the master's approval: game '{game.name}' has started, "
        f"and until the master approves, your key stays {spaced(current.fingerprint)}"
    ))


def _pending(session: Session, member: Membership) -> list[PlayerKey]:
    return list(session.execute(
        select(PlayerKey).where(PlayerKey.membership_id == member.id, PlayerKey.status == KEY_PENDING)
    ).scalars())


def _approve(ctx: MailContext, command: SetKey, game: Game, fingerprint: str) -> None:
    """The master's SET KEY: approve the pending key with this fingerprint."""
    pending = ctx.session.execute(
        select(PlayerKey).where(PlayerKey.game_id == game.id, PlayerKey.status == KEY_PENDING,
                                PlayerKey.fingerprint == fingerprint)
    ).scalars().first()
    if pending is None:
        raise CommandRefused(
            f"no player of game '{game.name}' is waiting for key {spaced(fingerprint)}: a master's SET KEY "
            "approves a key a player asked for (send back the key block from the request)"
        )
    member = ctx.session.get(Membership, pending.membership_id)
    assert member is not None
    old = game_key(ctx.session, member)
    if old is not None:
        old.status = KEY_REPLACED
    pending.status = KEY_ACTIVE
    member.key_fingerprint = fingerprint
    ctx.done(command, f"approved: key {spaced(fingerprint)} is now the key of {member.power} in game '{game.name}'")


def set_key(ctx: MailContext, command: SetKey) -> None:
    fingerprint, armored = _import(ctx, command)
    who = ctx.signed_on
    if who is not None and who.is_master:
        _approve(ctx, command, who.game, fingerprint)
    elif who is not None and who.is_player:
        _set_game_key(ctx, command, who.membership, fingerprint, armored)
    else:
        _set_address_key(ctx, command, fingerprint, armored)


def get_key(ctx: MailContext, command: GetKey) -> None:
    with judge_keyring(ctx.judge, create=True) as key:
        assert key is not None
        armored = key.keyring.export_public_key(key.fingerprint)
        fingerprint = key.fingerprint
    ctx.add_block(render("judge_key.j2", fingerprint=spaced(fingerprint), key=armored.strip(),
                         address=ctx.judge.address))
    ctx.done(command, f"the judge's public key is below (fingerprint {spaced(fingerprint)})")


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    GetKey: Handler(get_key),
    SetKey: Handler(set_key),  # its words are commitments.py's, with COMMIT and REVEAL
}

VERBS = (
    Verb(("GET", "KEY"), "GET KEY", "the judge's public OpenPGP key (to check its signed mail)", _get_key,
         in_subject=True, help=(("start", "GET KEY", "the judge's public OpenPGP key"),)),
)
