"""A member's settings in a game: SET WAIT / NOWAIT, PASSWORD, ADDRESS, ABSENCE, ZONE."""

from __future__ import annotations

from datetime import datetime, time

from judge.commands.context import MailContext
from judge.mail import CommandRefused
from judge.phases.turnstate import orders_changed
from judge.store.queries import as_utc, timing_of, zone_for
from judge.lifecycle import ENDED, in_play
from judge.store.models_game import Game, Membership
from judge.store.passwords import hash_password
from judge.turns import Absence, AbsenceError, check_absence, format_deadline, local_moment
from judge.turns.timing import TimingError, canonical_zone
from mailcmds import SetAbsence, SetAddress, SetPassword, SetWait, SetZone
from mailcmds.values import DateSpec


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


def set_zone(ctx: MailContext, command: SetZone) -> None:
    who = ctx.require_signon()
    try:
        zone = canonical_zone(command.zone)
    except TimingError as problem:
        raise CommandRefused(str(problem)) from None
    who.membership.zone = zone
    ctx.done(command, f"deadlines are shown to you in {zone}")
