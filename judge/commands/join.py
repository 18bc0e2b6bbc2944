"""Taking and leaving a place: JOIN, OBSERVE, TAKEOVER, RESIGN."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mailcmds import PowerListError, resolve_power
from judge.mailio.render import render
from judge.publish.broadcast import broadcast
from judge.commands.context import MailContext
from judge.mailio.inbound import CommandRefused
from judge.store.queries import (
    find_game,
    has_rule,
    latest_of_power,
    observers,
    player_label,
    player_of,
    players,
    power_named,
    rule_names,
    variant_of,
)
from judge.commands.signon import MASTER_TOKENS, check_password
from judge.commands.start import start_game
from judge.phases.turnstate import fresh_deadline_for_newcomer
from judge.lifecycle import ENDED, FORMING, PREPARATION, before_start, in_play
from judge.store.models_game import DUMMY, MASTER, OBSERVER, PLAYER, RESIGNED, Game, Membership
from judge.store.passwords import hash_password, verify_password
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count
from mailcmds.values import ValueSyntaxError, parse_game, split_power_at_game, split_signon_id
from judge.commands.handler import Handler
from judge.registry.admission import check_registered
from judge.standing.restrictions import check_standing


HELP_ORDER = 50  # where this module's rows stand in their HELP sections (judge.commands.registry)

# -- the command's words: values and parsing (pure) --------------------

@dataclass(frozen=True, slots=True)
class Join(Command):
    """``JOIN game password [privacy]`` or ``JOIN power@game password [privacy]`` (choosing
    a power needs the game's POWER_CHOICE rule).  ``privacy`` is the keyword a private
    game's master gave out."""

    opens_session: ClassVar[bool] = True
    game: str
    password: str
    power: str | None = None
    privacy: str | None = None


@dataclass(frozen=True, slots=True)
class Observe(Command):
    """``OBSERVE name@game password [privacy]``: receive the game's broadcasts."""

    opens_session: ClassVar[bool] = True
    name: str
    game: str
    password: str
    privacy: str | None = None


@dataclass(frozen=True, slots=True)
class Takeover(Command):
    """``TAKEOVER power@game password [privacy]``: play a power whose player left."""

    opens_session: ClassVar[bool] = True
    power: str
    game: str
    password: str
    privacy: str | None = None


@dataclass(frozen=True, slots=True)
class Resign(Command):
    """``RESIGN`` (after SIGNON) or ``RESIGN power@game password``.  Refused whole when
    the mail has any error (see ``ParsedMail.resign_allowed``)."""

    power: str | None = None
    game: str | None = None
    password: str | None = None


def _join(ctx: ParseContext, line: CommandLine) -> Join:
    args = expect_count(line, 2, 3, "a game name and a password")
    privacy = args[2] if len(args) == 3 else None
    if "@" in args[0]:
        power, game = split_power_at_game(args[0])
        return Join(game, args[1], power, privacy, source=line.source)
    return Join(parse_game(args[0]), args[1], None, privacy, source=line.source)


def _observe(ctx: ParseContext, line: CommandLine) -> Observe:
    args = expect_count(line, 2, 3, "your observer name at the game and a password")
    if "@" not in args[0]:
        raise line.fail(f"OBSERVE needs a name for you before the game: '{args[0]}' has no '@'")
    try:
        name, game = split_power_at_game(args[0])
    except ValueSyntaxError:
        raise line.fail(
            f"'{args[0]}' is not name@game: an observer name is letters, digits, '_' or '-' (john_smith@mygame)"
        ) from None
    return Observe(name, game, args[1], args[2] if len(args) == 3 else None, source=line.source)


def _takeover(ctx: ParseContext, line: CommandLine) -> Takeover:
    args = expect_count(line, 2, 3, "the power and game and a password")
    power, game = split_signon_id(args[0])
    return Takeover(power, game, args[1], args[2] if len(args) == 3 else None, source=line.source)


def _resign(ctx: ParseContext, line: CommandLine) -> Resign:
    args = line.args
    if not args:
        return Resign(source=line.source)
    if len(args) == 1 and "@" not in args[0]:
        raise line.fail(
            f"RESIGN takes no power name after SIGNON (a master removes a player with EJECT {args[0]})"
        )
    args = expect_count(line, 2, 2, "the power and game and the password, or nothing after SIGNON")
    power, game = split_signon_id(args[0])
    return Resign(power, game, args[1], source=line.source)


VERBS = (
    Verb(("JOIN",), "JOIN game password or JOIN power@game password (add the privacy keyword for a private game)",
         "join a forming game (a power of your choice only if the game allows it)",
         _join, secret_args=(1, 2), opens_session=True,
         in_subject=True, help=(("start", "JOIN game password", "join a forming game (power assigned at random)"),
               ("start", "JOIN power@game password", "join as that power (if the game allows choosing)"),
               ("start", "", "(a private game: add its keyword after the password)"),)),
    Verb(("OBSERVE",), "OBSERVE name@game password",
         "watch a game: receive its broadcasts and results", _observe, secret_args=(1, 2), opens_session=True,
         in_subject=True, help=(("start", "OBSERVE name@game password", "watch a game"),)),
    Verb(("TAKEOVER",), "TAKEOVER power@game password",
         "take over a power that has no player", _takeover, secret_args=(1, 2), opens_session=True,
         in_subject=True, help=(("start", "TAKEOVER power@game password", "play a power that has no player"),)),
    Verb(("RESIGN",), "RESIGN (after SIGNON) or RESIGN power@game password",
         "leave the game; refused if the mail has any error", _resign, secret_args=(1,),
         help=(("play", "RESIGN", "leave the game (refused if the mail has any error)"),
               ("play", "RESIGN power@game password", "the same without SIGNON"),)),
)


def check_privacy(game: Game, keyword: str | None) -> None:
    """A private game needs the master's keyword after the password."""
    if not game.private or not game.privacy_hash:
        return
    if keyword is None:
        raise CommandRefused(
            f"game '{game.name}' is private: add the keyword its master gave you after your password"
        )
    if not verify_password(keyword, game.privacy_hash):
        raise CommandRefused(f"wrong keyword for the private game '{game.name}'")


def _refuse_second_place(ctx: MailContext, game: Game) -> None:
    for member in players(ctx.session, game):
        if member.address.lower() == ctx.sender.lower():
            raise CommandRefused(
                f"{ctx.sender} already has a place in game '{game.name}'; one power per player "
                f"(SIGNON to change your orders or settings)"
            )


def _new_member(ctx: MailContext, game: Game, role: str, password: str, *, power: str | None = None,
                name: str | None = None) -> Membership:
    member = Membership(
        game_id=game.id, role=role, power=power, name=name, address=ctx.sender,
        password_hash=hash_password(password), joined_at=ctx.now,
    )
    ctx.session.add(member)
    ctx.session.flush()
    return member


def join(ctx: MailContext, command: Join) -> None:
    game = find_game(ctx.session, command.game, lock=True)
    if game.status == PREPARATION:
        raise CommandRefused(f"game '{game.name}' is not open yet: its master has not sent FORM")
    if in_play(game.status):
        raise CommandRefused(
            f"game '{game.name}' has started; TAKEOVER power@{game.name} password plays a power without a player"
        )
    if game.status != FORMING:
        raise CommandRefused(f"game '{game.name}' has ended")
    check_privacy(game, command.privacy)
    _refuse_second_place(ctx, game)
    check_registered(ctx.session, game.name, rule_names(game), ctx.sender)
    check_standing(ctx.session, game.name, game.rules or (), ctx.sender)
    variant = variant_of(game)
    joined = players(ctx.session, game)
    if len(joined) >= len(variant.powers):
        raise CommandRefused(f"game '{game.name}' is full")
    power = None
    if command.power is not None:
        if not has_rule(game, "POWER_CHOICE"):
            raise CommandRefused(
                f"game '{game.name}' does not let players choose (no RULE POWER_CHOICE): "
                f"JOIN {game.name} password, and the judge assigns your power"
            )
        power = power_named(game, command.power)
        if player_of(ctx.session, game, power) is not None:
            free = [p.name for p in variant.powers if player_of(ctx.session, game, p.name) is None]
            raise CommandRefused(f"{power} is taken in game '{game.name}' (still free: {', '.join(free)})")
    member = _new_member(ctx, game, PLAYER, command.password, power=power, name=ctx.sender_name or None)
    ctx.sign_on(game, member, command.source.number)
    count = len(joined) + 1
    chosen = f" as {power}" if power else f" as player {player_label(ctx.session, game, member)}"
    ctx.done(command, f"joined game '{game.name}'{chosen}: {count} of {len(variant.powers)} places taken")
    if count == len(variant.powers):
        start_game(ctx, game)
        if member.power is None:  # a fair assignment by email runs first (judge.commands.fair_*)
            ctx.done(command, f"game '{game.name}' is full: the powers are now being assigned by email")
        else:
            ctx.done(command, f"game '{game.name}' is full and has started: you play {member.power} "
                              f"(your start notice is on its way)")


def observe(ctx: MailContext, command: Observe) -> None:
    game = find_game(ctx.session, command.game)
    if game.status == ENDED:
        raise CommandRefused(f"game '{game.name}' has ended")
    check_privacy(game, command.privacy)
    name = command.name.upper()
    try:
        resolve_power(name, variant_of(game).powers)
        clash = True
    except PowerListError:
        clash = name in MASTER_TOKENS
    if clash or name in ("O", "OBSERVER", "OBSERVERS"):
        raise CommandRefused(f"'{command.name}' names a power or the master; choose another observer name")
    if any((o.name or "").upper() == name for o in observers(ctx.session, game)):
        raise CommandRefused(f"an observer of game '{game.name}' is already called {name}; choose another name")
    member = _new_member(ctx, game, OBSERVER, command.password, name=name)
    ctx.sign_on(game, member, command.source.number)
    ctx.done(command, f"you observe game '{game.name}' as {name}: you will receive its broadcasts and results")


def takeover(ctx: MailContext, command: Takeover) -> None:
    game = find_game(ctx.session, command.game, lock=True)
    if before_start(game.status):
        raise CommandRefused(f"game '{game.name}' has not started: JOIN {game.name} password")
    if game.status == ENDED:
        raise CommandRefused(f"game '{game.name}' has ended")
    power = power_named(game, command.power)
    if player_of(ctx.session, game, power) is not None:
        raise CommandRefused(f"{power} has a player in game '{game.name}'")
    latest = latest_of_power(ctx.session, game, power)
    if latest is not None and latest.status == DUMMY:
        raise CommandRefused(
            f"{power} is a dummy in game '{game.name}': its master must REVIVE {power} before a takeover"
        )
    check_privacy(game, command.privacy)
    _refuse_second_place(ctx, game)
    check_registered(ctx.session, game.name, rule_names(game), ctx.sender)
    check_standing(ctx.session, game.name, game.rules or (), ctx.sender)
    member = _new_member(ctx, game, PLAYER, command.password, power=power, name=ctx.sender_name or None)
    ctx.sign_on(game, member, command.source.number)
    later = fresh_deadline_for_newcomer(game, ctx.now)
    text = f"{power} has been taken over by a new player."
    if later:
        text += f" The deadline passed before {power} was taken over: it is now {later}."
    ctx.done(command, f"you now play {power} in game '{game.name}'" + (f"; the deadline is now {later}" if later else ""))
    body = render("power_changed.j2", game=game.name, text=text)
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: {power} taken over", body=body,
                       kind="power_changed", exclude=[ctx.sender]))


