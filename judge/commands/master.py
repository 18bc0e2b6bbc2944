"""The master's game commands: FORM, PAUSE, RESUME, TERMINATE, EJECT,
DUMMY, REVIVE, and processing by the master: PROCESS, PROCESS!, PREVIEW, ROLLBACK.

(SET DEADLINE and the status lines are in create.py.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from judge.press.machine_press import by_mail
from judge.mailio.render import render
from judge.publish.broadcast import broadcast, to_member
from judge.commands.context import MailContext
from judge.lifecycle import ACTIVE, ENDED, FORMING, PAUSED, PREPARATION, GameStatus, in_play, move
from judge.phases.processing import preview_text, process_phase, reveal_players, rollback_to
from judge.phases.sealed_flow import is_sealed, preview_refusal  # RULE SEALED: its own stages, no early look
from judge.phases.sealed_stages import master_process
from judge.phases.order_sources import awaiting_bot
from judge.phases.turnstate import progress_of, turn_state
from judge.mailio.inbound import CommandRefused
from judge.store.queries import (
    as_utc,
    deadline_text,
    has_rule,
    latest_of_power,
    player_of,
    position_of,
    power_named,
    timing_of,
)
from judge.commands.daide_ports import daide_text, give_port, is_machine_game
from judge.store.models_game import DISMISSED, DUMMY, EJECTED, Game
from judge.turns import extend_only, next_deadline, resumed_deadline
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count, no_args
from mailcmds.values import DateSpec, parse_date, parse_phase, parse_power
from judge.commands.handler import Handler, Needs

HELP_ORDER = 80  # where this module's rows stand in their HELP sections (judge.commands.registry)


# -- the command's words: values and parsing (pure) --------------------

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
    Verb(("FORM",), "FORM", "open the game for players to join", _simple(Form),
         help=(("master", "FORM", "open the game for players"),)),
    Verb(("PAUSE",), "PAUSE", "stop the game's clock", _simple(Pause),
         help=(("master", "PAUSE / RESUME", "stop / restart the game's clock"),)),
    Verb(("RESUME",), "RESUME", "restart the clock; the deadline moves on by the time paused", _simple(Resume),
         help=(("master", "", ""),)),  # its HELP row is PAUSE's
    Verb(("TERMINATE",), "TERMINATE", "end the game now; everyone is told, with who played each power (as the machines' SMR tells them)", _simple(Terminate),
         help=(("master", "TERMINATE", "end the game"),)),
    Verb(("PROCESS",), "PROCESS", "process the phase if every order is in", _process,
         help=(("master", "PROCESS", "process the phase if all orders are in"),)),
    Verb(("PROCESS!",), "PROCESS!", "process the phase now; missing orders get civil-disorder defaults (in a sealed game: end the current stage early)",
         _process,
         help=(("master", "PROCESS!", "process now; missing orders get defaults"),)),
    Verb(("PREVIEW",), "PREVIEW", "adjudicate the phase for the master's eyes only; nothing changes (refused in sealed games)",
         _simple(Preview),
         help=(("master", "PREVIEW", "see the results yourself; nothing changes"),)),
    Verb(("ROLLBACK",), "ROLLBACK [phase]", "return the game to an earlier phase (default: the previous one)",
         _rollback,
         help=(("master", "ROLLBACK [phase]", "go back to an earlier phase"),)),
    Verb(("SET", "DEADLINE"), "SET DEADLINE date [hh:mm] (e.g. 2025-01-14 20:00)", "move the deadline",
         _set_deadline,
         help=(("master", "SET DEADLINE date", "move the deadline"),)),
    Verb(("EJECT",), "EJECT power", "remove a power's player, who is told by mail (and his later sign-ons are told he was removed)", _power_command(Eject),
         help=(("master", "EJECT power", "remove a power's player (who is told)"),)),
    Verb(("DUMMY",), "DUMMY power", "make a power a dummy in civil disorder", _power_command(Dummy),
         help=(("master", "DUMMY power", "make a power a dummy in civil disorder"),)),
    Verb(("SEAT",), "SEAT power BOT / SEAT BOT",
         "the judge's bot plays a power without a player (running game) or takes a free place (forming game)",
         _seat,
         help=(("master", "SEAT power BOT", "the judge's bot plays a power (running game)"),
               ("master", "SEAT BOT", "the judge's bot takes a free place (forming game)"),)),
    Verb(("REVIVE",), "REVIVE power", "reopen a dummy or abandoned power for a takeover", _power_command(Revive),
         help=(("master", "REVIVE power", "reopen a power for a takeover"),)),
)


def _tell(ctx: MailContext, game: Game, subject: str, template: str, kind: str, **values: object) -> None:
    body = render(template, game=game.name, **values)
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: {subject}", body=body, kind=kind,
                       exclude=[ctx.sender]))


def form(ctx: MailContext, command: Form) -> None:
    game = ctx.require_master().game
    if game.status == FORMING:
        raise CommandRefused(f"game '{game.name}' is already open for players")
    if game.status != PREPARATION:
        raise CommandRefused(f"game '{game.name}' is past forming ({game.status})")
    move(game, GameStatus.FORMING)
    ctx.done(command, f"game '{game.name}' is open: players join with JOIN {game.name} password")
    if is_machine_game(game):
        give_port(ctx.session, game, now=ctx.now)  # from FORM on the game can use its port
    machines = daide_text(ctx.session, game)
    if machines is not None:
        ctx.done(command, f"machine players (DAIDE bots) connect to {machines}")


def pause(ctx: MailContext, command: Pause) -> None:
    game = ctx.require_master().game
    if game.status != ACTIVE:
        raise CommandRefused(f"only an active game can be paused; game '{game.name}' is {game.status}")
    move(game, GameStatus.PAUSED)
    game.paused_at = ctx.now
    ctx.done(command, f"game '{game.name}' paused: no deadline passes until RESUME, which gives the time "
                      "paused back (the deadline moves on by it)")
    _tell(ctx, game, "paused", "game_paused.j2", "game_paused")


def resume(ctx: MailContext, command: Resume) -> None:
    game = ctx.require_master().game
    if game.status != PAUSED:
        raise CommandRefused(f"game '{game.name}' is not paused ({game.status})")
    move(game, GameStatus.ACTIVE)
    if game.deadline is not None and game.paused_at is not None:
        game.deadline = resumed_deadline(as_utc(game.deadline), as_utc(game.paused_at), ctx.now)
    game.paused_at = None
    if game.deadline is None or as_utc(game.deadline) <= ctx.now:  # paused when late: a fresh phase length
        kind = position_of(game).phase.kind
        fresh = next_deadline(timing_of(game), kind, ctx.now)
        game.deadline = extend_only(as_utc(game.deadline) if game.deadline else None, fresh)
    ctx.done(command, f"game '{game.name}' resumed; deadline {deadline_text(game, ctx.require_master().membership, ctx.now)}")
    _tell(ctx, game, "resumed", "game_resumed.j2", "game_resumed", phase=game.phase,
          deadline=deadline_text(game, None, ctx.now))


def terminate(ctx: MailContext, command: Terminate) -> None:
    game = ctx.require_master().game
    if game.status == ENDED:
        raise CommandRefused(f"game '{game.name}' has already ended")
    move(game, GameStatus.ENDED)
    game.ended_at = ctx.now
    game.outcome = {"kind": "terminated", "phase": game.phase}
    ctx.done(command, f"game '{game.name}' terminated")
    _tell(ctx, game, "terminated", "game_terminated.j2", "game_terminated", phase=game.phase,
          players=reveal_players(ctx.session, game))


def _started(game: Game) -> None:
    if not in_play(game.status):
        raise CommandRefused(f"game '{game.name}' is not running ({game.status})")


def _running_power(ctx: MailContext, command: Eject | Dummy | Revive) -> tuple[Game, str]:
    """The master's game, which must be running, and the power ``command`` names."""
    game = ctx.require_master().game
    _started(game)
    return game, power_named(game, command.power)


