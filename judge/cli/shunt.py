"""``judge shunt list`` / ``judge shunt retry ID``: messages whose processing crashed."""

from __future__ import annotations

import argparse
from email.parser import BytesHeaderParser
import sys
from datetime import datetime, timezone
from email.policy import default as default_policy
from typing import TYPE_CHECKING, Any

from judge.cli.options import add_config_argument, on_numbered_row, on_store, settings_from

if TYPE_CHECKING:
    from judge.store.engine import Store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("shunt", help="messages whose processing failed: list, retry")
    commands = parser.add_subparsers(dest="shunt_command", metavar="ACTION", required=True)
    listing = commands.add_parser("list", help="list shunted messages with their error")
    add_config_argument(listing)
    listing.add_argument("--all", action="store_true", help="include shunts already retried")
    listing.add_argument("--traceback", action="store_true", help="print full tracebacks")
    listing.set_defaults(func=run_list)
    retry = commands.add_parser(
        "retry", help="queue a shunted message for processing again",
        description="Queue the message of shunt ID again; the running judge (or the next "
                    "`judge serve`) processes it.",
    )
    add_config_argument(retry)
    retry.add_argument("shunt_id", metavar="ID", help="the shunt's number from `judge shunt list`")
    retry.set_defaults(func=run_retry)


def _summary(raw: bytes) -> tuple[str, str]:
    # Headers only: a body nested too deep for the parser must not stop the listing.
    message = BytesHeaderParser(policy=default_policy).parsebytes(raw)
    try:
        from judge.commands.registry import masked

        return str(message.get("From", "")), masked(str(message.get("Subject", "")))
    except Exception:  # a malformed header: show what we can
        return "?", "?"


def run_list(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if settings is None:
        return 2
    return on_store(settings, "shunt", lambda store: _list(store, args.all, args.traceback))


def _list(store: Store, everything: bool, tracebacks: bool) -> int:
    from sqlalchemy import select

    from judge.daemon.shunt_notice import without_secrets
    from judge.store.models_mail import Shunt

    with store.unit_of_work() as session:
        query = select(Shunt).order_by(Shunt.id)
        if not everything:
            query = query.where(Shunt.retried.is_(False))
        shunts = session.execute(query).scalars().all()
        if not shunts:
            print("no shunted messages")
            return 0
        for shunt in shunts:
            sender, subject = _summary(shunt.inbound.raw)
            error = shunt.traceback.strip().splitlines()[-1] if shunt.traceback.strip() else ""
            error = without_secrets(error, shunt.inbound.raw)
            state = "retried" if shunt.retried else "shunted"
            print(f"{shunt.id}\t{shunt.created_at:%Y-%m-%d %H:%M:%S}Z\t{state}\tmessage #{shunt.inbound_id}"
                  f"\tfrom {sender}\tsubject {subject!r}\t{error}")
            if tracebacks:
                print(without_secrets(shunt.traceback, shunt.inbound.raw))
    return 0


def run_retry(args: argparse.Namespace) -> int:
    return on_numbered_row(args, args.shunt_id, "shunt retry", "a shunt number (see `judge shunt list`)", _retry)


def _retry(store: Store, shunt_id: int) -> int:
    from sqlalchemy import update

    from judge.store.core import rows_changed
    from judge.store.models_mail import RECEIVED, SHUNTED, InboundMessage, Shunt

    with store.unit_of_work() as session:
        shunt = session.get(Shunt, shunt_id)
        if shunt is None:
            print(f"judge shunt retry: there is no shunt {shunt_id} (see `judge shunt list`)",
                  file=sys.stderr)
            return 1
        if shunt.inbound.processed_at is not None:
            # A mail another worker processed after this one's shunt (before the
            # guarded shunt, a shunt could overwrite "processed"): never twice.
            print(f"judge shunt retry: message #{shunt.inbound_id} of shunt {shunt_id} was processed at "
                  f"{shunt.inbound.processed_at:%Y-%m-%d %H:%M:%S}Z; retrying would apply it twice",
                  file=sys.stderr)
            return 1
        if shunt.retried or shunt.inbound.status != SHUNTED:
            print(f"judge shunt retry: shunt {shunt_id} was already retried "
                  f"(message #{shunt.inbound_id} is {shunt.inbound.status})", file=sys.stderr)
            return 1
        requeued = rows_changed(
            session,
            update(InboundMessage)
            .where(InboundMessage.id == shunt.inbound_id, InboundMessage.status == SHUNTED,
                   InboundMessage.processed_at.is_(None))
            .values(status=RECEIVED, attempts=0, started_at=None)  # its starts are counted afresh
            .execution_options(synchronize_session=False)
        )
        if not requeued:  # another `judge shunt retry` got there first
            print(f"judge shunt retry: message #{shunt.inbound_id} is no longer shunted", file=sys.stderr)
            return 1
        shunt.retried = True
        shunt.retried_at = datetime.now(timezone.utc)
        print(f"message #{shunt.inbound_id} queued again; the running judge "
              "(or the next `judge serve`) processes it")
    return 0
