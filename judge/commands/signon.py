"""SIGNON power@game / Xgame / master@game / observer@game; the throttle
against password guessing.

The throttle: every refused SIGNON is recorded (address, game, who).  From an address
with 3 or more refusals in the last day, the next SIGNON waits 2^(n-3) minutes after the
last refusal (at most a day); the same for one game's power (or master or observer) over
all addresses but its owner's, so an attack from elsewhere never locks the owner out.  A
sign-on that must wait is refused unread, and the reply says until when.  An attacker's
best rate is then about 14 guesses a day per address and per account.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import ClassVar

from sqlalchemy import bindparam, or_, select

from mailcmds import PowerListError, resolve_power
from judge.commands.context import MailContext
from judge.mail import CommandRefused
from judge.commands.fair_players import player_by_number
from judge.store.queries import as_utc, find_game, master_of, observers, player_label, player_of, variant_of
from judge.lifecycle import before_start
from judge.store.models_game import Game, Membership
from judge.store.models_signon import SignonFailure
from judge.store.retention import SIGNON_MEMORY
from judge.store.passwords import verify_password
from judge.turns import format_deadline
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
               ("play", "<orders>", "one per line, e.g.  A PAR - BUR   F LON S F NTH"),
               ("play", "", "your orders replace those for the units named"),
               ("master", "SIGNON master@game password", "then status lines (edits) or:"),)),
)


MASTER_TOKENS = ("M", "MASTER")
#: Refusals that cost nothing; after them each one doubles the wait (from one minute).
FREE_REFUSALS = 3
THROTTLE_WINDOW = SIGNON_MEMORY
LONGEST_WAIT = timedelta(days=1)


def _member_for(ctx: MailContext, game: Game, token: str) -> Membership:
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


def signon(ctx: MailContext, command: Signon) -> None:
    game = find_game(ctx.session, command.game)
    member = _member_for(ctx, game, command.power)
    stored = game.master_password_hash if command.power in MASTER_TOKENS else member.password_hash
    label = "MASTER" if command.power in MASTER_TOKENS else (member.power or member.name or command.power)
    check_password(command.password, stored, label, game)
    who = ctx.sign_on(game, member, command.source.number)
    number = player_label(ctx.session, game, member) if who.is_player and not member.power else None
    named = f"player {number} (power not yet assigned)" if number else who.label
    ctx.done(command, f"signed on as {named} in game '{game.name}'")


# -- the throttle -----------------------------------------------------------------------------
def wait_until(refusals: int, last: datetime) -> datetime | None:
    """When the next sign-on may be tried after ``refusals`` in the window, the last at
    ``last``; None when it need not wait."""
    if refusals < FREE_REFUSALS:
        return None
    return last + min(timedelta(minutes=2 ** (refusals - FREE_REFUSALS)), LONGEST_WAIT)


# Built once, with bound parameters: every SIGNON asks (building the select cost more than running it).
_REFUSALS = select(SignonFailure.address, SignonFailure.game, SignonFailure.who, SignonFailure.failed_at).where(
    SignonFailure.failed_at > bindparam("since"),
    or_(SignonFailure.address == bindparam("address"),
        (SignonFailure.game == bindparam("game")) & (SignonFailure.who == bindparam("who"))))


def throttled(ctx: MailContext, command: Signon) -> str | None:
    """Why this SIGNON is refused unread, or None when it may be tried.

    One indexed read of the day's refusals from this address or for this account; the
    owner's address is looked up only when the account has enough refusals to matter."""
    address = ctx.sender.lower()
    game, who = command.game.lower(), command.power.upper()
    ctx.session.flush()  # this mail's refusals so far count (as the ORM's autoflush would)
    rows = ctx.session.connection().execute(_REFUSALS, {"since": ctx.now - THROTTLE_WINDOW, "address": address,
                                                        "game": game, "who": who}).all()
    if not rows:
        return None
    mine = [as_utc(row.failed_at) for row in rows if row.address == address]
    until = wait_until(len(mine), max(mine)) if mine else None
    if until is not None and until > ctx.now:
        return (f"not tried: {len(mine)} sign-ons from {address} were refused in the last day; the next one is read "
                f"from {format_deadline(until)} (each refusal doubles the wait)")
    others = [as_utc(row.failed_at) for row in rows if row.address != address and row.game == game and row.who == who]
    until = wait_until(len(others), max(others)) if others else None
    if until is None or until <= ctx.now or address == _owner_address(ctx, command):
        return None
    return (f"not tried: {len(others)} sign-ons for {who} in game '{game}' were refused in the last day; the next "
            f"one from an address other than its player's is read from {format_deadline(until)}")


def record_refusal(ctx: MailContext, command: Signon) -> None:
    ctx.session.add(SignonFailure(address=ctx.sender.lower(), game=command.game.lower()[:64],
                                  who=command.power.upper()[:64], failed_at=ctx.now))


def _owner_address(ctx: MailContext, command: Signon) -> str | None:
    """The address on file for the membership the SIGNON names (None when it names none)."""
    try:
        game = find_game(ctx.session, command.game)
        return (_member_for(ctx, game, command.power).address or "").lower() or None
    except CommandRefused:
        return None


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    Signon: Handler(signon),
}
