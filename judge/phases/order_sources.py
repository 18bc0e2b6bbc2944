"""Where a phase's orders come from: one place asks, for every kind of game.

    phase_orders(session, game) -> {power: [canonical order lines]}
    with_bot_orders(game, orders, played_by_bot(game, defaulted)) -> (the same, the bot's added;
                                                                       the powers it played)

A plain game's orders are the ones its players stored (by mail); a RULE SEALED game's are
read from the verified reveals (judge/phases/sealed_flow.py); with RULE CD_BOT a power in
civil disorder gets the bot's orders (bot/stand_in.py), and so does a power whose seat the
master gave to the bot (``SEAT power BOT``, judge/phases/bot_seats.py), as its own orders.
A power missing from the mapping has no orders: the engine's civil-disorder defaults apply.
"""

from __future__ import annotations

from typing import Collection, Mapping, Sequence

from sqlalchemy.orm import Session

from adjudicator.types import PhaseKind
from bot.stand_in import game_seed, stand_in_lines
from judge.phases.sealed_flow import sealed_orders
from judge.phases.turnstate import orders_in
from judge.store.models_game import Game
from judge.phases.bot_seats import bot_powers
from judge.store.queries import has_rule, players, position_of, variant_of

CD_BOT = "CD_BOT"


def phase_orders(session: Session, game: Game) -> Mapping[str, Sequence[str]]:
    sealed = sealed_orders(session, game)
    return orders_in(session, game) if sealed is None else sealed


def played_by_bot(game: Game, defaulted: Collection[str]) -> frozenset[str]:
    """The powers in civil disorder that the bot plays: all of ``defaulted`` with RULE CD_BOT."""
    return frozenset(defaulted) if defaulted and has_rule(game, CD_BOT) else frozenset()


def with_seated_bot_orders(session: Session, game: Game,
                           stored: Mapping[str, Sequence[str]]) -> Mapping[str, Sequence[str]]:
    """``stored`` with the orders of the powers the judge's bot plays by the master's SEAT
    (deterministic for the game and phase: a phase processed again gets the same)."""
    powers = bot_powers({m.power: m for m in players(session, game) if m.power})
    if not powers:
        return stored
    variant, position = variant_of(game), position_of(game)
    merged = dict(stored)
    for power in sorted(powers):
        merged[power] = stand_in_lines(variant, position, power, game_seed(game.name))
    return {power: lines for power, lines in merged.items() if lines}


def with_bot_orders(game: Game, stored: Mapping[str, Sequence[str]],
                    bot_powers: Collection[str]) -> tuple[Mapping[str, Sequence[str]], frozenset[str]]:
    """``stored`` with the bot's orders for ``bot_powers`` put before their players' own lines
    (the last order for a unit counts, so the player's stand), and the powers it played.  In
    an adjustment phase the bot plays only a power that sent nothing (its builds would add to
    the player's)."""
    if not bot_powers:
        return stored, frozenset()
    variant, position = variant_of(game), position_of(game)
    merged = {power: list(lines) for power, lines in stored.items()}
    played: set[str] = set()
    for power in sorted(bot_powers):
        own = merged.get(power, [])
        if own and position.phase.kind is PhaseKind.ADJUSTMENT:
            continue
        lines = stand_in_lines(variant, position, power, game_seed(game.name))
        if lines:
            merged[power] = lines + own
            played.add(power)
    return merged, frozenset(played)
