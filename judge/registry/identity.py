"""Which registered player an address belongs to, and the reverse: what other packages
(records, ratings) key players on.  Only confirmed links count, and a deleted
registration has none."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from judge.store.models_registry import RegisteredAddress, RegisteredPlayer

_PLAYER_OF = (select(RegisteredPlayer.name).join(RegisteredAddress, RegisteredAddress.player_id == RegisteredPlayer.id)
              .where(RegisteredAddress.address == bindparam("address")))
_ADDRESSES_OF = (select(RegisteredAddress.address)
                 .join(RegisteredPlayer, RegisteredAddress.player_id == RegisteredPlayer.id)
                 .where(RegisteredPlayer.name_key == bindparam("key"))
                 .order_by(RegisteredAddress.linked_at, RegisteredAddress.id))


def player_of(session: Session, address: str) -> str | None:
    """The name of the player ``address`` is linked to (any case), or None."""
    return session.scalar(_PLAYER_OF, {"address": address.strip().lower()})


def addresses_of(session: Session, name: str) -> tuple[str, ...]:
    """The addresses linked to player ``name`` (any case), oldest link first; () for a
    name nobody registered or a deleted registration."""
    return tuple(session.scalars(_ADDRESSES_OF, {"key": name.strip().lower()}))


def addresses_with(session: Session, address: str) -> tuple[str, ...]:
    """Every address of the player ``address`` is linked to (a record over all of them),
    or ``address`` alone (lower case) when it is linked to nobody."""
    name = player_of(session, address)
    return addresses_of(session, name) if name is not None else (address.strip().lower(),)
