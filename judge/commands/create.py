"""CREATE game password, and the status lines (MAP, RULE, TIMING, DEADLINE, ZONE, PRIVATE,
DESC, LIST) that set a game up, in the CREATE mail or later after SIGNON master@game."""

from __future__ import annotations

from datetime import datetime
from difflib import get_close_matches

from sqlalchemy import select

import maps
from adjudicator.api import check_rules
from adjudicator.mapdata import MapError
from judge.render import render
from judge.publish.broadcast import broadcast
from judge.commands.context import MailContext
from judge.commands.create_limit import creator_key
from judge.commands.daide_ports import MACHINES, daide_text, give_port, machine_game_refusal
from judge.mail import CommandRefused
from judge.store.queries import (
    as_utc,
    deadline_text,
    players,
    timing_of,
    variant_named,
)
from judge.rules import ENGINE_RULES, known_rules, rule_info
from judge.lifecycle import ENDED, PREPARATION, before_start, in_play
from judge.store.models_game import MASTER, Game, Membership
from judge.store.passwords import hash_password
from judge.turns import format_timing, local_moment, parse_timing
from judge.turns.timing import TimingError, canonical_zone
from mailcmds import (
    Create,
    DeadlineStatus,
    DescStatus,
    ListStatus,
    MapStatus,
    PrivateStatus,
    RuleStatus,
    SetDeadline,
    TimingStatus,
    ZoneStatus,
)
from mailcmds.values import DateSpec


def create(ctx: MailContext, command: Create) -> None:
    exists = ctx.session.execute(select(Game.id).where(Game.name == command.game)).first()
    if exists is not None:
        raise CommandRefused(f"a game named '{command.game}' already exists; choose another name")
    created_by = creator_key(ctx)
    password_hash = hash_password(command.password)
    game = Game(
        name=command.game, master_password_hash=password_hash, map_name="standard", rules=[], timing={},
        zone="UTC", private=False, description="", status=PREPARATION, created_at=ctx.now,
        created_by=created_by,
    )
    ctx.session.add(game)
    ctx.session.flush()
    master = Membership(game_id=game.id, role=MASTER, power=None, name=ctx.sender_name or None,
                        address=ctx.sender, password_hash=password_hash, joined_at=ctx.now)
    ctx.session.add(master)
    ctx.session.flush()
    ctx.sign_on(game, master, command.source.number)
    ctx.done(command, f"game '{game.name}' created with you as its master; players can JOIN once you send FORM")
    # The status lines that follow run next, as the new master's edits (dispatch.run_command).


def _set_up_game(ctx: MailContext) -> Game:
    """The master's game, whose set-up may change until it has ended."""
    game = ctx.require_master().game
    if game.status == ENDED:
        raise CommandRefused(f"game '{game.name}' has ended; its set-up cannot change")
    return game


def set_map(ctx: MailContext, command: MapStatus) -> None:
    game = ctx.require_master().game
    if not before_start(game.status) or players(ctx.session, game):
        raise CommandRefused("the map can change only before anybody has joined")
    try:
        variant_named(command.name)
    except (maps.UnknownMapError, MapError) as problem:
        raise CommandRefused(str(problem)) from None
    game.map_name = command.name
    ctx.done(command, f"map: {command.name} ({variant_named(command.name).headline})")


def set_rule(ctx: MailContext, command: RuleStatus) -> None:
    game = _set_up_game(ctx)
    info = rule_info(command.name)
    if info is None:
        names = ", ".join(rule.name for rule in known_rules())
        close = get_close_matches(command.name.upper(), [rule.name for rule in known_rules()], n=1, cutoff=0.75)
        guess = ""
        if close:
            meant = rule_info(close[0])
            guess = f"; did you mean {close[0]}? ({meant.meaning if meant else ''})"
        raise CommandRefused(f"unknown rule {command.name}{guess} (known rules: {names})")
    others = [r for r in (game.rules or []) if str(r).split()[0] != info.name]
    if command.remove:
        game.rules = others  # a port it held is freed by the DAIDE edge once its listener is closed
        ctx.done(command, f"rule {info.name} removed")
        return
    if info.takes_value and command.value is None:
        raise CommandRefused(f"RULE {info.name} needs a value: {info.meaning}")
    if not info.takes_value and command.value is not None:
        raise CommandRefused(f"RULE {info.name} takes no value ({info.meaning})")
    if info.takes_value and not str(command.value).isdigit():
        raise CommandRefused(f"RULE {info.name} needs a whole number, not '{command.value}'")
    if info.values and int(str(command.value)) not in info.values:
        raise CommandRefused(f"RULE {info.name} is one of {', '.join(map(str, info.values))}, not {command.value}")
    refusal = machine_game_refusal(ctx.session, game, ctx.sender) if info.name == MACHINES else None
    if refusal is not None:
        raise CommandRefused(refusal)
    entry = info.name if command.value is None else f"{info.name} {command.value}"
    engine = frozenset(r.split()[0] for r in [*others, entry] if r.split()[0] in ENGINE_RULES)
    try:
        check_rules(engine)
    except ValueError as problem:
        raise CommandRefused(f"{problem} (remove the other with RULE !name)") from None
    game.rules = sorted([*others, entry])
    ctx.done(command, f"rule {entry}: {info.meaning}")
    if info.name == MACHINES:
        give_port(ctx.session, game, now=ctx.now)
        ctx.done(command, f"machine players (DAIDE bots) take free seats at {daide_text(ctx.session, game)}")


