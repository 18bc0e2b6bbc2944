"""How long the judge keeps what it received: the raw bytes of processed mail, and the
refused sign-ons the password throttle reads (a day).

A processed mail's bytes may hold passwords (SIGNON lines); once ``[store] keep_raw_days``
have passed since it was processed they are emptied.  The row stays (its Message-ID and
digest still recognise a redelivery); shunted and waiting mail is never touched.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, update

from judge.store.core import rows_changed, table_of
from judge.store.engine import Store
from judge.store.models_mail import PROCESSED, InboundMessage
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


def purge_signon_failures(store: Store, now: datetime) -> int:
    """Forget refused sign-ons older than SIGNON_MEMORY; how many were forgotten."""
    with store.unit_of_work() as session:
        return rows_changed(session, delete(SignonFailure).where(SignonFailure.failed_at < now - SIGNON_MEMORY))