def _resigning_member(ctx: MailContext, command: Resign) -> tuple[Game, Membership]:
    if command.game is None:
        who = ctx.require_signon()
        return who.game, who.membership
    game = find_game(ctx.session, command.game)
    if command.power in MASTER_TOKENS:
        raise CommandRefused("a master cannot resign; TERMINATE ends the game")
    power = power_named(game, command.power or "")
    member = player_of(ctx.session, game, power)
    if member is None:
        raise CommandRefused(f"{power} has no player in game '{game.name}'")
    check_password(command.password or "", member.password_hash, power, game)
    return game, member


def resign(ctx: MailContext, command: Resign) -> None:
    game, member = _resigning_member(ctx, command)
    if member.role == MASTER:
        raise CommandRefused("a master cannot resign; TERMINATE ends the game")
    member.status = RESIGNED
    if member.role == OBSERVER:
        ctx.done(command, f"you no longer observe game '{game.name}'")
        return
    if before_start(game.status):
        ctx.done(command, f"you left game '{game.name}'; your place is free again")
        return
    ctx.done(command, f"you resigned {member.power} in game '{game.name}'")
    if game.status != ENDED:
        body = render("power_changed.j2", game=game.name,
                      text=f"the player of {member.power} has resigned; TAKEOVER "
                           f"{(member.power or '').lower()}@{game.name} password plays it.")
        ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: {member.power} resigned",
                           body=body, kind="power_changed", exclude=[member.address]))
        if has_rule(game, "PREFERENCES") and member.power:  # a reserve fills the dropped power
            from judge.commands.fair_assign import fill_dropped_power

            fill_dropped_power(ctx, game, member.power)


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    Join: Handler(join),
    Observe: Handler(observe),
    Takeover: Handler(takeover),
    Resign: Handler(resign),  # run last, by dispatch.run_deferred
}
