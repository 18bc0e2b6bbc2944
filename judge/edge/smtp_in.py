"""SMTP intake: an aiosmtpd handler that stores the raw message, then answers 250.

The handler does nothing else (protocol apart from policy): processing happens in the
worker, after the mail is safely stored.  If storing fails the client gets a 451 and
its MTA tries again later, so nothing acknowledged is ever lost.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any, Callable

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope, Session as SmtpSession, SMTP

from judge.config import SmtpSettings
from judge.store.engine import Store
from judge.mailauth.intake import Vetted, Vetting
from judge.store.inbound import GroupedIntake, Stored
from judge.mailio.inbound import Clock, utc_now

log = logging.getLogger("judge.smtp_in")


class IntakeHandler:
    """aiosmtpd handler: ``handle_DATA`` stores the message and only then says 250."""

    def __init__(self, store: Store, *, on_stored: Callable[[], None] = lambda: None,
                 clock: Clock = utc_now, vetting: Vetting | None = None) -> None:
        self.store = store
        self.vetting = vetting  # who wrote it: verified before it is stored (judge.mailauth.intake)
        self.intake = GroupedIntake(store)  # concurrent connections' mails share a transaction
        self.on_stored = on_stored
        self.clock = clock

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content
        if raw is None:  # never: aiosmtpd reads the data before it calls this
            log.error("a message from %r came without content", envelope.mail_from)
            return "451 4.3.0 Temporary failure storing the message; try again later"
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        mail_from = envelope.mail_from or ""
        if mail_from == "<>":
            mail_from = ""
        rcpt_to = list(envelope.rcpt_tos)
        peer = _peer_host(session)
        helo = str(getattr(session, "host_name", "") or "")[:255]
        loop = asyncio.get_running_loop()

        def vet_and_store(raw: bytes) -> Stored:
            vetted = (self.vetting.over_smtp(raw, mail_from=mail_from, peer=peer, helo=helo)
                      if self.vetting is not None else Vetted())
            return self.intake.store_inbound(raw, mail_from=mail_from, rcpt_to=rcpt_to, source="smtp",
                                             now=self.clock(), peer=peer, vetted=vetted)

        try:
            # DNS and the store block (SQLite busy wait, network): keep them off the SMTP event loop.
            stored = await loop.run_in_executor(None, vet_and_store, raw)
        except Exception:
            log.exception("could not store a message from %r", mail_from)
            return "451 4.3.0 Temporary failure storing the message; try again later"
        if stored.new:
            log.info("stored message #%d from %r", stored.inbound_id, mail_from)
            self.on_stored()
            return f"250 2.0.0 OK stored as #{stored.inbound_id}"
        log.info("message from %r already stored as #%d", mail_from, stored.inbound_id)
        return f"250 2.0.0 OK already stored as #{stored.inbound_id}"


def _peer_host(session: SmtpSession) -> str | None:
    """The connecting client's IP address (the password throttle tells guessers apart by it)."""
    peer = session.peer
    if isinstance(peer, (tuple, list)) and peer:
        return str(peer[0])[:64]
    return str(peer)[:64] if isinstance(peer, str) and peer else None


def check_port_free(host: str, port: int) -> None:
    """Raise OSError now if ``host:port`` cannot be bound (aiosmtpd would only time out)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


def make_controller(handler: IntakeHandler, settings: SmtpSettings, server_hostname: str) -> Controller:
    """The listener; ``server_hostname`` is given so aiosmtpd never waits on DNS."""
    kwargs: dict[str, Any] = dict(
        hostname=settings.host,
        port=settings.port,
        server_hostname=server_hostname,
        data_size_limit=settings.max_message_bytes,
        enable_SMTPUTF8=True,
        decode_data=False,
        ready_timeout=10.0,
    )
    return Controller(handler, **kwargs)
