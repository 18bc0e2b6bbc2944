"""``judge serve``'s web door: the archive's files over HTTP/1.1, read only.

A stranger reaches this door, so it has bounds (``[web]`` settings): connections in all
and per client address (one over is answered 503 and closed), a request's line and
headers at most 8 KiB and arriving whole within ``request_seconds`` (a slow sender is
cut off), ``idle_seconds`` for a kept-alive connection, ``requests_per_minute`` per
address (then 429).  Only GET and HEAD; a request with a body is refused.  A path is
mapped inside the root only: no ``..``, no hidden files (the writers' lock and state,
partial files), no symbolic link leading out.  Every answer carries the security headers
(a strict Content-Security-Policy, nosniff, no framing, no referrer).  Files are kept in
memory by (mtime, size), so a page asked for again costs no disk read.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
from collections import OrderedDict, defaultdict, deque
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path
from urllib.parse import unquote

from judge.config import WebSettings
from judge.web.pages import PAGE_POLICY

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 8192
MAX_REQUESTS_PER_CONNECTION = 100
CACHE_BYTES = 64 * 1024 * 1024
CACHED_FILE_BYTES = 4 * 1024 * 1024

TYPES = {
    ".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml", ".atom": "application/atom+xml",
    ".mbox": "application/mbox", ".png": "image/png", ".json": "application/json",
    ".asc": "application/pgp-keys",
}
#: A picture is named by its phase record's digest, so it never changes under its name.
_IMMUTABLE = (".svg", ".png")
SECURITY_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Permissions-Policy", "camera=(), microphone=(), geolocation=(), interest-cohort=()"),
)
PAGE_CSP = PAGE_POLICY + "; frame-ancestors 'none'"
#: A picture opened on its own: its own styles, nothing else.
PICTURE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
_REASONS = {200: "OK", 304: "Not Modified", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            429: "Too Many Requests", 431: "Request Header Fields Too Large", 503: "Service Unavailable",
            505: "HTTP Version Not Supported"}


@dataclass(frozen=True)
class CachedFile:
    mtime_ns: int
    size: int
    data: bytes
    etag: str


class FileCache:
    """The files last served, by path, up to ``CACHE_BYTES`` (least recently used out)."""

    def __init__(self) -> None:
        self._files: OrderedDict[Path, CachedFile] = OrderedDict()
        self._bytes = 0

    def get(self, path: Path) -> CachedFile | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        known = self._files.get(path)
        if known is not None and known.mtime_ns == stat.st_mtime_ns and known.size == stat.st_size:
            self._files.move_to_end(path)
            return known
        try:
            data = path.read_bytes()
        except OSError:
            return None
        found = CachedFile(stat.st_mtime_ns, len(data), data, '"' + hashlib.sha256(data).hexdigest()[:24] + '"')
        if known is not None:
            self._bytes -= known.size
            del self._files[path]
        if len(data) <= CACHED_FILE_BYTES:
            self._files[path] = found
            self._bytes += len(data)
            while self._bytes > CACHE_BYTES:
                _, dropped = self._files.popitem(last=False)
                self._bytes -= dropped.size
        return found


def resolve(root: Path, target: str) -> Path | None:
    """The file under ``root`` that the request target names, or None (not found, hidden,
    or outside the root)."""
    path = unquote(target.split("?", 1)[0].split("#", 1)[0])
    if not path.startswith("/") or "\\" in path or "\x00" in path:
        return None
    segments = [segment for segment in path.split("/") if segment]
    if any(segment.startswith(".") for segment in segments):
        return None  # "..", ".", and the archive's own hidden files
    candidate = root.joinpath(*segments) if segments else root
    if path.endswith("/") or not segments:
        candidate = candidate / "index.html"
    try:
        real = candidate.resolve(strict=True)
        if real.is_dir():
            real = (real / "index.html").resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not real.is_relative_to(root.resolve()) or not real.is_file():
        return None
    return real


class RateLimiter:
    """At most ``per_minute`` requests from one address in any 60 seconds."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._seen: dict[str, deque[float]] = defaultdict(deque)

    def allow(self, address: str, now: float) -> bool:
        times = self._seen[address]
        while times and times[0] <= now - 60:
            times.popleft()
        if len(times) >= self.per_minute:
            return False
        times.append(now)
        if len(self._seen) > 10_000:  # forget the quiet addresses
            for quiet in [a for a, t in self._seen.items() if not t or t[-1] <= now - 60]:
                del self._seen[quiet]
        return True


