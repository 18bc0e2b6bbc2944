"""CREATE's daily limit: one sender (judge.mailio.senders.sender_of) creates at most ``[judge]
create_per_day`` games in any 24 hours, so one address cannot flood the judge with games."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import bindparam, func, select

from judge.commands.context import MailContext
from judge.mailio.inbound import CommandRefused
from judge.mailio.senders import sender_of
from judge.store.models_game import Game
from judge.store.queries import as_utc
from judge.turns import format_deadline

CREATE_WINDOW = timedelta(days=1)

_CREATED = select(func.count(Game.id), func.min(Game.created_at)).where(
    Game.created_by == bindparam("sender"), Game.created_at > bindparam("since"))


def creator_key(ctx: MailContext) -> str:
    """Who creates a game in this mail, as stored in ``game.created_by``; refuses when that
    sender has created its day's allowance already (counting this mail's earlier CREATEs)."""
    key = sender_of(ctx.mail).key
    allowed = ctx.judge.create_per_day
    if allowed <= 0:
        return key
    ctx.session.flush()
    count, oldest = ctx.session.execute(_CREATED, {"sender": key, "since": ctx.now - CREATE_WINDOW}).one()
    if count >= allowed:
        raise CommandRefused(
            f"not created: {key} has created {count} games in the last day, the most this judge allows one "
            f"sender; the next may be created from {format_deadline(as_utc(oldest) + CREATE_WINDOW)}")
    return key
