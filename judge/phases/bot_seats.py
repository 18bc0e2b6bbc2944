"""Seats the master gave to the judge's own bot (``SEAT power BOT``, ``SEAT BOT``).

Such a seat is a player membership whose address is ``judge-bot<n>.<game>@machines.invalid``
(the reserved domain: judge.mailio.outgoing sends it nothing; no password is ever told, so nobody
signs on as it).  Its power counts as having ordered (no reminder, no late notice, never in
civil disorder); its orders are the bot's, made by a bot process from the moment the phase
begins (judge/phases/bot_moves.py) and stored as the power's orders, and the phase is
processed once they are in (judge/phases/order_sources.py ``awaiting_bot``), recorded with
the phase as any player's.
"""

from __future__ import annotations

from typing import Mapping

from judge.mailio.outgoing import MACHINE_DOMAIN
from judge.store.models_game import Membership

BOT_NAME = "the judge's bot"
#: Its name in DAIDE (SMR): AiClient-style clients show strings in single quotes, and an
#: apostrophe inside one reads as its end.
BOT_DAIDE_NAME = "JudgeBot"
_PREFIX = "judge-bot"


def bot_address(game_name: str, number: int) -> str:
    return f"{_PREFIX}{number}.{game_name}@{MACHINE_DOMAIN}"


def is_bot_seat(member: Membership) -> bool:
    address = member.address or ""
    return address.startswith(_PREFIX) and address.endswith("@" + MACHINE_DOMAIN)


def bot_powers(players: Mapping[str, Membership]) -> frozenset[str]:
    """The powers (of power -> active player) that the judge's bot plays."""
    return frozenset(power for power, member in players.items() if is_bot_seat(member))
