"""Processing hooks for daemon tests, named in config as ``tests.judge.handlers:<name>``.

They stand in for judge.commands so these tests check the daemon's frame (intake,
exactly-once, shunting, outbox) independently of what the commands do.
"""

from __future__ import annotations

from datetime import datetime
from typing import Sequence

from sqlalchemy.orm import Session

from judge.mailio.outgoing import OutgoingMail
from judge.mailio.inbound import InboundMail


class DeliberateFailure(RuntimeError):
    """Raised for a mail whose subject asks for it, to exercise the shunt."""


def echo(session: Session, inbound: InboundMail, now: datetime) -> Sequence[OutgoingMail]:
    """Answer every mail with its number; a subject containing CRASH raises."""
    if "CRASH" in inbound.subject:
        raise DeliberateFailure(f"asked to fail by subject {inbound.subject!r}")
    return [inbound.reply(f"processed #{inbound.inbound_id}\n")]


def die_on_poison(session: Session, inbound: InboundMail, now: datetime) -> Sequence[OutgoingMail]:
    """As ``echo``, but a subject containing POISON kills this very process with SIGKILL,
    as the kernel's out-of-memory killer would: no exception, no rollback, no shunt."""
    import os
    import signal

    if "POISON" in inbound.subject:
        os.kill(os.getpid(), signal.SIGKILL)
    return echo(session, inbound, now)
