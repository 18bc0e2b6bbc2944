"""RULE REGISTERED: a game only registered players may join or take over."""

from __future__ import annotations

from sqlalchemy.orm import Session

from judge.refusal import CommandRefused
from judge.registry.identity import player_of

REGISTERED = "REGISTERED"


def check_registered(session: Session, game_name: str, rule_names: frozenset[str], address: str) -> None:
    """Refuse (saying why and what to do) a newcomer at ``address`` to a RULE REGISTERED
    game when the address is linked to no registered player."""
    if REGISTERED in rule_names and player_of(session, address) is None:
        raise CommandRefused(
            f"game '{game_name}' is for registered players only (RULE {REGISTERED}), and {address} is linked to "
            "no registered player: send REGISTER name password from it, answer the confirmation, then join again")
