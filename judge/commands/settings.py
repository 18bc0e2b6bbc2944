"""A member's settings in a game: SET WAIT / NOWAIT, PASSWORD, ADDRESS, ABSENCE, ZONE."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time

from judge.commands.context import MailContext
from judge.mailio.inbound import CommandRefused
from judge.phases.turnstate import orders_changed
from judge.store.queries import as_utc, timing_of, zone_for
from judge.lifecycle import ENDED, in_play
from judge.store.models_game import Game, Membership
from judge.store.passwords import hash_password
from judge.turns import Absence, AbsenceError, check_absence, format_deadline, local_moment
from judge.turns.timing import TimingError, canonical_zone
from mailcmds.values import DateSpec, parse_address, parse_date, parse_zone
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count, no_args
from judge.commands.handler import Handler, Needs


HELP_ORDER = 30  # where this module's rows stand in their HELP sections (judge.commands.registry)

# -- the command's words: values and parsing (pure) --------------------

@dataclass(frozen=True, slots=True)
class SetWait(Command):
    """``SET WAIT`` (``wait=True``): do not process before the deadline; ``SET NOWAIT``."""

    wait: bool


@dataclass(frozen=True, slots=True)
class SetPassword(Command):
    password: str


@dataclass(frozen=True, slots=True)
class SetAddress(Command):
    """``SET ADDRESS [address]``; ``None``: the address this mail came from."""

    address: str | None


@dataclass(frozen=True, slots=True)
class SetAbsence(Command):
    """``SET ABSENCE date`` (that day), ``SET ABSENCE TO date`` (from now), or
    ``SET ABSENCE date TO date``; ``start`` is ``None`` for "from now"."""

    start: DateSpec | None
    end: DateSpec


@dataclass(frozen=True, slots=True)
class SetZone(Command):
    """``SET ZONE Europe/Paris``: deadlines in replies are shown in this zone."""

    zone: str


def _wait(ctx: ParseContext, line: CommandLine) -> SetWait:
    no_args(line)
    return SetWait(True, source=line.source)


def _nowait(ctx: ParseContext, line: CommandLine) -> SetWait:
    no_args(line)
    return SetWait(False, source=line.source)


def _password(ctx: ParseContext, line: CommandLine) -> SetPassword:
    args = expect_count(line, 1, 1, "the new password (one word)")
    return SetPassword(args[0], source=line.source)


def _address(ctx: ParseContext, line: CommandLine) -> SetAddress:
    args = expect_count(line, 0, 1, "an address")
    return SetAddress(parse_address(args[0]) if args else None, source=line.source)


def _absence(ctx: ParseContext, line: CommandLine) -> SetAbsence:
    args = line.args
    upper = [a.upper() for a in args]
    if not args:
        raise line.fail("SET ABSENCE needs a date")
    if upper.count("TO") > 1:
        raise line.fail("SET ABSENCE takes one TO")
    if "TO" in upper:
        split = upper.index("TO")
        start = parse_date(args[:split]) if split else None
        if split + 1 >= len(args):
            raise line.fail("SET ABSENCE ... TO needs the last date")
        end = parse_date(args[split + 1 :])
        return SetAbsence(start, end, source=line.source)
    day = parse_date(args)
    return SetAbsence(day, day, source=line.source)


def _zone(ctx: ParseContext, line: CommandLine) -> SetZone:
    args = expect_count(line, 1, 1, "a time zone")
    return SetZone(parse_zone(args[0]), source=line.source)


VERBS = (
    Verb(("SET", "WAIT"), "SET WAIT", "ask that the phase is not processed before its deadline", _wait,
         help=(("play", "SET WAIT", "do not process before the deadline"),)),
    Verb(("SET", "NOWAIT"), "SET NOWAIT", "allow processing as soon as all orders are in", _nowait,
         aliases=(("SET", "NO", "WAIT"),),
         help=(("play", "SET NOWAIT", "process as soon as all orders are in"),)),
    Verb(("SET", "PASSWORD"), "SET PASSWORD newpassword", "change your password for this game",
         _password, secret_args=(0,),
         help=(("play", "SET PASSWORD newpassword", "change your password"),)),
    Verb(("SET", "ADDRESS"), "SET ADDRESS [name@example.org]",
         "send this game's mail to a new address (without one: the address you write from)", _address,
         help=(("play", "SET ADDRESS [address]", "move this game's mail (default: where you write from)"),)),
    Verb(("SET", "ABSENCE"), "SET ABSENCE date [TO date] (dates as 2025-01-14 or 14 Jan 2025)",
         "tell the judge you are away; deadlines falling then are extended within the game's limits",
         _absence,
         help=(("play", "SET ABSENCE date [TO date]", "you are away; deadlines then are extended"),)),
    Verb(("SET", "ZONE"), "SET ZONE Europe/Paris", "show deadlines to you in this time zone", _zone,
         help=(("play", "SET ZONE Europe/Paris", "show deadlines to you in your time zone"),)),
)


def set_wait(ctx: MailContext, command: SetWait) -> None:
    who = ctx.require_player()
    if not in_play(who.game.status):
        raise CommandRefused(f"game '{who.game.name}' is not running: WAIT applies to a phase in play")
    who.membership.wait = command.wait
    orders_changed(ctx.session, who.game)
    ctx.done(command, "WAIT set: the phase is not processed before its deadline" if command.wait
             else "NOWAIT: the phase may be processed as soon as every order is in")


def set_password(ctx: MailContext, command: SetPassword) -> None:
    who = ctx.require_signon()
    hashed = hash_password(command.password)
    who.membership.password_hash = hashed
    if who.is_master:
        who.game.master_password_hash = hashed
    ctx.done(command, f"password changed for {who.label} in game '{who.game.name}'")


def set_address(ctx: MailContext, command: SetAddress) -> None:
    who = ctx.require_signon()
    address = command.address or ctx.sender
    who.membership.address = address.lower()
    ctx.done(command, f"mail for {who.label} in game '{who.game.name}' now goes to {address}")


def _absences(member: Membership, power: str) -> list[Absence]:
    return [Absence(power, datetime.fromisoformat(a["start"]), datetime.fromisoformat(a["end"]))
            for a in (member.absences or [])]


def _moment(when: DateSpec, zone: str, now: datetime, *, end: bool) -> datetime:
    try:
        if end and when.at is None:  # "TO 14 Jan": away all of that day
            return local_moment(when.year, when.month, when.day, time(23, 59), zone, now)
        return local_moment(when.year, when.month, when.day, when.at, zone, now)
    except (ValueError, TimingError) as problem:
        raise CommandRefused(str(problem)) from None


def set_absence(ctx: MailContext, command: SetAbsence) -> None:
    who = ctx.require_player()
    game: Game = who.game
    if game.status == ENDED:
        raise CommandRefused(f"game '{game.name}' has ended")
    zone = zone_for(game, who.membership)
    start = ctx.now if command.start is None else _moment(command.start, zone, ctx.now, end=False)
    end = _moment(command.end, zone, ctx.now, end=True)
    label = who.power or who.label
    try:
        absence = check_absence(Absence(label, start, end), _absences(who.membership, label), timing_of(game).absence_limit, ctx.now)
    except AbsenceError as problem:
        raise CommandRefused(f"{problem}; write SET ABSENCE date TO date within the limit") from None
    who.membership.absences = [*(who.membership.absences or []),
                               {"start": absence.start.isoformat(), "end": absence.end.isoformat()}]
    ctx.done(command, f"absence noted from {format_deadline(as_utc(absence.start), zone)} to "
                      f"{format_deadline(as_utc(absence.end), zone)}: deadlines falling then are extended "
                      f"within the game's limits")


def set_member_zone(ctx: MailContext, command: SetZone) -> None:
    who = ctx.require_signon()
    try:
        zone = canonical_zone(command.zone)
    except TimingError as problem:
        raise CommandRefused(str(problem)) from None
    who.membership.zone = zone
    ctx.done(command, f"deadlines are shown to you in {zone}")


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    SetWait: Handler(set_wait, Needs.PLAYER),
    SetPassword: Handler(set_password, Needs.SIGNON),
    SetAddress: Handler(set_address, Needs.SIGNON),
    SetAbsence: Handler(set_absence, Needs.PLAYER),
    SetZone: Handler(set_member_zone, Needs.SIGNON),
}
