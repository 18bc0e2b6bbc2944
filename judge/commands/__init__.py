"""Commands: a stored mail's typed commands applied to the store, and the mail that
results, inside the worker's one transaction.

    process_mail(session, inbound, now) -> list[OutgoingMail]    # the worker's ProcessHook

``judge serve`` uses it by default (``[worker] handler = "judge.commands:process_mail"``).
Each command module here declares its commands whole (value, parse, verb and HELP rows,
handler, who may give it); judge/commands/registry.py finds them and derives the tables.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy.orm import Session

from judge.commands.context import MailContext
from judge.commands.dispatch import run_command, run_deferred
from judge.commands.reply import build_reply
from judge.mailio.loopguard import is_list_traffic
from judge.mailio.inbound import InboundMail
from judge.mailauth.bounces import clear_unreachable, handle_bounce, is_bounce_for_us
from judge.phases.turnstate import outlooks
from judge.mailio.outgoing import OutgoingMail
from judge.commands.commitments import Reveal, RevealNumber
from judge.commands.registry import parse_mail
from mailcmds import ParsedMail


class MailCommands:
    """The worker's hook (``process_mail``): a judge.mailio.inbound.PreparingHook."""

    def __call__(self, session: Session, inbound: InboundMail, now: datetime) -> list[OutgoingMail]:
        """Apply every command of ``inbound`` and return its one reply plus any other mail.

        Robot mail (bounces, auto-replies) is not acted on at all: a command in an
        out-of-office echo must not change a game.  Of mail a mailing list passed on (a
        player's post to the game's list) only ``REVEAL who@game`` is acted on, unanswered:
        such a reveal proves itself against the published commitment (issue 12.9).
        """
        if is_bounce_for_us(inbound):  # to a VERP return path: judge.mailauth.bounces
            return handle_bounce(session, inbound, now)
        if not inbound.may_reply:
            return _list_reveals(session, inbound, now) if is_list_traffic(inbound.no_reply_reason) else []
        clear_unreachable(session, inbound.from_address)  # they write again: so may the judge
        parsed = _parsed(inbound)
        if inbound.unreadable is not None:
            parsed = replace(parsed, notices=(*parsed.notices, f"The judge could not read your mail: {inbound.unreadable}."))
        ctx = MailContext(session=session, inbound=inbound, now=now, parsed=parsed)
        for command in parsed.commands:
            run_command(ctx, command)
        run_deferred(ctx)
        session.flush()
        return [build_reply(ctx, outlooks(session, now)), *ctx.outgoing]

    @staticmethod
    def prepare(inbound: InboundMail) -> InboundMail:
        """``inbound`` with its commands parsed: the parse reads only the mail."""
        if is_bounce_for_us(inbound) or (not inbound.may_reply and not is_list_traffic(inbound.no_reply_reason)):
            return inbound
        return replace(inbound, prepared=parse_mail(inbound.message))


def _parsed(inbound: InboundMail) -> ParsedMail:
    """The mail's commands, as ``prepare`` parsed them or parsed now."""
    return inbound.prepared if isinstance(inbound.prepared, ParsedMail) else parse_mail(inbound.message)


#: The worker's hook: ``process_mail(session, inbound, now) -> list[OutgoingMail]``.
process_mail = MailCommands()


def _list_reveals(session: Session, inbound: InboundMail, now: datetime) -> list[OutgoingMail]:
    parsed = _parsed(inbound)
    ctx = MailContext(session=session, inbound=inbound, now=now, parsed=parsed)
    for command in parsed.commands:
        if isinstance(command, (Reveal, RevealNumber)) and command.target is not None:
            run_command(ctx, command)
    session.flush()
    return list(ctx.outgoing)  # what the reveals published; no reply goes back to a list


__all__ = ["MailCommands", "process_mail"]
