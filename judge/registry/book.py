"""The registry's book: finding, creating, linking and deleting registrations.

A name is held by a registration from REGISTER on; until one address is confirmed it is
*pending*, and a pending registration lapses after ``REQUEST_LIFETIME`` (its name is free
again), so a stranger cannot keep names by writing REGISTER.  A confirmed player always
keeps at least one address (the last is not unlinked: REGISTER DELETE ends the
registration instead).  Confirmation mail is the one thing here a stranger can send to
someone else's box, so each address gets at most one a day (``RESEND_AFTER``) and a player
has at most ``MOST_PENDING`` links waiting.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Iterable

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from judge.refusal import CommandRefused
from judge.store.models_registry import AddressRequest, RegisteredAddress, RegisteredPlayer
from judge.registry.profile import DEFAULT_PUBLIC, FieldChange
from judge.store.models_game import PLAYER, Membership
from judge.store.passwords import hash_password
from judge.store.queries import as_utc

REQUEST_LIFETIME = timedelta(days=3)
RESEND_AFTER = timedelta(days=1)
MOST_PENDING = 5


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def find(session: Session, name: str) -> RegisteredPlayer | None:
    return session.scalar(select(RegisteredPlayer).where(RegisteredPlayer.name_key == name.lower()))


def player_at(session: Session, address: str) -> RegisteredPlayer | None:
    """The registration ``address`` is linked to (confirmed), or None."""
    return session.scalar(select(RegisteredPlayer).join(RegisteredAddress)
                          .where(RegisteredAddress.address == address.lower()))


def linked(session: Session, player: RegisteredPlayer) -> tuple[str, ...]:
    return tuple(session.scalars(select(RegisteredAddress.address).where(RegisteredAddress.player_id == player.id)
                                 .order_by(RegisteredAddress.linked_at, RegisteredAddress.id)))


def lapsed(session: Session, player: RegisteredPlayer, now: datetime) -> bool:
    """A pending registration whose time to be confirmed is over."""
    return (player.deleted_at is None and as_utc(player.registered_at) + REQUEST_LIFETIME <= now
            and not linked(session, player))


def purge_lapsed_requests(session: Session, now: datetime) -> None:
    """Forget the links never confirmed: the strangers' addresses they hold."""
    session.execute(delete(AddressRequest).where(AddressRequest.requested_at <= now - REQUEST_LIFETIME))


def forget(session: Session, player: RegisteredPlayer) -> None:
    """Remove a lapsed pending registration whole (it never had an address)."""
    session.execute(delete(AddressRequest).where(AddressRequest.player_id == player.id))
    session.delete(player)
    session.flush()


def new_player(session: Session, name: str, password: str, now: datetime) -> RegisteredPlayer:
    player = RegisteredPlayer(name=name, name_key=name.lower(), password_hash=hash_password(password),
                              public=" ".join(DEFAULT_PUBLIC), registered_at=now)
    _insert(session, player, f"the player name {name} was registered by another mail a moment ago; choose another")
    return player


def _insert(session: Session, row: RegisteredPlayer | RegisteredAddress, taken: str) -> None:
    """Store a row whose unique key another transaction (another worker, another judge on
    the same database) may have just stored: that is a refusal saying so, not a crash."""
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:
        raise CommandRefused(taken) from None


def apply(player: RegisteredPlayer, change: FieldChange) -> None:
    """One profile field set ("" erases it); links are not fields (``request_link``, ``unlink``)."""
    value = change.value or None
    if change.field == "realname":
        player.real_name = value
    elif change.field == "country":
        player.country = value
    elif change.field == "zone":
        player.zone = value
    elif change.field == "level":
        player.level = value
    elif change.field == "public":
        player.public = change.value
    else:
        raise ValueError(f"{change.field} is not a profile field")


@dataclass(frozen=True)
class LinkRequest:
    """What asking to link ``address`` came to: ``token`` to mail (None when no mail is
    sent) and the words for the reply."""

    address: str
    token: str | None
    said: str