def _tell_power_changed(ctx: MailContext, game: Game, subject: str, text: str) -> None:
    _tell(ctx, game, subject, "power_changed.j2", "power_changed", text=text)


def eject(ctx: MailContext, command: Eject) -> None:
    game, power = _running_power(ctx, command)
    player = player_of(ctx.session, game, power)
    if player is None:
        raise CommandRefused(f"{power} has no player to eject")
    player.status = EJECTED
    if by_mail(player):  # a machine learns it from its connection (OFF), not by mail
        ctx.send([to_member(game, ctx.judge, player, subject=f"{game.name}: you no longer play {power}",
                            body=render("ejected_player.j2", game=game.name, power=power), kind="dismissal")])
    ctx.done(command, f"the player of {power} was removed and told so; the power waits for a TAKEOVER")
    _tell_power_changed(ctx, game, f"{power} has no player",
                        f"the master removed the player of {power}; "
                        f"TAKEOVER {power.lower()}@{game.name} password plays it.")
    _reserve_fills(ctx, game, power)


def dummy(ctx: MailContext, command: Dummy) -> None:
    game, power = _running_power(ctx, command)
    member = player_of(ctx.session, game, power) or latest_of_power(ctx.session, game, power)
    if member is None:
        raise CommandRefused(f"{power} has never had a player in game '{game.name}'")
    if member.status == DUMMY:
        raise CommandRefused(f"{power} is already a dummy")
    member.status = DUMMY
    ctx.done(command, f"{power} is now a dummy (civil disorder); REVIVE {power} reopens it")
    _tell_power_changed(ctx, game, f"{power} in civil disorder",
                        f"{power} is now a dummy in civil disorder.")


