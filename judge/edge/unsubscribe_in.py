"""The one-click unsubscribe listener (RFC 8058): ``POST /<token>`` with the body
``List-Unsubscribe=One-Click``.

A valid token's click is stored as a mail from the member to the judge, ``Subject:
UNSUBSCRIBE <token>``, and answered 200 once it is on disk; the worker then does what
the command does (judge/commands/unsubscribe.py: an observer leaves, a player is told
by mail how to resign).  Its Message-ID names the token and the day, so clicks repeated
the same day are one mail.  ``GET`` never acts (link scanners follow links): it shows a
page whose button posts.  Meant to sit behind a reverse proxy that ends TLS
(``[unsubscribe] base_url`` is the public address).

A door strangers reach, so: requests of at most 1 KB of body and 200 characters of
path, 10 s to send one (a slow client is cut off), at most 16 at a time (503 beyond),
``requests_per_minute`` per client address (429 beyond), and an unknown token is 404
without touching the store.
"""

from __future__ import annotations

import html
import logging
import threading
import time
from collections import deque
from datetime import datetime
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from sqlalchemy.orm import Session

from judge.config import JudgeSettings, UnsubscribeSettings
from judge.mailio.inbound import Clock, utc_now
from judge.mailauth.keystore import token_key_in
from judge.mailauth.tokens import read_token
from judge.mailauth.unsubscribe import ONE_CLICK
from judge.store.engine import Store
from judge.store.inbound import store_inbound
from judge.store.models_game import Game
from judge.store.queries import game_members

log = logging.getLogger("judge.unsubscribe_in")

MAX_BODY = 1024
MAX_PATH = 200
MAX_AT_ONCE = 16
WINDOW_SECONDS = 60.0


class ClientLimit:
    """At most ``per_minute`` requests per client address in any 60 s (thread-safe)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, client: str) -> bool:
        now = self.clock()
        with self._lock:
            if len(self._seen) > 10_000:  # forget quiet clients, so many addresses cost bounded memory
                self._seen = {c: q for c, q in self._seen.items() if q and q[-1] > now - WINDOW_SECONDS}
            times = self._seen.setdefault(client, deque())
            while times and times[0] <= now - WINDOW_SECONDS:
                times.popleft()
            if len(times) >= self.per_minute:
                return False
            times.append(now)
            return True


def member_address(store: Store, token_text: str) -> str | None:
    """The address whose unsubscribe token ``token_text`` is, or None (read only)."""
    token = read_token(token_text, "u")
    if token is None:
        return None
    with Session(store.engine) as session:  # read only: nothing to commit
        key = token_key_in(session)
        game = session.get(Game, token.number) if key is not None else None
        if key is None or game is None:
            return None
        return next((m.address for m in game_members(session, game) if token.names(key, m.address)), None)


def click_mail(address: str, token: str, judge: JudgeSettings, now: datetime) -> bytes:
    """The mail a click stands for: the UNSUBSCRIBE command from the member."""
    day = now.strftime("%Y%m%d")
    return (f"From: <{address}>\nTo: <{judge.address}>\nSubject: UNSUBSCRIBE {token}\n"
            f"Date: {format_datetime(now)}\nMessage-ID: <unsubscribe.{token}.{day}@{judge.domain}>\n"
            f"X-Judge-Source: one-click unsubscribe (RFC 8058)\n\n").encode("utf-8")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], listener: "UnsubscribeListener") -> None:
        self.listener = listener
        self.slots = threading.BoundedSemaphore(MAX_AT_ONCE)
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            try:
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 0\r\n"
                                b"Connection: close\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "dipjudge"
    sys_version = ""

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.listener.timeout_seconds)  # a slow client is cut off

    def log_message(self, format: str, *args: Any) -> None:  # the judge's log, not stderr
        log.info("%s %s", self.client_address[0], format % args)

    def _answer(self, code: int, text: str, *, headers: tuple[tuple[str, str], ...] = (),
                content_type: str = "text/plain; charset=utf-8") -> None:
        body = text.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def _client(self) -> str:
        """The client's address; behind a reverse proxy on this machine, the one it names
        last in X-Forwarded-For (a stranger cannot forge what the proxy appends)."""
        peer = str(self.client_address[0])
        forwarded = self.headers.get("X-Forwarded-For", "")
        if forwarded and peer in ("127.0.0.1", "::1"):
            return forwarded.split(",")[-1].strip()[:64] or peer
        return peer

    def _token(self) -> str | None:
        """The token the path names, after the client passed its limit; None once answered."""
        listener = self.server.listener
        if not listener.limit.allow(self._client()):
            self._answer(429, "too many requests from your address; try again in a minute",
                         headers=(("Retry-After", "60"),))
            return None
        if len(self.path) > MAX_PATH:
            self._answer(414, "the address is too long for an unsubscribe link")
            return None
        token = self.path.strip("/").split("/")[-1]
        if read_token(token, "u") is None:
            self._answer(404, "no such unsubscribe link")
            return None
        return token

    def do_GET(self) -> None:
        token = self._token()
        if token is None:
            return
        page = (f"<!doctype html><title>Unsubscribe</title><form method=post action=\"{html.escape(token)}\">"
                f"<input type=hidden name=List-Unsubscribe value=One-Click>"
                f"<p>Stop the mail of this Diplomacy game? <button>Unsubscribe</button></p></form>")
        self._answer(200, page, content_type="text/html; charset=utf-8")

    def do_POST(self) -> None:
        length = self.headers.get("Content-Length")
        if length is None or not length.strip().isdigit():
            self._answer(411, f"a one-click unsubscribe POST has a Content-Length and the body {ONE_CLICK}")
            return
        if int(length) > MAX_BODY:
            self._answer(413, f"at most {MAX_BODY} bytes: the body of a one-click unsubscribe is {ONE_CLICK}")
            return
        token = self._token()
        if token is None:
            return
        body = self.rfile.read(int(length)).decode("ascii", "replace")
        if ONE_CLICK not in body.replace("+", " ").replace("%3D", "="):
            self._answer(400, f"the body of a one-click unsubscribe is {ONE_CLICK}")
            return
        listener = self.server.listener
        try:
            address = member_address(listener.store, token)
            if address is None:
                self._answer(404, "no such unsubscribe link")
                return
            now = listener.clock()
            stored = store_inbound(listener.store, click_mail(address, token, listener.judge, now),
                                   mail_from=address, rcpt_to=[listener.judge.address], source="web", now=now)
        except Exception:
            log.exception("unsubscribe: cannot store the click")
            self._answer(503, "the judge cannot take this now; try again later", headers=(("Retry-After", "60"),))
            return
        if stored.new:
            listener.on_stored()
        self._answer(200, "Received: the judge answers by mail.  An observer stops receiving the game's mail; "
                          "a player is told how to resign.")


class UnsubscribeListener:
    """The HTTP listener on ``settings.host``:``settings.port``; ``start()`` returns once
    it listens (``port`` is then the real port, also for 0)."""

    def __init__(self, store: Store, settings: UnsubscribeSettings, judge: JudgeSettings, *,
                 on_stored: Callable[[], None] = lambda: None, clock: Clock = utc_now,
                 timeout_seconds: float = 10.0) -> None:
        self.store = store
        self.judge = judge
        self.on_stored = on_stored
        self.clock = clock
        self.timeout_seconds = timeout_seconds
        self.limit = ClientLimit(settings.requests_per_minute)
        self.address = (settings.host, settings.port)
        self.port = settings.port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._server = _Server(self.address, self)
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, name="unsubscribe", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._server is None or self._thread is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

