"""Starting a game when its last place is filled: powers, position, first deadline, mail.

Powers not chosen under RULE POWER_CHOICE are dealt at random with ``secrets`` (the
fair-assignment protocols replace ``assign_powers`` for games whose rules ask for them:
``ASSIGNERS[rule] = function``).
"""

from __future__ import annotations

import secrets
from typing import Callable, Sequence

from adjudicator.api import initial_position
from adjudicator.jsonio import position_to_json
from adjudicator.types import Variant
from judge.lifecycle import GameStatus, move
from judge.mailio.render import render
from judge.publish.broadcast import broadcast, to_member
from judge.commands.context import Ctx
from judge.store.queries import as_utc, deadline_text, has_rule, players, timing_of, variant_of
from judge.commands.keys import pin_address_keys
from judge.phases.order_sources import request_seated_bot_moves
from judge.phases.views import PowerRow, position_rows
from judge.store.models_game import Game, Membership
from judge.turns import next_deadline

Assigner = Callable[[Variant, Sequence[Membership]], None]


def deal_at_random(variant: Variant, joined: Sequence[Membership]) -> None:
    """Give every player without a power one of the powers nobody chose, uniformly at random."""
    taken = {m.power for m in joined if m.power}
    free = [p.name for p in variant.powers if p.name not in taken]
    secrets.SystemRandom().shuffle(free)
    for member, power in zip((m for m in joined if not m.power), free):
        member.power = power


#: Rule name -> the assignment that rule asks for (filled in by the fair-assignment helpers).
ASSIGNERS: dict[str, Assigner] = {}


#: Rule name -> a function that may take the start over (lottery or blinded assignment by
#: email): it returns True when it has begun its own assignment, which calls
#: ``start_game`` again once every player has a power; False lets the start go on.
Deferrer = Callable[[Ctx, Game], bool]
DEFERRERS: dict[str, Deferrer] = {}


def assign_powers(game: Game, variant: Variant, joined: Sequence[Membership]) -> None:
    for rule, assigner in ASSIGNERS.items():
        if has_rule(game, rule):
            assigner(variant, joined)
            return
    deal_at_random(variant, joined)


def _example_order(board: Sequence[PowerRow], power: str) -> str:
    units = next((row.units for row in board if row.power == power), ())
    return f"{units[0]} H" if units else "A PAR - BUR"


def start_game(ctx: Ctx, game: Game) -> None:
    """Assign the powers, set the Spring position and the first deadline, tell everyone."""
    for rule, defer in DEFERRERS.items():
        if has_rule(game, rule) and defer(ctx, game):
            return
    variant = variant_of(game)
    joined = players(ctx.session, game)
    assign_powers(game, variant, joined)
    position = initial_position(variant)
    game.position = position_to_json(position, game.map_name)
    game.phase = str(position.phase)
    earliest = next_deadline(timing_of(game), position.phase.kind, ctx.now, first_phase=True)
    chosen = as_utc(game.deadline) if game.deadline is not None else None
    game.deadline = chosen if chosen is not None and chosen > ctx.now else earliest
    move(game, GameStatus.ACTIVE)
    game.delay = 0
    ctx.session.flush()
    pin_address_keys(ctx.session, game, ctx.now)  # the game keeps the keys it started with
    request_seated_bot_moves(ctx.session, game, ctx.now)  # seats of the judge's bot: it starts thinking

    board = position_rows(variant, position)
    gunboat = has_rule(game, "GUNBOAT")
    letters = {p.name: p.letter for p in variant.powers}
    for member in joined:
        assert member.power is not None
        body = render(
            "game_start.j2", game=game.name, power=member.power, initial=letters[member.power],
            phase=game.phase, board=board, deadline=deadline_text(game, member, ctx.now), gunboat=gunboat,
            example=_example_order(board, member.power),
        )
        ctx.send([to_member(game, ctx.judge, member, subject=f"{game.name}: game started, you play {member.power}",
                            body=body, kind="game_start")])
    body = render("game_start_list.j2", game=game.name, phase=game.phase, board=board,
                  deadline=deadline_text(game, None, ctx.now))
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: game started", body=body,
                       kind="game_start", exclude=[m.address for m in joined]))
