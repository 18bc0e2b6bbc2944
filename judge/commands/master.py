"""The master's game commands (mailcmds/master.py): FORM, PAUSE, RESUME, TERMINATE, EJECT,
DUMMY, REVIVE, and processing by the master: PROCESS, PROCESS!, PREVIEW, ROLLBACK.

(SET DEADLINE and the status lines are in create.py.)
"""

from __future__ import annotations

from judge.render import render
from judge.publish.broadcast import broadcast
from judge.commands.context import MailContext
from judge.lifecycle import ACTIVE, ENDED, FORMING, PAUSED, PREPARATION, GameStatus, in_play, move
from judge.phases.processing import preview_text, process_phase, rollback_to
from judge.phases.sealed_flow import is_sealed, preview_refusal  # RULE SEALED: its own stages, no early look
from judge.phases.sealed_stages import master_process
from judge.phases.order_sources import awaiting_bot
from judge.phases.turnstate import progress_of, turn_state
from judge.mail import CommandRefused
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
from judge.store.models_game import DISMISSED, DUMMY, Game
from judge.turns import extend_only, next_deadline, resumed_deadline
from mailcmds import Dummy, Eject, Form, Pause, Preview, Process, Resume, Revive, Rollback, Terminate


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
        ctx.done(command, f"machine players (DAIDE bots) take free seats at {machines}")


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
    _tell(ctx, game, "terminated", "game_terminated.j2", "game_terminated", phase=game.phase)


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
    player.status = DISMISSED
    ctx.done(command, f"the player of {power} was removed; the power waits for a TAKEOVER")
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
        from judge.commands.fair_assign import fill_dropped_power  # the fair flow imports the services

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
