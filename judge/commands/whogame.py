"""WHOGAME game: who plays a game, by registered player name and what each made public.

Nothing here names an address.  A game whose identities are secret (judge.rules
.identities_secret: RULE GUNBOAT, BLIND_ASSIGN) is answered only once it has ended, and
a private game only to its members.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from judge.commands.context import MailContext
from judge.commands.handler import Handler
from judge.lifecycle import ENDED
from judge.mailio.inbound import CommandRefused
from judge.registry import book
from judge.registry.cards import card_of, short_card
from judge.rules import SECRET_IDENTITY_RULES, identities_secret
from judge.store.models_game import MASTER
from judge.store.queries import find_game, game_members, members, numbered_players, rule_names
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count
from mailcmds.values import parse_game

HELP_ORDER = 82


@dataclass(frozen=True, slots=True)
class Whogame(Command):
    """``WHOGAME game``."""

    answered_once: ClassVar[bool] = True
    game: str


def _whogame(ctx: ParseContext, line: CommandLine) -> Whogame:
    [game] = expect_count(line, 1, 1, "a game name")
    return Whogame(parse_game(game), source=line.source)


VERBS = (
    Verb(("WHOGAME",), "WHOGAME game",
         "who plays a game: each power's registered player and what he made public (after the end in gunboat games)",
         _whogame, in_subject=True,
         help=(("registry", "WHOGAME game", "each power's registered player (gunboat: at the end)"),)),
)


def whogame(ctx: MailContext, command: Whogame) -> None:
    game = find_game(ctx.session, command.game)
    everyone = game_members(ctx.session, game)
    if game.private and all(member.address.lower() != ctx.sender.lower() for member in everyone):
        raise CommandRefused(f"game '{game.name}' is private: WHOGAME shows its players to its members only")
    rules = rule_names(game)
    if identities_secret(rules, game.status == ENDED):
        named = " and ".join(f"RULE {rule}" for rule in SECRET_IDENTITY_RULES if rule in rules)
        raise CommandRefused(f"who plays which power in game '{game.name}' is secret until it ends ({named}); "
                             "WHOGAME answers then")
    seated = [(member.power or label, member) for label, member in numbered_players(ctx.session, game)]
    seated += [("MASTER", member) for member in members(ctx.session, game, role=MASTER)]
    registered = book.players_at(ctx.session, (member.address for _, member in seated))
    rows = []
    for label, member in seated:
        player = registered.get(member.address.lower())
        rows.append(f"  {label:<10} {short_card(card_of(ctx.session, player)) if player else '(not registered)'}")
    ctx.add_block("\n".join([f"Game {game.name}:", *rows]))
    ctx.done(command, f"the players of game '{game.name}' below")


HANDLERS = {Whogame: Handler(whogame)}
