"""The master's commands: FORM, PAUSE, RESUME, TERMINATE, PROCESS[!], PREVIEW, ROLLBACK,
SET DEADLINE, EJECT, DUMMY, REVIVE, SEAT.  Whether the sender is the master is checked by the
services (the mail must SIGNON master@game first)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .model import Command
from .syntax import CommandLine, ParseContext, Verb, expect_count, no_args
from .values import DateSpec, parse_date, parse_phase, parse_power


@dataclass(frozen=True, slots=True)
class Form(Command):
    """Open a game in preparation for players to join."""


@dataclass(frozen=True, slots=True)
class Pause(Command):
    """Stop the clock: no deadline passes and nothing is processed until RESUME."""


@dataclass(frozen=True, slots=True)
class Resume(Command):
    pass


@dataclass(frozen=True, slots=True)
class Terminate(Command):
    """End the game now."""


@dataclass(frozen=True, slots=True)
class Process(Command):
    """``PROCESS``: process the phase if it is ready; ``PROCESS!`` (``force``): process now,
    with civil-disorder defaults for missing orders."""

    force: bool = False


@dataclass(frozen=True, slots=True)
class Preview(Command):
    """Adjudicate the phase and send the results to the master only; nothing changes."""


@dataclass(frozen=True, slots=True)
class Rollback(Command):
    """Return the game to ``phase`` (``None``: the previous phase)."""

    phase: str | None = None


@dataclass(frozen=True, slots=True)
class SetDeadline(Command):
    when: DateSpec


@dataclass(frozen=True, slots=True)
class Eject(Command):
    """Remove the player of ``power``; the power waits for a TAKEOVER."""

    power: str


@dataclass(frozen=True, slots=True)
class Dummy(Command):
    """Make ``power`` a dummy (no player; civil disorder)."""

    power: str


@dataclass(frozen=True, slots=True)
class Revive(Command):
    """Give a dummy or abandoned ``power`` back its place for a player to take over."""

    power: str


@dataclass(frozen=True, slots=True)
class SeatBot(Command):
    """Give a seat to the judge's bot: ``power`` in a running game (one without a player),
    ``None`` for a free place in a forming game."""

    power: str | None = None


def _simple(kind: Callable[..., Command]) -> Callable[[ParseContext, CommandLine], Command]:
    def parse(ctx: ParseContext, line: CommandLine) -> Command:
        no_args(line)
        return kind(source=line.source)

    return parse


def _process(ctx: ParseContext, line: CommandLine) -> Process:
    no_args(line)
    return Process(line.verb.words[0] == "PROCESS!", source=line.source)


def _rollback(ctx: ParseContext, line: CommandLine) -> Rollback:
    args = expect_count(line, 0, 1, "the phase to go back to")
    return Rollback(parse_phase(args[0]) if args else None, source=line.source)


def _set_deadline(ctx: ParseContext, line: CommandLine) -> SetDeadline:
    if not line.args:
        raise line.fail("SET DEADLINE needs a date")
    return SetDeadline(parse_date(line.args), source=line.source)


def _power_command(kind: Callable[..., Command]) -> Callable[[ParseContext, CommandLine], Command]:
    def parse(ctx: ParseContext, line: CommandLine) -> Command:
        args = expect_count(line, 1, 1, "the power")
        return kind(parse_power(args[0]), source=line.source)

    return parse


def _seat(ctx: ParseContext, line: CommandLine) -> SeatBot:
    args = expect_count(line, 1, 2, "BOT, or a power and BOT (SEAT BOT, SEAT FRANCE BOT)")
    if args[-1].upper() != "BOT":
        raise line.fail(f"SEAT {' '.join(args)}: the player a master seats is the judge's bot: "
                        "SEAT power BOT in a running game, SEAT BOT in a forming one")
    return SeatBot(parse_power(args[0]) if len(args) == 2 else None, source=line.source)


VERBS = (
    Verb(("FORM",), "FORM", "open the game for players to join", _simple(Form), master=True,
         help=(("master", "FORM", "open the game for players"),)),
    Verb(("PAUSE",), "PAUSE", "stop the game's clock", _simple(Pause), master=True,
         help=(("master", "PAUSE / RESUME", "stop / restart the game's clock"),)),
    Verb(("RESUME",), "RESUME", "restart the clock; the deadline moves on by the time paused", _simple(Resume), master=True),
    Verb(("TERMINATE",), "TERMINATE", "end the game now; everyone is told, with who played each power (as the machines' SMR tells them)", _simple(Terminate), master=True,
         help=(("master", "TERMINATE", "end the game"),)),
    Verb(("PROCESS",), "PROCESS", "process the phase if every order is in", _process, master=True,
         help=(("master", "PROCESS", "process the phase if all orders are in"),)),
    Verb(("PROCESS!",), "PROCESS!", "process the phase now; missing orders get civil-disorder defaults (in a sealed game: end the current stage early)",
         _process, master=True,
         help=(("master", "PROCESS!", "process now; missing orders get defaults"),)),
    Verb(("PREVIEW",), "PREVIEW", "adjudicate the phase for the master's eyes only; nothing changes (refused in sealed games)",
         _simple(Preview), master=True,
         help=(("master", "PREVIEW", "see the results yourself; nothing changes"),)),
    Verb(("ROLLBACK",), "ROLLBACK [phase]", "return the game to an earlier phase (default: the previous one)",
         _rollback, master=True,
         help=(("master", "ROLLBACK [phase]", "go back to an earlier phase"),)),
    Verb(("SET", "DEADLINE"), "SET DEADLINE date [hh:mm] (e.g. 2025-01-14 20:00)", "move the deadline",
         _set_deadline, master=True,
         help=(("master", "SET DEADLINE date", "move the deadline"),)),
    Verb(("EJECT",), "EJECT power", "remove a power's player, who is told by mail (and his later sign-ons are told he was removed)", _power_command(Eject), master=True,
         help=(("master", "EJECT power", "remove a power's player (who is told)"),)),
    Verb(("DUMMY",), "DUMMY power", "make a power a dummy in civil disorder", _power_command(Dummy), master=True,
         help=(("master", "DUMMY power", "make a power a dummy in civil disorder"),)),
    Verb(("SEAT",), "SEAT power BOT / SEAT BOT",
         "the judge's bot plays a power without a player (running game) or takes a free place (forming game)",
         _seat, master=True,
         help=(("master", "SEAT power BOT", "the judge's bot plays a power (running game)"),
               ("master", "SEAT BOT", "the judge's bot takes a free place (forming game)"),)),
    Verb(("REVIVE",), "REVIVE power", "reopen a dummy or abandoned power for a takeover", _power_command(Revive),
         master=True,
         help=(("master", "REVIVE power", "reopen a power for a takeover"),)),
)
