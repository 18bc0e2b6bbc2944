"""The throttle against password guessing: who is held, for which account, and how long.

Every refused SIGNON is recorded (its sender, game and account).  A sender with 3 or more
refusals in the last day waits 2^(n-3) minutes after the last one (at most a day) before
its next SIGNON is read; the same for an account over every sender but its owner.  A
sign-on that must wait is refused unread, and the reply says until when.

The sender is judge.mailio.senders.sender_of's: the envelope sender and the connecting address
(or a verified identity), never the From or Reply-To a stranger can write, so forging the
owner's From holds the forger, not the owner.  The account is the game and the power
(``F``, ``FRANCE`` and ``Fgame`` are one), ``MASTER`` (``M`` too) or an observer's name,
so spelling a power another way gains no guesses.  A registration's password (REGISTER,
REGISTER DELETE) is an account too, its player name in the space ``*registry``, and a
sender's refusals count across both.  An attacker's best rate is about 14 guesses a day
per sender and per account.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, or_, select

from judge.commands.signon import Signon
from mailcmds import Command, PowerListError, resolve_power

from judge.commands.context import MailContext
from judge.commands.register import THROTTLE_SPACE, Register, RegisterDelete
from judge.registry.identity import addresses_of
from judge.commands.signon import MASTER_TOKENS, member_for
from judge.mailio.inbound import CommandRefused
from judge.mailio.senders import sender_of
from judge.store.models_game import Game
from judge.store.models_signon import SignonFailure
from judge.store.queries import as_utc, find_game, variant_of
from judge.store.retention import SIGNON_MEMORY
from judge.turns import format_deadline

#: Refusals that cost nothing; after them each one doubles the wait (from one minute).
FREE_REFUSALS = 3
THROTTLE_WINDOW = SIGNON_MEMORY
LONGEST_WAIT = timedelta(days=1)


def wait_until(refusals: int, last: datetime) -> datetime | None:
    """When the next sign-on may be tried after ``refusals`` in the window, the last at
    ``last``; None when it need not wait."""
    if refusals < FREE_REFUSALS:
        return None
    return last + min(timedelta(minutes=2 ** (refusals - FREE_REFUSALS)), LONGEST_WAIT)


def account_of(game: Game | None, token: str) -> str:
    """The one name of the account a SIGNON token names, whatever its spelling: the
    power's full name, ``MASTER``, or the token itself (an observer, a player's number,
    a game that does not exist)."""
    upper = token.upper()
    if upper in MASTER_TOKENS:
        return "MASTER"
    if game is None:
        return upper
    try:
        return resolve_power(upper, variant_of(game).powers)
    except PowerListError:
        return upper


@dataclass(frozen=True)
class Attempt:
    """What a SIGNON tries: ``key`` (game, account), case folded and spelling-free, and
    what the owner's address is looked up from (the game's row, None when there is no
    such game, and the token as written)."""

    key: tuple[str, str]
    game: Game | None
    token: str


def attempt(ctx: MailContext, command: Command) -> Attempt | None:
    """The account a password-checked command tries (a SIGNON: one read of the game's
    row; REGISTER, REGISTER DELETE: the player name), None for any other command."""
    if isinstance(command, Signon):
        game = _game(ctx, command)
        return Attempt((command.game.lower(), account_of(game, command.power)), game, command.power)
    if isinstance(command, (Register, RegisterDelete)):
        return Attempt((THROTTLE_SPACE, command.name.upper()), None, command.name)
    return None


def account_text(key: tuple[str, str]) -> str:
    """An account as a reply names it."""
    space, who = key
    return f"player name {who}" if space == THROTTLE_SPACE else f"{who} in game '{space}'"


# Built once, with bound parameters: every SIGNON asks (building the select cost more than running it).
_REFUSALS = select(SignonFailure.address, SignonFailure.game, SignonFailure.who, SignonFailure.failed_at).where(
    SignonFailure.failed_at > bindparam("since"),
    or_(SignonFailure.address == bindparam("address"),
        (SignonFailure.game == bindparam("game")) & (SignonFailure.who == bindparam("who"))))


def throttled(ctx: MailContext, tried: Attempt) -> str | None:
    """Why this sign-on is refused unread, or None when it may be tried.

    One indexed read of the day's refusals from this sender or for this account; the
    owner's address is looked up only when the account has enough refusals to matter."""
    sender = sender_of(ctx.mail)
    game_name, who = tried.key
    ctx.session.flush()  # this mail's refusals so far count (as the ORM's autoflush would)
    rows = ctx.session.connection().execute(_REFUSALS, {"since": ctx.now - THROTTLE_WINDOW, "address": sender.key,
                                                        "game": game_name, "who": who}).all()
    if not rows:
        return None
    mine = [as_utc(row.failed_at) for row in rows if row.address == sender.key]
    until = wait_until(len(mine), max(mine)) if mine else None
    if until is not None and until > ctx.now:
        return (f"not tried: {len(mine)} sign-ons from {sender.key} were refused in the last day; the next one is "
                f"read from {format_deadline(until)} (each refusal doubles the wait)")
    others = [as_utc(row.failed_at) for row in rows
              if row.address != sender.key and row.game == game_name and row.who == who]
    until = wait_until(len(others), max(others)) if others else None
    if until is None or until <= ctx.now or (sender.address and sender.address in _owner_addresses(ctx, tried)):
        return None
    return (f"not tried: {len(others)} sign-ons for {account_text(tried.key)} were refused in the last day; the "
            f"next one from an address other than its player's is read from {format_deadline(until)}")


def record_refusal(ctx: MailContext, tried: Attempt) -> None:
    game_name, who = tried.key
    ctx.session.add(SignonFailure(address=sender_of(ctx.mail).key, game=game_name[:64], who=who[:64],
                                  failed_at=ctx.now))


def _game(ctx: MailContext, command: Signon) -> Game | None:
    try:
        return find_game(ctx.session, command.game)
    except CommandRefused:
        return None


def _owner_addresses(ctx: MailContext, tried: Attempt) -> tuple[str, ...]:
    """The addresses on file for the account tried: the membership's the sign-on names, or
    those linked to the player name; () when it names none."""
    if tried.key[0] == THROTTLE_SPACE:
        return addresses_of(ctx.session, tried.token)
    if tried.game is None:
        return ()
    try:
        address = (member_for(ctx, tried.game, tried.token).address or "").lower()
    except CommandRefused:
        return ()
    return (address,) if address else ()
