"""``judge outbox list`` / ``judge outbox retry ID``: outgoing mail that failed for good.

A row fails for good after a 5xx refusal or ``[outbound] max_attempts`` failed attempts;
the sender never looks at it again.  ``retry`` queues it once more, due at once, with its
attempts counted from zero (the same bytes and Message-ID: a receiver that got an earlier
copy can drop this one).
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from email.parser import BytesHeaderParser
from email.policy import default as default_policy
from typing import TYPE_CHECKING, Any

from judge.cli.options import add_config_argument, on_numbered_row, on_store, settings_from

if TYPE_CHECKING:
    from judge.store.engine import Store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("outbox", help="outgoing mail that failed for good: list, retry")
    commands = parser.add_subparsers(dest="outbox_command", metavar="ACTION", required=True)
    listing = commands.add_parser(
        "list", help="list outgoing mail that failed for good, with the last error",
        description="List outgoing mail the sender gave up on: number, time queued, attempts, kind, "
                    "recipients, subject and the last error.",
    )
    add_config_argument(listing)
    listing.add_argument("--queued", action="store_true",
                         help="also list mail still queued for another attempt")
    listing.add_argument("--sent", metavar="ADDRESS",
                         help="instead, list the mail sent to ADDRESS (the last 50), each with the relay's queue "
                              "id: the name to look for in the relay's log")
    listing.set_defaults(func=run_list)
    retry = commands.add_parser(
        "retry", help="queue a failed outgoing mail again",
        description="Queue outgoing mail ID (from `judge outbox list`) for delivery again; the running "
                    "judge (or the next `judge serve`) sends it.",
    )
    add_config_argument(retry)
    retry.add_argument("outbox_id", metavar="ID", help="the mail's number from `judge outbox list`")
    retry.set_defaults(func=run_retry)


def _subject(raw: bytes) -> str:
    try:
        return str(BytesHeaderParser(policy=default_policy).parsebytes(raw).get("Subject", ""))
    except Exception:  # a header the parser cannot read: list the row anyway
        return "?"


def run_list(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if settings is None:
        return 2
    if args.sent:
        return on_store(settings, "outbox", lambda store: _list_sent(store, args.sent))
    return on_store(settings, "outbox", lambda store: _list(store, args.queued))


SENT_SHOWN = 50


def _list_sent(store: Store, address: str) -> int:
    from sqlalchemy import select

    from judge.store.models_mail import SENT, OutboxMessage

    wanted = address.strip().lower()
    with store.unit_of_work() as session:
        rows = session.execute(
            select(OutboxMessage).where(OutboxMessage.status == SENT).order_by(OutboxMessage.id.desc())
        ).scalars()
        shown = 0
        for row in rows:
            if wanted not in (r.lower() for r in row.recipients):
                continue
            print(f"{row.id}\t{row.sent_at:%Y-%m-%d %H:%M:%S}Z\t{row.kind}\tsubject {_subject(row.raw)!r}"
                  f"\tqueue id {row.relay_queue_id or '-'}")
            shown += 1
            if shown == SENT_SHOWN:
                break
    if not shown:
        print(f"no mail sent to {address}")
    return 0


def _list(store: Store, queued: bool) -> int:
    from sqlalchemy import select

    from judge.store.models_mail import FAILED, QUEUED, OutboxMessage

    wanted = [FAILED, QUEUED] if queued else [FAILED]
    with store.unit_of_work() as session:
        rows = session.execute(
            select(OutboxMessage).where(OutboxMessage.status.in_(wanted)).order_by(OutboxMessage.id)
        ).scalars().all()
        if not rows:
            print("no failed outgoing mail" if not queued else "no failed or queued outgoing mail")
            return 0
        for row in rows:
            error = (row.last_error or "").strip().splitlines()
            print(f"{row.id}\t{row.created_at:%Y-%m-%d %H:%M:%S}Z\t{row.status}\t{row.attempts} attempts"
                  f"\t{row.kind}\tto {', '.join(row.recipients)}\tsubject {_subject(row.raw)!r}"
                  f"\t{error[-1] if error else ''}")
    return 0


def run_retry(args: argparse.Namespace) -> int:
    return on_numbered_row(args, args.outbox_id, "outbox retry", "an outgoing mail's number (see `judge outbox list`)",
                           _retry)


def _retry(store: Store, outbox_id: int) -> int:
    from sqlalchemy import update

    from judge.store.core import rows_changed
    from judge.store.models_mail import FAILED, QUEUED, SENT, OutboxMessage

    with store.unit_of_work() as session:
        row = session.get(OutboxMessage, outbox_id)
        if row is None:
            print(f"judge outbox retry: there is no outgoing mail {outbox_id} (see `judge outbox list`)",
                  file=sys.stderr)
            return 1
        if row.status != FAILED:
            why = "it was sent" if row.status == SENT else "it is still queued for another attempt"
            print(f"judge outbox retry: outgoing mail {outbox_id} has not failed ({row.status}): {why}",
                  file=sys.stderr)
            return 1
        requeued = rows_changed(
            session,
            update(OutboxMessage)
            .where(OutboxMessage.id == outbox_id, OutboxMessage.status == FAILED)
            .values(status=QUEUED, attempts=0, next_attempt_at=datetime.now(timezone.utc), leased_by=None)
            .execution_options(synchronize_session=False)
        )
        if not requeued:  # another `judge outbox retry` got there first
            print(f"judge outbox retry: outgoing mail {outbox_id} is no longer failed", file=sys.stderr)
            return 1
        print(f"outgoing mail {outbox_id} to {', '.join(row.recipients)} queued again; the running judge "
              "(or the next `judge serve`) sends it")
    return 0
