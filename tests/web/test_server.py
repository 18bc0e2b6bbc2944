"""The web door under attack, over real TCP: escaping paths, hidden files, other methods,
oversized and slow requests, too many connections, too many requests; and what a good
request gets (security headers, 304, fresh content after a rewrite)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Iterator

import pytest

from judge.config import WebSettings
from judge.web.files import ArchiveFiles
from judge.web.server import ArchiveServer

LIMITS = WebSettings(port=0, connections_per_address=3, request_seconds=0.5, idle_seconds=0.5,
                     requests_per_minute=40)


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[tuple[ArchiveServer, Path]]:
    root = tmp_path / "web"
    files = ArchiveFiles(root)
    files.write("index.html", "<!DOCTYPE html><title>Games</title>")
    files.write("games/g1/index.html", "<!DOCTYPE html><title>g1</title>")
    files.write("games/g1/img/S1901M-abc.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>")
    files.write(".built.json", "{}")
    (tmp_path / "secret.txt").write_text("the store's password")
    os.symlink(tmp_path / "secret.txt", root / "games" / "link.html")
    server = ArchiveServer(root, LIMITS)
    server.start()
    try:
        yield server, root
    finally:
        server.stop()


def _connect(server: ArchiveServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def _exchange(server: ArchiveServer, request: bytes) -> bytes:
    with _connect(server) as sock:
        sock.sendall(request)
        return _read_all(sock)


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _get(server: ArchiveServer, path: str, *headers: str) -> tuple[int, dict[str, str], bytes]:
    extra = "".join(f"{h}\r\n" for h in headers)
    answer = _exchange(server, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{extra}\r\n".encode())
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), fields, body


def test_pages_come_with_the_security_headers(archive) -> None:
    server, _ = archive
    status, headers, body = _get(server, "/")
    assert status == 200 and body == b"<!DOCTYPE html><title>Games</title>"
    assert headers["content-type"] == "text/html; charset=utf-8"
    policy = headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY" and headers["referrer-policy"] == "no-referrer"
    status, headers, _ = _get(server, "/games/g1/img/S1901M-abc.svg")
    assert status == 200 and headers["content-type"] == "image/svg+xml"
    assert "immutable" in headers["cache-control"] and "script-src" not in headers["content-security-policy"]
    status, headers, _ = _get(server, "/nowhere.html")
    assert status == 404 and headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("path", ["/../secret.txt", "/%2e%2e/secret.txt", "/games/../../secret.txt",
                                  "/games/%2E%2E/%2E%2E/secret.txt", "/.built.json", "/.lock",
                                  "/games/link.html", "/..%5csecret.txt", "/games/g1/index.html%00.svg",
                                  "http://example.org/secret.txt", "*"])
def test_no_path_leaves_the_root_or_shows_a_hidden_file(archive, path: str) -> None:
    server, _ = archive
    answer = _exchange(server, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 404 "), answer[:80]
    assert b"password" not in answer and b"{}" not in answer.partition(b"\r\n\r\n")[2]


def test_only_get_and_head(archive) -> None:
    server, _ = archive
    answer = _exchange(server, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
    assert answer.startswith(b"HTTP/1.1 405 ") and b"Allow: GET, HEAD" in answer
    answer = _exchange(server, b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"\r\n\r\n")  # headers, no body
    answer = _exchange(server, b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert _exchange(server, b"NONSENSE\r\n\r\n").startswith(b"HTTP/1.1 400 ")


def test_an_oversized_request_is_refused(archive) -> None:
    server, _ = archive
    answer = _exchange(server, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_a_slow_request_is_cut_off(archive) -> None:
    server, _ = archive
    with _connect(server) as sock:
        started = time.monotonic()
        sock.sendall(b"GET / HTTP/1.1\r\n")
        for _ in range(20):  # one header byte every 0.1 s: never done within request_seconds
            try:
                sock.sendall(b"X")
            except OSError:
                break
            time.sleep(0.1)
        assert _read_all(sock) == b""
        assert time.monotonic() - started < 3


def test_an_idle_kept_alive_connection_is_closed(archive) -> None:
    server, _ = archive
    with _connect(server) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        started = time.monotonic()
        answer = _read_all(sock)  # the answer, then the close after idle_seconds
        assert answer.startswith(b"HTTP/1.1 200 ") and b"Connection: keep-alive" in answer
        assert 0.4 < time.monotonic() - started < 3


def test_too_many_connections_from_one_address(archive) -> None:
    server, _ = archive
    held = [_connect(server) for _ in range(LIMITS.connections_per_address)]
    try:
        time.sleep(0.1)  # accepted by the server
        answer = _exchange(server, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 503 ")
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.1)
    assert _get(server, "/")[0] == 200  # the slots come back


def test_too_many_requests_from_one_address(archive) -> None:
    server, _ = archive
    statuses = [_get(server, "/")[0] for _ in range(LIMITS.requests_per_minute + 2)]
    assert statuses[:LIMITS.requests_per_minute] == [200] * LIMITS.requests_per_minute
    assert statuses[-1] == 429


def test_unchanged_pages_answer_304_and_rewritten_ones_the_new_text(archive) -> None:
    server, root = archive
    _, headers, _ = _get(server, "/games/g1/index.html")
    status, _, body = _get(server, "/games/g1/index.html", f"If-None-Match: {headers['etag']}")
    assert status == 304 and body == b""
    time.sleep(0.01)
    ArchiveFiles(root).write("games/g1/index.html", "<!DOCTYPE html><title>g1 after S1901M</title>")
    status, _, body = _get(server, "/games/g1/", f"If-None-Match: {headers['etag']}")
    assert status == 200 and b"after S1901M" in body
