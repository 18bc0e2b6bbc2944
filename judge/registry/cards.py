"""What WHOIS and WHOGAME may show of a registered player: the name, and of the rest only
what the player made public (``own``: the player asking about himself sees everything)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from judge.registry.book import linked
from judge.store.models_registry import RegisteredPlayer
from judge.registry.profile import public_fields


@dataclass(frozen=True)
class Card:
    """``rows``: (label, value) of the fields shown; ``addresses``: the linked addresses
    when shown, else None; ``record_addresses``: whose record to show (() when it is not
    public)."""

    name: str
    registered_on: str
    rows: tuple[tuple[str, str], ...]
    addresses: tuple[str, ...] | None
    record_addresses: tuple[str, ...]
    own: bool


_LABELS = (("realname", "Real name"), ("country", "Country"), ("zone", "Time zone"), ("level", "Level"))


def card_of(session: Session, player: RegisteredPlayer, *, own: bool = False) -> Card:
    shown = public_fields(player.public)
    values = {"realname": player.real_name, "country": player.country, "zone": player.zone, "level": player.level}
    rows = tuple((label, values[field] or "") for field, label in _LABELS
                 if (own or field in shown) and values[field])
    addresses = linked(session, player)
    return Card(player.name, f"{player.registered_at:%Y-%m-%d}", rows,
                addresses if own or "addresses" in shown else None,
                addresses if own or "record" in shown else (), own)


def card_lines(card: Card, record: tuple[str, ...] = ()) -> list[str]:
    """The card as text; ``record`` the lines of the player's record (when shown)."""
    lines = [f"Player: {card.name}", f"Registered: {card.registered_on}"]
    lines += [f"{label}: {value}" for label, value in card.rows]
    if card.addresses is not None:
        lines.append(f"Addresses: {', '.join(card.addresses)}")
    lines += record
    if card.own:
        lines.append("(your own registration: others see only what PUBLIC names)")
    return lines


def short_card(card: Card) -> str:
    """One line for WHOGAME: the name and the public fields."""
    extra = ", ".join(value for _, value in card.rows)
    return f"{card.name} ({extra})" if extra else card.name