def request_link(session: Session, player: RegisteredPlayer, address: str, now: datetime,
                 asked_from: str) -> LinkRequest:
    """Ask to link ``address`` to ``player``: a token to mail there, unless the address
    is linked already, had a confirmation mailed in the last day (asked from another
    address: the asker's own box gets its reply anyway), or the player has too many
    waiting.  Whether the address belongs to someone else is told only to whoever answers
    from it (REGISTER CONFIRM), never to the asker."""
    address = address.lower()
    if address in linked(session, player):
        return LinkRequest(address, None, f"{address} is linked to you already")
    recent = session.scalar(select(func.max(AddressRequest.requested_at))
                            .where(AddressRequest.address == address))
    if recent is not None and as_utc(recent) + RESEND_AFTER > now and address != asked_from.lower():
        return LinkRequest(address, None, f"a confirmation was mailed to {address} in the last day and is not sent "
                                          f"again before {(as_utc(recent) + RESEND_AFTER):%Y-%m-%d %H:%M} UTC; "
                                          "answer the one sent")
    # A new token for the same link replaces the old one.
    session.execute(delete(AddressRequest).where(AddressRequest.player_id == player.id,
                                                 AddressRequest.address == address))
    waiting = session.scalar(select(func.count()).select_from(AddressRequest)
                             .where(AddressRequest.player_id == player.id)) or 0
    if waiting >= MOST_PENDING:
        raise CommandRefused(f"{waiting} links of yours wait for confirmation already (at most {MOST_PENDING}); "
                             "answer those first or wait until they lapse")
    token = secrets.token_urlsafe(12)
    session.add(AddressRequest(player_id=player.id, address=address, token_hash=token_hash(token), requested_at=now))
    return LinkRequest(address, token, f"a confirmation was mailed to {address}: the link is made when it is "
                                       "answered from there")


def confirm(session: Session, token: str, sender: str, now: datetime) -> tuple[RegisteredPlayer, bool]:
    """Link the address of the request ``token`` names to its player, when ``sender`` is
    that address.  Returns the player and whether the link is new (a second answer
    changes nothing).  CommandRefused saying why not."""
    request = session.scalar(select(AddressRequest).where(AddressRequest.token_hash == token_hash(token)))
    if request is None or as_utc(request.requested_at) + REQUEST_LIFETIME <= now:
        raise CommandRefused("this is not a confirmation the judge sent, or it lapsed (they stand for "
                             f"{REQUEST_LIFETIME.days} days): ask again with REGISTER name password")
    if request.address != sender.lower():
        raise CommandRefused("a confirmation is answered from the address it was mailed to, and this mail comes "
                             f"from {sender}: forward nothing, answer from that address")
    player = session.get(RegisteredPlayer, request.player_id)
    assert player is not None, "a request belongs to its player (foreign key)"
    owner = player_at(session, request.address)
    if owner is not None and owner.id == player.id:
        return player, False
    if owner is not None:
        raise CommandRefused(f"{request.address} is linked to player {owner.name} already, and an address belongs "
                             f"to one player (REGISTER {owner.name} password, then UNLINK {request.address}, frees it)")
    _insert(session, RegisteredAddress(player_id=player.id, address=request.address, linked_at=now),
            f"{request.address} was linked by another mail a moment ago; send WHOIS {request.address} to see it")
    session.execute(delete(AddressRequest).where(AddressRequest.address == request.address,
                                                 AddressRequest.player_id != player.id))
    return player, True


def unlink(session: Session, player: RegisteredPlayer, address: str) -> None:
    addresses = linked(session, player)
    if address.lower() not in addresses:
        raise CommandRefused(f"{address} is not linked to you ({len(addresses)} addresses are)")
    if len(addresses) == 1:
        raise CommandRefused(f"{address} is your only linked address; REGISTER DELETE name password ends the "
                             "registration instead")
    session.execute(delete(RegisteredAddress).where(RegisteredAddress.address == address.lower()))


def erase(session: Session, player: RegisteredPlayer, now: datetime) -> int:
    """Delete a registration: every personal field, link and waiting request gone; the
    row keeps the name, so the games keep it and nobody else takes it.  The seats the
    player held are named by the player name (instead of the name their mail gave).
    Returns how many addresses were unlinked."""
    addresses = linked(session, player)
    if addresses:
        session.execute(update(Membership).where(Membership.role == PLAYER,
                                                 Membership.address.in_(addresses))
                        .values(name=player.name).execution_options(synchronize_session=False))
    session.execute(delete(RegisteredAddress).where(RegisteredAddress.player_id == player.id))
    session.execute(delete(AddressRequest).where(AddressRequest.player_id == player.id))
    player.password_hash = ""
    player.real_name = player.country = player.zone = player.level = None
    player.public = ""
    player.deleted_at = now
    return len(addresses)


def players_at(session: Session, addresses: Iterable[str]) -> dict[str, RegisteredPlayer]:
    """Address -> the registration it is linked to, for those of ``addresses`` linked (one query)."""
    wanted = sorted({address.lower() for address in addresses})
    if not wanted:
        return {}
    rows = session.execute(select(RegisteredAddress.address, RegisteredPlayer).join(RegisteredPlayer)
                           .where(RegisteredAddress.address.in_(wanted))).all()
    return {address: player for address, player in rows}
