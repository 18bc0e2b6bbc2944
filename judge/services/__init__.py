"""The services layer: a stored mail's typed commands applied to the store, and the mail
that results, inside the worker's one transaction.

    process_mail(session, inbound, now) -> list[OutgoingMail]    # the worker's ProcessHook

``judge serve`` uses it by default (``[worker] handler = "judge.services:process_mail"``).
Handlers are registered with ``judge.services.registry.handles`` in the modules listed in
``HANDLER_MODULES``; a helper adding a command family writes its module and appends it
here.  ``OPTIONAL_HANDLER_MODULES`` are imported when present (modules being written).
"""

from __future__ import annotations

import importlib
from datetime import datetime

from sqlalchemy.orm import Session

from judge.hooks import import_if_present
from judge.outgoing import OutgoingMail
from judge.services.context import MailContext
from judge.services.dispatch import run_command, run_deferred
from judge.services.reply import build_reply
from judge.worker import InboundMail
from mailcmds import parse_mail

HANDLER_MODULES: tuple[str, ...] = (
    "judge.services.signon",
    "judge.services.join",
    "judge.services.create",
    "judge.services.master",
    "judge.services.orders",
    "judge.services.press",
    "judge.services.settings",
    "judge.services.info",
    "judge.services.fair_lottery",  # lottery COMMIT/REVEAL (interceptors before sealed orders)
    "judge.services.fair_assign",  # RULE PREFERENCES: SET PREFERENCE, assignment by lotteries
    "judge.services.fair_escrow",  # ESCROW, PEEL
    "judge.services.fair_blind",  # RULE BLIND_ASSIGN (GM side)
    "judge.services.keys",  # SET KEY, GET KEY
    "judge.services.sealed",  # COMMIT, COMMIT SHA256, REVEAL (RULE SEALED)
)

OPTIONAL_HANDLER_MODULES: tuple[str, ...] = (
    "judge.services.turn_commands",  # PROCESS, PROCESS!, PREVIEW, ROLLBACK, SET DRAW (turns)
)


def _load_handlers() -> None:
    for name in HANDLER_MODULES:
        importlib.import_module(name)
    for name in OPTIONAL_HANDLER_MODULES:
        import_if_present(name)


_load_handlers()


def process_mail(session: Session, inbound: InboundMail, now: datetime) -> list[OutgoingMail]:
    """Apply every command of ``inbound`` and return its one reply plus any other mail.

    Robot mail (bounces, auto-replies, list traffic) is not acted on at all: a command
    in an out-of-office echo must not change a game.
    """
    if not inbound.may_reply:
        return []
    parsed = parse_mail(inbound.message)
    ctx = MailContext(session=session, inbound=inbound, now=now, parsed=parsed)
    for command in parsed.commands:
        run_command(ctx, command)
    run_deferred(ctx)
    session.flush()
    return [build_reply(ctx), *ctx.outgoing]


__all__ = ["HANDLER_MODULES", "OPTIONAL_HANDLER_MODULES", "process_mail"]
