"""SEAT power BOT / SEAT BOT: the master gives a seat to the judge's own bot, which then
plays it (judge/phases/bot_seats.py: its orders are made by a bot process,
judge/daemon/bot_worker.py, and the phase is processed once they are in).  EJECT power takes the seat back, and
a TAKEOVER gives it to a human, as for any player."""

from __future__ import annotations

import secrets

from sqlalchemy import func, select

from judge.commands.context import MailContext
from judge.commands.start import ASSIGNERS, start_game
from judge.mailio.inbound import CommandRefused
from judge.phases.bot_seats import BOT_NAME, bot_address, is_bot_seat
from judge.phases.order_sources import request_seated_bot_moves
from judge.phases.turnstate import after_orders, fresh_deadline_for_newcomer
from judge.publish.broadcast import broadcast
from judge.mailio.render import render
from judge.lifecycle import FORMING, in_play
from judge.store.models_game import PLAYER, Game, Membership
from judge.store.passwords import hash_password
from judge.store.queries import has_rule, player_of, players, power_named, variant_of
from judge.commands.master import SeatBot
from judge.commands.handler import Handler, Needs


def seat_bot(ctx: MailContext, command: SeatBot) -> None:
    game = ctx.require_master().game
    if game.status == FORMING:
        _take_a_place(ctx, game, command)
    elif in_play(game.status):
        _play_a_power(ctx, game, command)
    else:
        raise CommandRefused(f"game '{game.name}' is {game.status}: the bot takes a place in a forming game "
                             "(SEAT BOT) or plays a power of a running one (SEAT power BOT)")


def _take_a_place(ctx: MailContext, game: Game, command: SeatBot) -> None:
    if command.power is not None:
        raise CommandRefused(f"SEAT {command.power} BOT: the powers of game '{game.name}' are dealt when it "
                             "starts; SEAT BOT takes a free place")
    fair = [rule for rule in ASSIGNERS if has_rule(game, rule)]
    if fair:
        raise CommandRefused(f"game '{game.name}' assigns powers by email (RULE {fair[0]}), which the bot cannot "
                             "take part in; once the game runs, SEAT power BOT gives it a power without a player")
    joined = players(ctx.session, game)
    places = len(variant_of(game).powers)
    if len(joined) >= places:
        raise CommandRefused(f"game '{game.name}' is full")
    _new_bot(ctx, game, None)
    ctx.done(command, f"the judge's bot joined game '{game.name}': {len(joined) + 1} of {places} places taken")
    if len(joined) + 1 == places:
        start_game(ctx, game)
        ctx.done(command, f"game '{game.name}' is full and has started")


def _play_a_power(ctx: MailContext, game: Game, command: SeatBot) -> None:
    if command.power is None:
        raise CommandRefused(f"game '{game.name}' is running: name the power, SEAT power BOT")
    power = power_named(game, command.power)
    player = player_of(ctx.session, game, power)
    if player is not None:
        who = "the judge's bot" if is_bot_seat(player) else "a player"
        raise CommandRefused(f"{power} has {who}; EJECT {power} first")
    _new_bot(ctx, game, power)  # a dummy power too: the bot's seat is the power's latest
    later = fresh_deadline_for_newcomer(game, ctx.now)
    after_orders(ctx.session, game, ctx.now)  # the bot counts as having ordered: the phase may be ready
    request_seated_bot_moves(ctx.session, game, ctx.now)  # a bot process makes its moves now
    ctx.done(command, f"{power} is now played by the judge's bot; EJECT {power} takes it back")
    text = f"{power} is now played by the judge's bot (it makes its orders beside the judge; the phase is processed once they are in)."
    if later:
        text += f" The deadline had passed: it is now {later}."
    ctx.send(broadcast(ctx.session, game, ctx.judge, subject=f"{game.name}: {power} played by the bot",
                       body=render("power_changed.j2", game=game.name, text=text), kind="power_changed",
                       exclude=[ctx.sender]))


def _new_bot(ctx: MailContext, game: Game, power: str | None) -> Membership:
    """A player membership for the bot: an address in the reserved machine domain and a
    password nobody is told."""
    count = ctx.session.scalar(select(func.count()).select_from(Membership).where(Membership.game_id == game.id))
    member = Membership(game_id=game.id, role=PLAYER, power=power, name=BOT_NAME,
                        address=bot_address(game.name, int(count or 0) + 1),
                        password_hash=hash_password(secrets.token_hex(16)), joined_at=ctx.now)
    ctx.session.add(member)
    ctx.session.flush()
    return member


#: Which function carries out each command of this module, and who may give it.
HANDLERS = {
    SeatBot: Handler(seat_bot, Needs.MASTER),
}