class ArchiveServer:
    """The HTTP server of the archive under ``root``, on its own thread and event loop."""

    def __init__(self, root: Path, settings: WebSettings) -> None:
        self.root = root
        self.settings = settings
        self.cache = FileCache()
        self.rate = RateLimiter(settings.requests_per_minute)
        self.port = 0
        self._open: dict[str, int] = defaultdict(int)
        self._writers: set[asyncio.StreamWriter] = set()
        self._total = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self) -> None:
        """Listen on ``[web] host:port``; returns once listening (raises when it cannot)."""
        self.root.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._run, name="web", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise self._error
        log.info("web archive %s served on http://%s:%d/", self.root, self.settings.host, self.port)

    def stop(self) -> None:
        loop = self._loop
        if loop is not None and self._server is not None and not loop.is_closed():
            try:
                asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=10)
                loop.call_soon_threadsafe(loop.stop)
            except (RuntimeError, TimeoutError):  # the loop ended already
                pass
        if self._thread is not None:
            self._thread.join(timeout=10)

    async def _shutdown(self) -> None:
        """Stop listening and end the open connections."""
        assert self._server is not None
        self._server.close()
        for writer in list(self._writers):
            writer.close()  # its handler reads the end of the stream and returns
        current = asyncio.current_task()
        others = [task for task in asyncio.all_tasks() if task is not current]
        if others:
            await asyncio.wait(others, timeout=5)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._server = loop.run_until_complete(asyncio.start_server(
                self._connection, self.settings.host, self.settings.port, limit=MAX_HEAD_BYTES))
            self.port = self._server.sockets[0].getsockname()[1]
        except BaseException as exc:  # a busy port: told to start()
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if peer else "?"
        if self._total >= self.settings.max_connections or \
                self._open[address] >= self.settings.connections_per_address:
            await self._refuse(writer, 503, "too many connections; try again shortly")
            return
        self._total += 1
        self._open[address] += 1
        self._writers.add(writer)
        try:
            await self._serve(reader, writer, address)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except Exception:
            log.exception("web: a connection from %s failed", address)
        finally:
            self._writers.discard(writer)
            self._total -= 1
            self._open[address] -= 1
            if not self._open[address]:
                del self._open[address]
            writer.close()
            try:
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    async def _refuse(self, writer: asyncio.StreamWriter, status: int, text: str,
                      extra: tuple[tuple[str, str], ...] = ()) -> None:
        try:
            writer.write(self._head(status, "text/plain; charset=utf-8", len(text) + 1, False, extra)
                         + text.encode() + b"\n")
            await asyncio.wait_for(writer.drain(), self.settings.request_seconds)
        except (ConnectionError, asyncio.TimeoutError, OSError):
            pass
        writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, address: str) -> None:
        for number in range(MAX_REQUESTS_PER_CONNECTION):
            try:
                if number:  # a kept-alive connection: the next request must begin within idle_seconds
                    first = await asyncio.wait_for(reader.read(1), self.settings.idle_seconds)
                    if not first:
                        return
                else:
                    first = b""
                rest = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.settings.request_seconds)
            except asyncio.TimeoutError:
                return
            except asyncio.LimitOverrunError:
                await self._refuse(writer, 431, "the request line and headers may be at most 8 KiB")
                return
            except asyncio.IncompleteReadError:
                return
            head = (first + rest).decode("latin-1")
            keep = await self._answer(head, writer, address)
            if not keep:
                return

    async def _answer(self, head: str, writer: asyncio.StreamWriter, address: str) -> bool:
        lines = head.split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            await self._refuse(writer, 400, "not an HTTP/1.x request line")
            return False
        method, target, version = parts
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if not line:
                continue
            name, sep, value = line.partition(":")
            if not sep or not name or name != name.strip():
                await self._refuse(writer, 400, "a header line without a name and a colon")
                return False
            headers[name.lower()] = value.strip()
        if not self.rate.allow(address, time.monotonic()):
            await self._refuse(writer, 429, "too many requests from your address; wait a minute",
                               (("Retry-After", "60"),))
            return False
        if method not in ("GET", "HEAD"):
            await self._refuse(writer, 405, "this archive is read only: GET or HEAD", (("Allow", "GET, HEAD"),))
            return False
        if "content-length" in headers and headers["content-length"] != "0" or "transfer-encoding" in headers:
            await self._refuse(writer, 400, "a GET or HEAD request has no body")
            return False
        connection = headers.get("connection", "").lower()
        keep = connection != "close" if version == "HTTP/1.1" else connection == "keep-alive"
        path = resolve(self.root, target)
        found = self.cache.get(path) if path is not None else None
        if path is None or found is None:
            body = b"not found\n"
            writer.write(self._head(404, "text/plain; charset=utf-8", len(body), keep))
            if method == "GET":
                writer.write(body)
            await writer.drain()
            return keep
        suffix = path.suffix.lower()
        extra = (("ETag", found.etag), ("Cache-Control", _cache_control(path, self.root)))
        if headers.get("if-none-match") == found.etag:
            writer.write(self._head(304, None, None, keep, extra, suffix))
        else:
            writer.write(self._head(200, TYPES.get(suffix, "application/octet-stream"), found.size, keep, extra,
                                    suffix))
            if method == "GET":
                writer.write(found.data)
        await asyncio.wait_for(writer.drain(), self.settings.request_seconds * 6)
        return keep

    @staticmethod
    def _head(status: int, content_type: str | None, length: int | None, keep: bool,
              extra: tuple[tuple[str, str], ...] = (), suffix: str = ".txt") -> bytes:
        rows = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", f"Date: {formatdate(usegmt=True)}",
                "Server: judge", f"Connection: {'keep-alive' if keep else 'close'}",
                f"Content-Security-Policy: {PICTURE_CSP if suffix == '.svg' else PAGE_CSP}"]
        rows += [f"{name}: {value}" for name, value in SECURITY_HEADERS + extra]
        if content_type is not None:
            rows.append(f"Content-Type: {content_type}")
        if length is not None:
            rows.append(f"Content-Length: {length}")
        return ("\r\n".join(rows) + "\r\n\r\n").encode("latin-1")


def _cache_control(path: Path, root: Path) -> str:
    if path.suffix.lower() in _IMMUTABLE:
        return "public, max-age=31536000, immutable"
    return "no-cache"  # pages change after each phase: asked again, answered 304 when unchanged