def set_timing(ctx: MailContext, command: TimingStatus) -> None:
    game = _set_up_game(ctx)
    try:
        timing = command.changes.apply(timing_of(game))
    except TimingError as problem:
        raise CommandRefused(str(problem)) from None
    game.timing = {"text": format_timing(timing)}
    game.zone = timing.zone
    ctx.done(command, f"timing: {format_timing(timing)} (from the next deadline the judge sets)"
                      + _zone_note(ctx, game, timing.zone))


def _zone_note(ctx: MailContext, game: Game, zone: str) -> str:
    """Says in which zone the times of day are read when the master sees deadlines in another
    (SET ZONE is the master's own display zone; ZONE sets the game's)."""
    own = ctx.signed_on.membership.zone if ctx.signed_on is not None else None
    if not own or own == zone:
        return ""
    return (f"; times of day are read in the game's zone, {zone}, not in {own}, the zone you see "
            f"deadlines in (SET ZONE); write ZONE {own} to make it the game's zone")


def set_zone(ctx: MailContext, command: ZoneStatus) -> None:
    game = _set_up_game(ctx)
    try:
        zone = canonical_zone(command.zone)
        timing = parse_timing(f"ZONE {zone}", base=timing_of(game))
    except TimingError as problem:
        raise CommandRefused(str(problem)) from None
    game.zone = zone
    game.timing = {"text": format_timing(timing)}
    ctx.done(command, f"the game's time zone is {zone}")


def set_private(ctx: MailContext, command: PrivateStatus) -> None:
    game = _set_up_game(ctx)
    game.private = True
    game.privacy_hash = hash_password(command.password)
    ctx.done(command, "the game is private: players add your keyword after their password to join")


def set_description(ctx: MailContext, command: DescStatus) -> None:
    game = ctx.require_master().game
    game.description = command.text[:2000]
    ctx.done(command, "description set")


def set_list(ctx: MailContext, command: ListStatus) -> None:
    game = ctx.require_master().game
    game.list_address = command.address
    ctx.done(command, f"broadcasts of game '{game.name}' now go to the list {command.address}")


def moment_of(game: Game, when: DateSpec, now: datetime) -> datetime:
    """A date the master wrote, read in the game's zone (default time: the game's AT, else
    the current deadline's time of day, else midnight)."""
    timing = timing_of(game)
    default = timing.at[0] if timing.at else None
    if default is None and game.deadline is not None:
        default = as_utc(game.deadline).astimezone(timing.tz).time().replace(second=0, microsecond=0)
    try:
        if default is None:
            return local_moment(when.year, when.month, when.day, when.at, timing, now)
        return local_moment(when.year, when.month, when.day, when.at, timing, now, default_at=default)
    except ValueError as problem:
        raise CommandRefused(str(problem)) from None


def set_deadline(ctx: MailContext, command: DeadlineStatus | SetDeadline) -> None:
    game = _set_up_game(ctx)
    moment = moment_of(game, command.when, ctx.now)
    if moment <= ctx.now:
        raise CommandRefused(f"{command.when} ({moment:%Y-%m-%d %H:%M} UTC) has already passed; give a later date")
    game.deadline = moment
    shown = deadline_text(game, ctx.require_master().membership, ctx.now)
    if before_start(game.status):
        ctx.done(command, f"the first deadline will be {shown} (if the game has started by then)")
        return
    ctx.done(command, f"deadline set to {shown}")
    if in_play(game.status):
        body = render("deadline_changed.j2", game=game.name, phase=game.phase,
                      deadline=deadline_text(game, None, ctx.now))
        ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: deadline changed", body=body,
                           kind="deadline_changed", exclude=[ctx.sender]))
