"""The outbox sender as a process of its own, for tests that SIGKILL it (started through a
forkserver that has imported this module, so each start costs milliseconds)."""

from __future__ import annotations

import sys
import time
from typing import Any

from sqlalchemy import func, select

from judge.edge.smtp_out import OutboxSender, RelayTransport
from judge.store.engine import Store
from judge.store.models import load_models
from judge.store.models_mail import QUEUED, OutboxMessage

load_models()  # here, at import: the forkserver's children then start with every model loaded

#: Exit status when rows stay queued without progress (a lease nobody releases).
STUCK = 3


def queued_rows(store: Store) -> int:
    with store.unit_of_work() as session:
        return session.scalar(select(func.count()).select_from(OutboxMessage).where(OutboxMessage.status == QUEUED)) or 0


def send_everything(url: str, relay_host: str, relay_port: int, go: Any, stuck_after: float = 10.0) -> None:
    """Start a sender (releasing the rows a killed predecessor leased) and send until the
    outbox is empty; exit STUCK if nothing moves for ``stuck_after`` seconds."""
    store = Store(url)
    sender = OutboxSender(store, RelayTransport(relay_host, relay_port, timeout=10), retry_base_seconds=0.01)
    go.wait()
    sender.start()
    last_progress = time.monotonic()
    while queued_rows(store):
        if sender.send_due():
            last_progress = time.monotonic()
        elif time.monotonic() - last_progress > stuck_after:
            sys.exit(STUCK)
        else:
            time.sleep(0.01)
    sender.stop()
    store.dispose()
