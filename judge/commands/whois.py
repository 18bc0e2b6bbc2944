"""WHOIS name|address: a registered player's public card (judge/registry/cards.py).

An address is answered only when its player made addresses public (or it is the asker's
own), and "no public registration" reads the same for an address nobody registered, so
WHOIS never tells a stranger that an address is linked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from judge.commands.context import MailContext
from judge.commands.handler import Handler
from judge.registry import book
from judge.registry.cards import card_lines, card_of
from judge.registry.profile import parse_name, public_fields
from judge.standing.records import record_of
from mailcmds.model import Command, quote
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count
from mailcmds.values import ValueSyntaxError, parse_address

HELP_ORDER = 81


@dataclass(frozen=True, slots=True)
class Whois(Command):
    """``WHOIS name`` or ``WHOIS address``: ``query`` is a checked player name or a
    lower-cased address."""

    answered_once: ClassVar[bool] = True
    query: str

    @property
    def is_address(self) -> bool:
        return "@" in self.query


def _whois(ctx: ParseContext, line: CommandLine) -> Whois:
    [query] = expect_count(line, 1, 1, "a player name or an address")
    try:
        checked = parse_address(query).lower() if "@" in query and len(query) <= 254 else parse_name(query)
    except ValueSyntaxError as error:
        raise line.fail(str(error) if len(query) <= 254 else f"'{quote(query, 60)}' is too long for an address") \
            from None
    return Whois(checked, source=line.source)


VERBS = (
    Verb(("WHOIS",), "WHOIS name or WHOIS address",
         "a registered player's card: the name and what the player made public",
         _whois, in_subject=True,
         help=(("registry", "WHOIS name", "a registered player: what he made public"),
               ("registry", "WHOIS address", "the same by address (if its player shows it)"),)),
)


def _record_lines(ctx: MailContext, addresses: tuple[str, ...]) -> tuple[str, ...]:
    """The player's record over all his linked addresses (judge.standing: computed from the
    stored games; a running gunboat game's power is not counted until it ends)."""
    return record_of(ctx.session, addresses).lines() if addresses else ()


def whois(ctx: MailContext, command: Whois) -> None:
    if command.is_address:
        player = book.player_at(ctx.session, command.query)
        own = command.query == ctx.sender.lower()
        if player is None or not (own or "addresses" in public_fields(player.public)):
            ctx.done(command, f"no public registration for {command.query}")
            return
    else:
        found = book.find(ctx.session, command.query)
        if found is not None and found.deleted_at is not None:
            ctx.done(command, f"{found.name} deleted the registration; the games played keep the name")
            return
        if found is None or not book.linked(ctx.session, found):  # a pending one is nobody's yet
            ctx.done(command, f"no player is registered as {command.query}")
            return
        player = found
        own = ctx.sender.lower() in book.linked(ctx.session, player)
    card = card_of(ctx.session, player, own=own)
    ctx.add_block("\n".join(card_lines(card, _record_lines(ctx, card.record_addresses))))
    ctx.done(command, f"player {player.name} below")


HANDLERS = {Whois: Handler(whois)}
