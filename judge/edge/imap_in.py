"""IMAP intake: poll a mailbox, store each mail, and only then mark it seen (or move it).

Fetching uses ``BODY.PEEK[]`` so the server does not set \\Seen by itself.  A crash
after storing but before flagging makes the next poll fetch the mail again; the store
recognises it (Message-ID or digest) and the poller just flags it.

Only the first ``max_bytes`` of a mail are fetched (``BODY.PEEK[]<0.max_bytes>``, the SMTP
intake's ``max_message_bytes``): IMAP has no size limit of its own, and a mail of any size
in the mailbox must not cost the judge more memory than one SMTP would let in.  The
worker reads the start of such a mail and says the rest was not read.
"""

from __future__ import annotations

import logging
import ssl
import threading
from typing import Callable

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

from judge.config import ImapSettings
from judge.store.engine import Store
from judge.mailauth.intake import Vetted, Vetting
from judge.store.inbound import store_inbound
from judge.mailio.inbound import Clock, utc_now

log = logging.getLogger("judge.imap_in")

FETCH_BATCH = 50
SEEN = b"\\Seen"


class ImapPoller:
    def __init__(self, settings: ImapSettings, store: Store, *,
                 on_stored: Callable[[], None] = lambda: None, clock: Clock = utc_now,
                 timeout: float = 30.0, max_bytes: int = 10 * 1024 * 1024,
                 vetting: Vetting | None = None) -> None:
        self.settings = settings
        self.vetting = vetting  # the receiving server's Authentication-Results (judge.mailauth.intake)
        self.max_bytes = max_bytes
        self.store = store
        self.on_stored = on_stored
        self.clock = clock
        self.timeout = timeout

    def connect(self) -> IMAPClient:
        s = self.settings
        # Implicit TLS verifies the server's certificate and host name, against ca_file when set.
        context = ssl.create_default_context(cafile=s.ca_file or None) if s.ssl else None
        client = IMAPClient(s.host, port=s.port, ssl=s.ssl, ssl_context=context, timeout=self.timeout)
        client.login(s.username, s.password)
        client.select_folder(s.folder)
        if s.move_to and not client.folder_exists(s.move_to):
            client.create_folder(s.move_to)
        return client

    def poll_once(self, client: IMAPClient | None = None) -> int:
        """Store every unseen mail in the folder; the number of new ones."""
        own = client is None
        client = client or self.connect()
        try:
            return self._drain(client)
        finally:
            if own:
                _logout(client)

    def _drain(self, client: IMAPClient) -> int:
        # With move_to, whatever is still in the folder is unhandled, seen or not.
        criteria = ["ALL"] if self.settings.move_to else ["UNSEEN"]
        uids = client.search(criteria)
        new = 0
        for start in range(0, len(uids), FETCH_BATCH):
            batch = uids[start:start + FETCH_BATCH]
            fetched = client.fetch(batch, [f"BODY.PEEK[]<0.{self.max_bytes}>"])
            done = []
            for uid in batch:
                data = fetched.get(uid) or {}
                body = data.get(b"BODY[]<0>", data.get(b"BODY[]"))  # as servers name a partial fetch
                if body is None:
                    continue
                raw = bytes(body)
                vetted = self.vetting.over_imap(raw) if self.vetting is not None else Vetted()
                stored = store_inbound(self.store, raw, mail_from=None, rcpt_to=[], source="imap",
                                       now=self.clock(), vetted=vetted)
                new += stored.new
                done.append(uid)
            if done:
                if new:
                    self.on_stored()
                self._mark_done(client, done)
        return new

    def _mark_done(self, client: IMAPClient, uids: list[int]) -> None:
        if self.settings.move_to:
            if client.has_capability("MOVE"):
                client.move(uids, self.settings.move_to)
            else:
                client.copy(uids, self.settings.move_to)
                client.add_flags(uids, [SEEN, b"\\Deleted"])
                client.expunge(uids) if client.has_capability("UIDPLUS") else client.expunge()
        else:
            client.add_flags(uids, [SEEN])

    def run(self, stop: threading.Event) -> None:
        """Poll until ``stop``; with ``idle`` wait in IMAP IDLE between polls."""
        s = self.settings
        client: IMAPClient | None = None
        while not stop.is_set():
            try:
                if client is None:
                    client = self.connect()
                    log.info("IMAP: watching %s on %s:%d", s.folder, s.host, s.port)
                self._drain(client)
                if s.idle and client.has_capability("IDLE"):
                    self._idle_wait(client, stop)
                else:
                    client.noop()
                    stop.wait(s.poll_seconds)
            except (IMAPClientError, OSError) as exc:
                log.warning("IMAP server %s:%d (user %r, folder %s): %s; reconnecting in %.0f s",
                            s.host, s.port, s.username, s.folder, exc or type(exc).__name__,
                            min(s.poll_seconds, 30.0))
                if client is not None:
                    _logout(client)
                client = None
                stop.wait(min(s.poll_seconds, 30.0))
        if client is not None:
            _logout(client)

    def _idle_wait(self, client: IMAPClient, stop: threading.Event) -> None:
        """IDLE until the server reports news, ``stop`` is set or poll_seconds pass."""
        client.idle()
        try:
            waited = 0.0
            while not stop.is_set() and waited < self.settings.poll_seconds:
                if client.idle_check(timeout=1):
                    break
                waited += 1.0
        finally:
            client.idle_done()


def _logout(client: IMAPClient) -> None:
    try:
        client.logout()
    except Exception:  # the connection may already be gone; nothing to clean up then
        pass
