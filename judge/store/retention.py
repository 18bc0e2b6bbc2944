"""How long the judge keeps what it received and sent: the raw bytes of processed mail,
the bodies of sent mail, and the refused sign-ons the password throttle reads (a day).

A processed mail's bytes may hold passwords (SIGNON lines); once ``[store] keep_raw_days``
have passed since it was processed they are emptied.  The row stays (its Message-ID and
digest still recognise a redelivery); shunted and waiting mail is never touched.

A sent mail (every results mail carries its picture, one row per recipient) keeps its
body ``[store] keep_sent_days``; then only its headers stay, so the record of what was
sent to whom and when (From, To, Subject, Date, Message-ID, the row's kind and game)
outlives the bytes.  Queued and failed mail is never touched (it may still be sent).
"""

from __future__ import annotations

from datetime import datetime, timedelta

import re

from sqlalchemy import bindparam, delete, select, update

from judge.store.core import rows_changed, table_of
from judge.store.engine import Store
from judge.store.models_mail import PROCESSED, SENT, InboundMessage, OutboxMessage
from judge.store.models_signon import SignonFailure

#: How long a refused sign-on counts against its address and its account.
SIGNON_MEMORY = timedelta(days=1)


def purge_raw(store: Store, now: datetime, keep_days: int) -> int:
    """Empty the raw bytes of mail processed more than ``keep_days`` ago; how many were
    emptied.  ``keep_days`` 0 keeps everything."""
    if keep_days <= 0:
        return 0
    table = table_of(InboundMessage)
    with store.unit_of_work() as session:
        return rows_changed(
            session,
            update(table)
            .where(table.c.status == PROCESSED, table.c.processed_at < now - timedelta(days=keep_days),
                   table.c.raw != b"")
            .values(raw=b"")
        )


#: Sent mails emptied per call: a pass's work stays bounded after a long pause.
SENT_BATCH = 500
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_OUTBOX = table_of(OutboxMessage)
_OLD_SENT = (select(_OUTBOX.c.id, _OUTBOX.c.raw)
             .where(_OUTBOX.c.emptied_at.is_(None), _OUTBOX.c.status == SENT, _OUTBOX.c.sent_at < bindparam("before"))
             .order_by(_OUTBOX.c.sent_at).limit(SENT_BATCH))  # ix_outbox_emptied_at_status_sent_at
_EMPTY_SENT = (update(_OUTBOX).where(_OUTBOX.c.id == bindparam("row_id"), _OUTBOX.c.emptied_at.is_(None))
               .values(raw=bindparam("headers"), emptied_at=bindparam("now")))


def headers_only(raw: bytes) -> bytes:
    """``raw``'s header block and the blank line after it: the mail without its body."""
    end = _HEADER_END.search(raw)
    return raw[: end.end()] if end else raw


def purge_sent(store: Store, now: datetime, keep_days: int) -> int:
    """Empty the bodies of mail sent more than ``keep_days`` ago (up to SENT_BATCH of the
    oldest), keeping their headers; how many were emptied.  ``keep_days`` 0 keeps them."""
    if keep_days <= 0:
        return 0
    with store.core_unit_of_work() as connection:
        rows = connection.execute(_OLD_SENT, {"before": now - timedelta(days=keep_days)}).all()
        if rows:
            connection.execute(_EMPTY_SENT, [{"row_id": row.id, "headers": headers_only(row.raw), "now": now}
                                             for row in rows])
    return len(rows)


def purge_signon_failures(store: Store, now: datetime) -> int:
    """Forget refused sign-ons older than SIGNON_MEMORY; how many were forgotten."""
    with store.unit_of_work() as session:
        return rows_changed(session, delete(SignonFailure).where(SignonFailure.failed_at < now - SIGNON_MEMORY))
