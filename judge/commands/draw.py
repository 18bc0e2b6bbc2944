"""The players' draw and concession votes: SET DRAW, SET NO DRAW, SET CONCEDE, SET NO CONCEDE.

Votes are stored on the player's membership, secret until the game ends (the reply says
only that the vote was recorded); a vote stands until withdrawn or the game is rolled back
(judge/phases/ballots.py), as the DPjudge keeps it; the game ends in the same mail as soon
as a draw or a concession passes (judge.turns.draws.tally), or after a phase whose
eliminations make the standing votes pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.commands.context import MailContext, SignedOn
from judge.mailio.inbound import CommandRefused
from judge.phases.ballots import ballot_from_json, ballot_to_json, ballots_of, vote_text
from judge.store.queries import position_of, power_named, rules_of, variant_of
from judge.phases.processing import CONCESSION, DRAW, end_game
from judge.phases.turnstate import survivors
from judge.lifecycle import in_play
from judge.store.models_game import Game
from judge.turns import Ballot, DrawError, parse_draw_powers, tally
from judge.turns.draws import NO_DIAS
from mailcmds.model import Command
from mailcmds.syntax import CommandLine, ParseContext, Verb, expect_count, no_args
from mailcmds.values import parse_power, split_tokens
from judge.commands.handler import Handler, Needs


HELP_ORDER = 40  # where this module's rows stand in their HELP sections (judge.commands.registry)

# -- the command's words: values and parsing (pure) --------------------

@dataclass(frozen=True, slots=True)
class SetDraw(Command):
    """A draw vote.  ``powers`` ``None``: a draw including all survivors (DIAS); otherwise
    the powers named (tokens as written: ``("AEF",)`` or ``("AUSTRIA", "ENGLAND")``) for a
    game with RULE NO_DIAS."""

    powers: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class SetNoDraw(Command):
    """Withdraw the draw vote."""


@dataclass(frozen=True, slots=True)
class SetConcede(Command):
    """Vote to concede the game to ``power``."""

    power: str


@dataclass(frozen=True, slots=True)
class SetNoConcede(Command):
    """Withdraw the concession vote."""


def _draw(ctx: ParseContext, line: CommandLine) -> SetDraw:
    tokens = split_tokens(line.args)
    if tokens == ("ALL",):  # SET DRAW ALL: the draw including all survivors
        tokens = ()
    for token in tokens:
        parse_power(token)
    return SetDraw(tokens or None, source=line.source)


def _nodraw(ctx: ParseContext, line: CommandLine) -> SetNoDraw:
    no_args(line)
    return SetNoDraw(source=line.source)


def _concede(ctx: ParseContext, line: CommandLine) -> SetConcede:
    args = expect_count(line, 1, 1, "the power to concede to")
    return SetConcede(parse_power(args[0]), source=line.source)


def _noconcede(ctx: ParseContext, line: CommandLine) -> SetNoConcede:
    no_args(line)
    return SetNoConcede(source=line.source)


VERBS = (
    Verb(("SET", "DRAW"), "SET DRAW (all survivors) or SET DRAW AEF (the powers in the draw, with RULE NO_DIAS)",
         "vote for a draw; secret until the game ends, it stands until withdrawn", _draw,
         help=(("play", "SET DRAW", "vote for a draw including all survivors"),
               ("play", "SET DRAW AEF", "vote for a draw of these powers (games with NO_DIAS)"),)),
    Verb(("SET", "NODRAW"), "SET NO DRAW", "withdraw your draw vote", _nodraw,
         aliases=(("SET", "NO", "DRAW"),),
         help=(("play", "SET NO DRAW", "withdraw your draw vote"),)),
    Verb(("SET", "CONCEDE"), "SET CONCEDE power", "vote to concede the game to that power", _concede,
         help=(("play", "SET CONCEDE power", "vote to concede the game to that power"),)),
    Verb(("SET", "NOCONCEDE"), "SET NO CONCEDE", "withdraw your concession vote", _noconcede,
         aliases=(("SET", "NO", "CONCEDE"),),
         help=(("play", "SET NO CONCEDE", "withdraw your concession vote"),)),
)


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


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    SetDraw: Handler(set_draw, Needs.PLAYER),
    SetNoDraw: Handler(set_no_draw, Needs.PLAYER),
    SetConcede: Handler(set_concede, Needs.PLAYER),
    SetNoConcede: Handler(set_no_concede, Needs.PLAYER),
}
