"""The one reply to a mail: what was done, the errors with their lines, the lines not
processed, and for each game signed on to the current orders and the deadline."""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from judge.mailio.outgoing import OutgoingMail
from judge.mailio.render import render
from judge.commands.context import MailContext, ReplyLine
from judge.commands.reply_size import MAX_REPLY_CHARS, bounded  # noqa: F401  (MAX_REPLY_CHARS: the tests' name for it)
from judge.phases.views import session_view
from judge.publish.signing import compose
from judge.store.models_game import Game, Membership
from judge.commands.registry import masked
from mailcmds.model import quote


#: Lines not processed that a reply lists one by one (the rest are counted).
MAX_LISTED_UNPROCESSED = 20


def reply_lines(ctx: MailContext) -> list[ReplyLine]:
    """The handlers' results and the parser's errors, in the order of the mail."""
    parsed = [ReplyLine(e.line_no, e.text, e.message, False) for e in ctx.parsed.errors]
    return sorted([*ctx.entries, *parsed], key=lambda entry: entry.line_no)


def build_reply(ctx: MailContext, processing: Mapping[int, str] | None = None) -> OutgoingMail:
    """The reply; ``processing``: game id -> when its phase will be processed, for the games
    whose orders are all in after this mail (judge.phases.turnstate.outlooks)."""
    processing = processing or {}
    views = []
    first_game: int | None = None
    for game_id, member_id in ctx.sessions:
        game = ctx.session.get(Game, game_id)
        member = ctx.session.get(Membership, member_id)
        if game is None or member is None:
            continue
        first_game = first_game if first_game is not None else game.id
        view = session_view(ctx.session, game, member, ctx.now)
        views.append(replace(view, processing=processing.get(game.id)))
    lines = reply_lines(ctx)
    unprocessed = ctx.parsed.unprocessed
    body = render(
        "reply.j2",
        lines=lines,
        errors=sum(1 for line in lines if not line.ok),
        done_lines=sum(1 for line in lines if line.ok),
        unprocessed=[(line.number, quote(masked(line.text))) for line in unprocessed[:MAX_LISTED_UNPROCESSED]],
        more_unprocessed=max(0, len(unprocessed) - MAX_LISTED_UNPROCESSED),
        notices=list(ctx.parsed.notices),
        blocks=ctx.blocks,
        sessions=views,
        judge_name=ctx.judge.name,
        nothing=not lines and not ctx.blocks,
        incomplete=any(view.incomplete for view in views),
    )
    mail = ctx.mail.reply(bounded(body), game_id=first_game)
    if ctx.attachments:
        mail = replace(mail, mime=compose(mail.body, ctx.attachments))
    return mail
