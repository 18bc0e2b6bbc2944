"""Running one typed command: who may give it, its handler, its own savepoint.

Each command runs in a SAVEPOINT: a handler that refuses (``CommandRefused``) leaves no
trace in the store or in the mail to send, and the rest of the mail goes on.  Any other
exception is a bug: it propagates and the worker shunts the whole mail.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.commands.create import Create
from judge.commands.join import Resign
from judge.commands.press import Press
from mailcmds import Command, OrderLines, SourceLine
from judge.commands import signon_throttle
from judge.commands.context import MailContext, SignedOn
from judge.config import JudgeSettings
from judge.mailio.outgoing import OutgoingMail
from judge.store.models_game import Game, Membership
from judge.commands.handler import Needs
from judge.commands.registry import handler_for
from judge.mailio.inbound import CommandRefused



def source_lines(command: Command) -> tuple[SourceLine, ...]:
    """The lines a command came from (one per order for a run of orders)."""
    if isinstance(command, OrderLines):
        return command.lines
    return (command.source,)


def _check_needs(ctx: MailContext, needs: Needs) -> None:
    if needs is Needs.SIGNON:
        ctx.require_signon()
    elif needs is Needs.PLAYER:
        ctx.require_player()
    elif needs is Needs.MASTER:
        ctx.require_master()


def run_command(ctx: MailContext, command: Command) -> None:
    opens = command.opens_session
    distrust = ctx.inbound.distrust if ctx.inbound is not None else None
    if (opens or isinstance(command, Resign)) and distrust:
        ctx.failed(command.source, f"not read: {distrust}")  # judge.mailauth.trust
        if opens:
            ctx.signed_on, ctx.failed_signon = None, command.source
        return
    if not opens and ctx.failed_signon is not None:
        failed = ctx.failed_signon
        for line in source_lines(command):
            ctx.failed(line, f"not processed: the sign-on on line {failed.number} ({failed.text}) was refused")
        return
    if isinstance(command, Resign):
        ctx.deferred.append((command, ctx.signed_on))
        return
    # A password-checked command (SIGNON, REGISTER): the account it tries, before it is tried.
    tried = signon_throttle.attempt(ctx, command) if ctx.inbound is not None else None
    if tried is not None:
        unread = (f"not tried: one sign-on attempt for {signon_throttle.account_text(tried.key)} per mail, and the one "
                  "above was refused; send the right password in a new mail"
                  if tried.key in ctx.refused_signons else signon_throttle.throttled(ctx, tried))
        if unread is not None:
            ctx.failed(command.source, unread)
            if opens:
                ctx.signed_on, ctx.failed_signon = None, command.source
            return
    handler = handler_for(type(command))
    marks = (len(ctx.outgoing), len(ctx.blocks), len(ctx.entries), len(ctx.sessions))
    signed_on = ctx.signed_on
    savepoint = ctx.session.begin_nested()
    try:
        _check_needs(ctx, handler.needs)
        handler.run(ctx, command)
    except CommandRefused as refusal:
        savepoint.rollback()
        del ctx.outgoing[marks[0]:], ctx.blocks[marks[1]:], ctx.entries[marks[2]:], ctx.sessions[marks[3]:]
        _refused(ctx, command, str(refusal))
        if tried is not None:
            ctx.refused_signons.add(tried.key)
            signon_throttle.record_refusal(ctx, tried)  # outside the rolled-back savepoint
        if opens:
            ctx.signed_on = None
            ctx.failed_signon = command.source
        else:
            ctx.signed_on = signed_on
        return
    savepoint.commit()
    if isinstance(command, Create):  # its status lines are the new master's first edits
        for status in command.status:
            run_command(ctx, status)


def _refused(ctx: MailContext, command: Command, reason: str) -> None:
    """A refused command accounted for line by line: each order line of a run quoted (a
    sealed game's, a game not started), and a refused press's message given back so it
    can be sent again."""
    first, *rest = source_lines(command)
    ctx.failed(first, reason)
    for line in rest:
        ctx.failed(line, f"not accepted either, for the reason given at line {first.number}")
    if isinstance(command, Press):
        ctx.add_block(f"Your press of line {first.number}, not sent:\n" + command.body.rstrip("\n"))


def run_deferred(ctx: MailContext) -> None:
    """RESIGN last, and only when nothing in the mail went wrong (it cannot be undone)."""
    pending, ctx.deferred = ctx.deferred, []
    for command, signed_on in pending:
        if ctx.has_errors:
            ctx.failed(command.source, "RESIGN refused: this mail has errors (listed here), and a "
                                       "resignation cannot be undone; send RESIGN again in a mail without errors")
            continue
        current = ctx.signed_on
        ctx.signed_on = signed_on
        try:
            savepoint = ctx.session.begin_nested()
            try:
                handler_for(type(command)).run(ctx, command)
            except CommandRefused as refusal:
                savepoint.rollback()
                ctx.failed(command.source, str(refusal))
                continue
            savepoint.commit()
        finally:
            ctx.signed_on = current


def run_at_seat(session: Session, judge: JudgeSettings, now: datetime, game: Game, membership: Membership,
                command: Command) -> tuple[str | None, list[OutgoingMail]]:
    """One command from a seat at another door (a DAIDE connection: SUB, GOF, DRW as the
    mail's order lines, SET NOWAIT, SET DRAW), run as a mail's: the same check of who may
    give it, the same handler, in its own savepoint, with the same records.  Returns why
    it was refused (None when it was done, every order line accepted) and the mail it
    causes."""
    ctx = MailContext.at_seat(session, judge, now, SignedOn(game, membership, 0))
    run_command(ctx, command)
    refusals = [entry.message for entry in ctx.entries if not entry.ok]
    return (refusals[0] if refusals else None), ctx.outgoing
