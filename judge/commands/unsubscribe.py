"""UNSUBSCRIBE token: what the unsubscribe link of a game's mail does (RFC 8058's one
click, or its mailto).  The token (judge.mailauth.tokens) names the game and, by a keyed
hash, one member's address, so it is proof enough for an observer to leave.  A player
or the master is never resigned by one click: the answer says what happened and how to
resign (SIGNON and RESIGN, with the password)."""

from __future__ import annotations

from dataclasses import dataclass

from judge.commands.context import MailContext
from judge.commands.handler import Handler
from judge.mailio.inbound import CommandRefused
from judge.mailauth.keystore import token_key_in
from judge.mailauth.tokens import read_token
from judge.store.models_game import MASTER, MEMBER_ACTIVE, OBSERVER, RESIGNED, Game, Membership
from judge.store.queries import game_members, player_label
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count

HELP_ORDER = 52  # after JOIN, OBSERVE and TAKEOVER in GETTING STARTED


@dataclass(frozen=True, slots=True)
class Unsubscribe(Command):
    """``UNSUBSCRIBE token``: the unsubscribe link of a game's mail (its List-Unsubscribe
    header); the token proves whose copy it was, so no password is needed."""

    token: str


def _unsubscribe(ctx: ParseContext, line: CommandLine) -> Unsubscribe:
    [token] = expect_count(line, 1, 1, "the token of the link in a game's mail (List-Unsubscribe)")
    return Unsubscribe(token, source=line.source)

_NOT_A_LINK = ("this unsubscribe link is not one the judge made (was it cut short or changed?); "
               "to leave a game: SIGNON you@game password, then RESIGN")


def member_of_token(ctx: MailContext, text: str) -> tuple[Game, Membership]:
    """The game and the member whose link ``text`` is; CommandRefused otherwise."""
    token = read_token(text, "u")
    key = token_key_in(ctx.session)
    game = ctx.session.get(Game, token.number) if token is not None and key is not None else None
    if token is None or key is None or game is None:
        raise CommandRefused(_NOT_A_LINK)
    named = [m for m in game_members(ctx.session, game) if token.names(key, m.address)]
    if not named:
        raise CommandRefused(_NOT_A_LINK)
    active = [m for m in named if m.status == MEMBER_ACTIVE]
    return game, (active or named)[0]


def unsubscribe(ctx: MailContext, command: Unsubscribe) -> None:
    game, member = member_of_token(ctx, command.token)
    if member.status != MEMBER_ACTIVE:
        ctx.done(command, f"you no longer receive the mail of game '{game.name}' (nothing more to do)")
        return
    if member.role == OBSERVER:
        member.status = RESIGNED
        ctx.done(command, f"you no longer observe game '{game.name}' and receive no more of its mail")
        return
    if member.role == MASTER:
        ctx.done(command, f"nothing changed: you are the master of game '{game.name}', and its mail goes to you "
                          f"while it runs; TERMINATE ends it (SIGNON master@{game.name} password, then TERMINATE)")
        return
    who = member.power or player_label(ctx.session, game, member) or "you"
    ctx.done(command, f"nothing changed: you play {member.power or 'in'} game '{game.name}', and one click never "
                      f"resigns a player.  To leave it and its mail, send these two lines: SIGNON {who.lower()}@"
                      f"{game.name} yourpassword, then RESIGN (your power then waits for someone to take it over)")


VERBS = (
    Verb(("UNSUBSCRIBE",), "UNSUBSCRIBE token",
         "stop a game's mail (its unsubscribe link): an observer leaves; a player or master is told how to resign",
         _unsubscribe, secret_args=(0,), in_subject=True,  # the List-Unsubscribe mailto puts it in the Subject
         help=(("start", "UNSUBSCRIBE token", "a game mail's unsubscribe link: stop observing"),)),
)

HANDLERS = {Unsubscribe: Handler(unsubscribe)}
