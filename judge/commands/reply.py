"""The one reply to a mail: what was done, the errors with their lines, the lines not
processed, and for each game signed on to the current orders and the deadline."""

from __future__ import annotations

from judge.outgoing import OutgoingMail
from judge.render import render
from judge.commands.context import MailContext, ReplyLine
from judge.phases.views import session_view
from judge.store.models_game import Game, Membership
from mailcmds.model import quote


def reply_lines(ctx: MailContext) -> list[ReplyLine]:
    """The handlers' results and the parser's errors, in the order of the mail."""
    parsed = [ReplyLine(e.line_no, e.text, e.message, False) for e in ctx.parsed.errors]
    return sorted([*ctx.entries, *parsed], key=lambda entry: entry.line_no)


def build_reply(ctx: MailContext) -> OutgoingMail:
    views = []
    first_game: int | None = None
    for game_id, member_id in ctx.sessions:
        game = ctx.session.get(Game, game_id)
        member = ctx.session.get(Membership, member_id)
        if game is None or member is None:
            continue
        first_game = first_game if first_game is not None else game.id
        views.append(session_view(ctx.session, game, member, ctx.now))
    lines = reply_lines(ctx)
    body = render(
        "reply.j2",
        lines=lines,
        errors=sum(1 for line in lines if not line.ok),
        unprocessed=[(line.number, quote(line.text)) for line in ctx.parsed.unprocessed],
        notices=list(ctx.parsed.notices),
        blocks=ctx.blocks,
        sessions=views,
        judge_name=ctx.judge.name,
        nothing=not lines and not ctx.blocks and not ctx.parsed.unprocessed,
    )
    return ctx.inbound.reply(body, game_id=first_game)
