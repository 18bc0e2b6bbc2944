"""The players' draw and concession votes: SET DRAW, SET NO DRAW, SET CONCEDE, SET NO CONCEDE.

Votes are stored on the player's membership, secret until the game ends (the reply says
only that the vote was recorded); a vote stands until withdrawn or the game is rolled back
(judge/phases/ballots.py), as the DPjudge keeps it; the game ends in the same mail as soon
as a draw or a concession passes (judge.turns.draws.tally), or after a phase whose
eliminations make the standing votes pass.
"""

from __future__ import annotations

from typing import Any

from judge.commands.context import MailContext, SignedOn
from judge.mail import CommandRefused
from judge.phases.ballots import ballot_from_json, ballot_to_json, ballots_of, vote_text
from judge.store.queries import position_of, power_named, rules_of, variant_of
from judge.phases.processing import CONCESSION, DRAW, end_game
from judge.phases.turnstate import survivors
from judge.lifecycle import in_play
from judge.store.models_game import Game
from judge.turns import Ballot, DrawError, parse_draw_powers, tally
from judge.turns.draws import NO_DIAS
from mailcmds import SetConcede, SetDraw, SetNoConcede, SetNoDraw

__all__ = ["ballot_from_json", "ballot_to_json", "ballots_of", "vote_text"]


def _voter(ctx: MailContext) -> tuple[SignedOn, Game, str, frozenset[str]]:
    who = ctx.require_player()
    game = who.game
    if not in_play(game.status) or game.position is None or who.power is None:
        raise CommandRefused(f"game '{game.name}' is not running ({game.status}): there is nothing to vote on")
    alive = survivors(position_of(game))
    if who.power not in alive:
        raise CommandRefused(f"{who.power} has been eliminated: only surviving powers vote")
    return who, game, who.power, alive


def _draw_powers(game: Game, tokens: tuple[str, ...]) -> frozenset[str]:
    letters = {p.letter: p.name for p in variant_of(game).powers}
    chosen: set[str] = set()
    for token in tokens:
        try:
            chosen.add(power_named(game, token))
            continue
        except CommandRefused:
            pass
        try:
            chosen |= parse_draw_powers(token, letters)
        except DrawError as problem:
            raise CommandRefused(str(problem)) from None
    return frozenset(chosen)


def _record(ctx: MailContext, command: Any, ballot: Ballot, what: str) -> None:
    who, game, power, alive = _voter(ctx)
    ballots = ballots_of(ctx.session, game)
    ballots[power] = ballot
    rules = frozenset(rule.split()[0].upper() for rule in rules_of(game))
    try:
        outcome = tally(alive, ballots, rules)
    except DrawError as problem:
        raise CommandRefused(str(problem)) from None
    who.membership.draw_vote = ballot_to_json(ballot)
    ctx.done(command, f"{what} recorded for {power} (votes stay secret until the game ends; "
                      "yours stands, phase after phase, until you change it)")
    if outcome is None:
        return
    kind = CONCESSION if outcome.kind.value == "concession" else DRAW
    votes = {p: vote_text(b) for p, b in sorted(ballots.items()) if p in alive}
    ctx.send(end_game(ctx.session, game, ctx.judge, ctx.now, kind, outcome.powers, votes=votes))
    ctx.done(command, f"the {kind} has passed: game '{game.name}' is over; everyone has been told")


def _current(ctx: MailContext) -> Ballot:
    return ballot_from_json(ctx.require_player().membership.draw_vote)


def set_draw(ctx: MailContext, command: SetDraw) -> None:
    who, game, power, alive = _voter(ctx)
    listed: frozenset[str] | None = None
    if command.powers:
        listed = _draw_powers(game, command.powers)
        if NO_DIAS not in {rule.split()[0].upper() for rule in rules_of(game)} and listed != alive:
            raise CommandRefused(
                f"SET DRAW {' '.join(command.powers)}: this game draws only among all survivors (DIAS); "
                "send SET DRAW without powers (listing powers needs RULE NO_DIAS)"
            )
    current = _current(ctx)
    _record(ctx, command, Ballot(True, listed, current.concede_to), "draw vote")


def set_no_draw(ctx: MailContext, command: SetNoDraw) -> None:
    current = _current(ctx)
    _record(ctx, command, Ballot(False, None, current.concede_to), "vote against a draw")


def set_concede(ctx: MailContext, command: SetConcede) -> None:
    who, game, power, alive = _voter(ctx)
    to = power_named(game, command.power)
    if to not in alive:
        raise CommandRefused(f"SET CONCEDE {command.power}: {to} is not a surviving power")
    if to == power:
        raise CommandRefused(f"SET CONCEDE {command.power}: a power cannot concede to itself")
    current = _current(ctx)
    _record(ctx, command, Ballot(current.draw, current.draw_powers, to), f"concession to {to}")


def set_no_concede(ctx: MailContext, command: SetNoConcede) -> None:
    current = _current(ctx)
    _record(ctx, command, Ballot(current.draw, current.draw_powers, None), "withdrawal of the concession vote")

