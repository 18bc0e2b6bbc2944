"""Where a phase's orders come from: one place asks, for every kind of game.

    phase_orders(session, game) -> {power: [canonical order lines]}
    bot_plan(session, game, stored, defaulted) -> BotPlan       # the powers the judge's bot plays
    awaiting_bot(session, game, defaulted, now) -> frozenset    # its moves still missing (asked for now)
    with_seated_bot_orders(stored, plan, moves) / with_bot_orders(stored, plan, moves)

A plain game's orders are the ones its players stored (by mail); a RULE SEALED game's are
read from the verified reveals (judge/phases/sealed_flow.py); with RULE CD_BOT a power in
civil disorder gets the bot's orders (bot/stand_in.py), and so does a power whose seat the
master gave to the bot (``SEAT power BOT``, judge/phases/bot_seats.py), as its own orders.
The bot's orders are made by a bot process, never here (judge/phases/bot_moves.py): a
phase that needs some not yet made waits for them.  A power missing from the mapping has
no orders: the engine's civil-disorder defaults apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Collection, Mapping, Sequence

from sqlalchemy.orm import Session

from adjudicator.types import PhaseKind
from judge.phases.requirements import phase_requirements
from judge.phases.bot_moves import BotMoves, bot_moves, request_bot_moves
from judge.phases.bot_seats import bot_powers
from judge.phases.sealed_flow import sealed_orders
from judge.phases.turnstate import orders_in
from judge.store.models_game import Game
from judge.store.queries import has_rule, players, position_of, variant_of

CD_BOT = "CD_BOT"
#: ``TurnProgress.master_process`` of a PROCESS! (defaults for the missing powers).
FORCED = "PROCESS!"


def phase_orders(session: Session, game: Game) -> Mapping[str, Sequence[str]]:
    sealed = sealed_orders(session, game)
    return orders_in(session, game) if sealed is None else sealed


def played_by_bot(game: Game, defaulted: Collection[str]) -> frozenset[str]:
    """The powers in civil disorder that the bot plays: all of ``defaulted`` with RULE CD_BOT."""
    return frozenset(defaulted) if defaulted and has_rule(game, CD_BOT) else frozenset()


@dataclass(frozen=True)
class BotPlan:
    """The powers the judge's bot orders for in this phase (each one that must order)."""

    seated: frozenset[str] = frozenset()  # its seats (SEAT power BOT): all their orders
    stand_in: frozenset[str] = frozenset()  # powers in civil disorder (RULE CD_BOT): what they left out

    @property
    def powers(self) -> frozenset[str]:
        return self.seated | self.stand_in


def bot_plan(session: Session, game: Game, stored: Mapping[str, Sequence[str]],
             defaulted: Collection[str]) -> BotPlan:
    """Who the bot plays: its seats, and with RULE CD_BOT the ``defaulted`` powers (in an
    adjustment phase only those that sent nothing: its builds would add to the player's);
    of those, the powers that have something to order."""
    seated = bot_powers({m.power: m for m in players(session, game) if m.power})
    stand_in = played_by_bot(game, defaulted)
    if not seated and not stand_in:
        return BotPlan()
    position = position_of(game)
    if position.phase.kind is PhaseKind.ADJUSTMENT:
        stand_in = frozenset(power for power in stand_in if not stored.get(power))
    must = frozenset(phase_requirements(variant_of(game), position))
    return BotPlan(seated & must, (stand_in - seated) & must)


def awaiting_bot(session: Session, game: Game, defaulted: Collection[str], now: datetime) -> frozenset[str]:
    """The powers whose bot moves processing the phase now would need and does not have;
    their jobs are stored with the caller's transaction (a bot process makes the moves and
    makes the game due again).  Empty: the phase can be processed."""
    plan = bot_plan(session, game, phase_orders(session, game), defaulted)
    pending = bot_moves(session, game, plan.powers).pending
    request_bot_moves(session, game, pending, now)
    return pending


def request_seated_bot_moves(session: Session, game: Game, now: datetime) -> None:
    """Ask at once for the moves of the bot's seats in the game's current phase (a new
    phase, a new seat): the bot thinks while the players do."""
    if game.position is None or game.phase is None:
        return
    plan = bot_plan(session, game, {}, ())
    request_bot_moves(session, game, plan.seated, now)


def with_seated_bot_orders(stored: Mapping[str, Sequence[str]], plan: BotPlan,
                           moves: BotMoves) -> Mapping[str, Sequence[str]]:
    """``stored`` with the orders of the powers the judge's bot plays by the master's SEAT."""
    if not plan.seated:
        return stored
    merged = dict(stored)
    for power in sorted(plan.seated):
        merged[power] = list(moves.lines.get(power, ()))
    return {power: lines for power, lines in merged.items() if lines}


def with_bot_orders(stored: Mapping[str, Sequence[str]], plan: BotPlan,
                    moves: BotMoves) -> tuple[Mapping[str, Sequence[str]], frozenset[str]]:
    """``stored`` with the bot's orders for the powers in civil disorder put before their
    players' own lines (the last order for a unit counts, so the player's stand), and the
    powers it played."""
    if not plan.stand_in:
        return stored, frozenset()
    merged = {power: list(lines) for power, lines in stored.items()}
    played: set[str] = set()
    for power in sorted(plan.stand_in):
        lines = list(moves.lines.get(power, ()))
        if lines:
            merged[power] = lines + merged.get(power, [])
            played.add(power)
    return merged, frozenset(played)
