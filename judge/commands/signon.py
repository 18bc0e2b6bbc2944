"""SIGNON power@game / Xgame / master@game / observer@game (SIGNOFF is signoff.py).

The throttle against password guessing, which the dispatcher applies before a SIGNON is
tried, is judge/commands/signon_throttle.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mailcmds import PowerListError, resolve_power
from judge.commands.context import MailContext
from judge.mailio.inbound import CommandRefused
from judge.commands.fair_players import player_by_number
from judge.store.queries import find_game, former_players, master_of, observers, player_label, player_of, variant_of
from judge.lifecycle import before_start
from judge.store.models_game import EJECTED, Game, Membership
from judge.store.passwords import verify_password
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count
from mailcmds.values import split_signon_id
from judge.commands.handler import Handler


HELP_ORDER = 15  # where this module's rows stand in their HELP sections (judge.commands.registry)

# -- the command's words: values and parsing (pure) --------------------

@dataclass(frozen=True, slots=True)
class Signon(Command):
    """``SIGNON power@game password`` or ``SIGNON Xgame password`` (X: the power's initial,
    M for the master).  ``power`` is upper-case as written (``FRANCE``, ``F``,
    ``MASTER``, an observer's name): the handler resolves it against the game."""

    opens_session: ClassVar[bool] = True
    power: str
    game: str
    password: str


def _signon(ctx: ParseContext, line: CommandLine) -> Signon:
    args = expect_count(line, 2, 2, "the power and game and a password")
    power, game = split_signon_id(args[0])
    return Signon(power, game, args[1], source=line.source)


VERBS = (
    Verb(("SIGNON",), "SIGNON power@game password (or SIGNON Xgame password, X the power's initial)",
         "sign on to a game as a power, an observer or its master; orders and commands follow",
         _signon, secret_args=(1,), opens_session=True,
         in_subject=True, help=(("play", "SIGNON power@game password", "sign on; orders and commands follow"),
               ("play", "SIGNON Xgame password", "the same, X = the power's initial"),
               ("play", "<orders>", "one per line (ORDERS below); your orders"),
               ("play", "", "replace those for the units named"),
               ("master", "SIGNON master@game password", "then status lines (edits) or:"),)),
)

MASTER_TOKENS = ("M", "MASTER")


def member_for(ctx: MailContext, game: Game, token: str) -> Membership:
    """The membership a SIGNON token names, or a refusal saying why there is none."""
    if token in MASTER_TOKENS:
        master = master_of(ctx.session, game)
        if master is None:
            raise CommandRefused(f"game '{game.name}' has no master")
        return master
    try:
        power = resolve_power(token, variant_of(game).powers)
    except PowerListError:
        power = None
    if power is not None:
        player = player_of(ctx.session, game, power)
        if player is not None:
            return player
        if before_start(game.status):
            raise CommandRefused(
                f"game '{game.name}' has not started: powers are assigned when every place is taken"
            )
        raise CommandRefused(
            f"{power} has no player in game '{game.name}' (TAKEOVER {power.lower()}@{game.name} password takes it over)"
        )
    for observer in observers(ctx.session, game):
        if (observer.name or "").upper() == token:
            return observer
    numbered = player_by_number(ctx.session, game, token)  # before powers are assigned
    if numbered is not None:
        return numbered
    raise CommandRefused(
        f"'{token}' is neither a power, the master nor an observer of game '{game.name}'; "
        f"write SIGNON power@{game.name} password (or M for the master)"
    )


def check_password(password: str, stored: str, who: str, game: Game) -> None:
    if not verify_password(password, stored):
        raise CommandRefused(f"wrong password for {who} in game '{game.name}'")


def _removed(ctx: MailContext, game: Game, command: Signon) -> str | None:
    """Why a former player signing on with his own password is no longer one (the master
    ejected him, or the judge dismissed him when grace ran out), or None."""
    try:
        power = resolve_power(command.power, variant_of(game).powers)
    except PowerListError:
        return None
    for former in former_players(ctx.session, game, power):
        if verify_password(command.password, former.password_hash):
            how = ("the master removed you (EJECT)" if former.status == EJECTED
                   else "the judge dismissed you when the grace period ended without your orders")
            return (f"you no longer play {power} in game '{game.name}': {how}, so your password no longer "
                    f"signs on; ask the master if you want to play on, or watch with OBSERVE name@{game.name} password")
    return None


def signon(ctx: MailContext, command: Signon) -> None:
    game = find_game(ctx.session, command.game)
    try:
        member = member_for(ctx, game, command.power)
        stored = game.master_password_hash if command.power in MASTER_TOKENS else member.password_hash
        label = "MASTER" if command.power in MASTER_TOKENS else (member.power or member.name or command.power)
        check_password(command.password, stored, label, game)
    except CommandRefused:
        removed = None if command.power in MASTER_TOKENS else _removed(ctx, game, command)
        if removed is not None:
            raise CommandRefused(removed) from None
        raise
    who = ctx.sign_on(game, member, command.source.number)
    number = player_label(ctx.session, game, member) if who.is_player and not member.power else None
    named = f"player {number} (power not yet assigned)" if number else who.label
    ctx.done(command, f"signed on as {named} in game '{game.name}'")


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    Signon: Handler(signon),
}
