"""Player settings: SET WAIT / NOWAIT, SET PASSWORD, SET ADDRESS, SET ABSENCE, SET ZONE."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Command
from .syntax import CommandLine, ParseContext, Verb, expect_count, no_args
from .values import DateSpec, parse_address, parse_date, parse_zone


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