def revive(ctx: MailContext, command: Revive) -> None:
    game, power = _running_power(ctx, command)
    latest = latest_of_power(ctx.session, game, power)
    if player_of(ctx.session, game, power) is not None:
        raise CommandRefused(f"{power} has a player")
    if latest is None or latest.status != DUMMY:
        ctx.done(command, f"{power} is already open for a TAKEOVER")
        return
    latest.status = DISMISSED
    ctx.done(command, f"{power} is open for a TAKEOVER again")
    _tell_power_changed(ctx, game, f"{power} open",
                        f"{power} is open: TAKEOVER {power.lower()}@{game.name} password plays it.")
    _reserve_fills(ctx, game, power)


def _reserve_fills(ctx: MailContext, game: Game, power: str) -> None:
    """RULE PREFERENCES: a power left without a player goes to a reserve (not a DUMMY: the
    master plays that one)."""
    if has_rule(game, "PREFERENCES"):
        from judge.commands.fair_assign import fill_dropped_power  # the fair flow imports this module's neighbours

        fill_dropped_power(ctx, game, power)


# -- processing by the master: PROCESS, PROCESS!, PREVIEW, ROLLBACK ----------------------
def _running(ctx: MailContext, word: str) -> Game:
    game = ctx.require_master().game
    if game.status == PAUSED:
        raise CommandRefused(f"{word}: game '{game.name}' is paused; RESUME it first")
    if game.status != ACTIVE or game.position is None:
        raise CommandRefused(f"{word}: game '{game.name}' is not running ({game.status})")
    return game


def process(ctx: MailContext, command: Process) -> None:
    word = "PROCESS!" if command.force else "PROCESS"
    game = _running(ctx, word)

    if is_sealed(game):
        message, mails = master_process(ctx.session, game, ctx.judge, ctx.now, force=command.force)
        ctx.send(mails)
        ctx.done(command, message)
        return
    state = turn_state(ctx.session, game, ctx.now)
    missing = state.missing
    if missing and not command.force:
        raise CommandRefused(
            f"PROCESS: {game.phase} is not ready, orders are missing from {', '.join(sorted(missing))} "
            "(PROCESS! processes now with civil-disorder defaults for them)"
        )
    phase = game.phase
    awaiting = awaiting_bot(ctx.session, game, missing, ctx.now)
    if awaiting:  # the bot thinks in a process of its own; the pass that finds its moves processes
        progress_of(ctx.session, game).master_process = word
        ctx.done(command, f"{phase} is processed as soon as the judge's bot has made the moves of "
                          f"{', '.join(sorted(awaiting))} (it is thinking now); the results go to the game")
        return
    ctx.send(process_phase(ctx.session, game, ctx.judge, ctx.now, defaulted=missing))
    after = "the game is over" if game.status == ENDED else f"now {game.phase}"
    defaults = f" (civil-disorder defaults for {', '.join(sorted(missing))})" if missing else ""
    ctx.done(command, f"{phase} processed{defaults}; results sent to the game; {after}")


def preview(ctx: MailContext, command: Preview) -> None:
    game = _running(ctx, "PREVIEW")

    refusal = preview_refusal(game)
    if refusal is not None:
        raise CommandRefused(refusal)
    missing = turn_state(ctx.session, game, ctx.now).missing
    ctx.add_block(preview_text(ctx.session, game, defaulted=missing))
    ctx.done(command, f"preview of {game.phase} below; nothing was processed")


def rollback(ctx: MailContext, command: Rollback) -> None:
    game = ctx.require_master().game
    if game.position is None:
        raise CommandRefused(f"ROLLBACK: game '{game.name}' has not started")
    was = game.phase
    ctx.send(rollback_to(ctx.session, game, ctx.judge, ctx.now, command.phase))
    ctx.done(command, f"game '{game.name}' rolled back from {was} to {game.phase}; everyone has been told")


# ----------------------------------------------------------------------------- votes


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    Form: Handler(form, Needs.MASTER),
    Pause: Handler(pause, Needs.MASTER),
    Resume: Handler(resume, Needs.MASTER),
    Terminate: Handler(terminate, Needs.MASTER),
    Process: Handler(process, Needs.MASTER),
    Preview: Handler(preview, Needs.MASTER),
    Rollback: Handler(rollback, Needs.MASTER),
    Eject: Handler(eject, Needs.MASTER),
    Dummy: Handler(dummy, Needs.MASTER),
    Revive: Handler(revive, Needs.MASTER),
}
