"""The unsubscribe listener is a door strangers reach: each limit tested by sending the
attack over real TCP (body too large, no length, a long path, a slow client, too many at
once, too many from one address), and nothing is stored for any of them."""

from __future__ import annotations

import socket
import time

import pytest
from sqlalchemy import func, select

from judge.config import JudgeSettings, UnsubscribeSettings
from judge.edge.unsubscribe_in import MAX_AT_ONCE, MAX_BODY, ClientLimit, UnsubscribeListener
from judge.store.models_mail import InboundMessage

TOKEN = "u1-abcdefghijklmnop"


@pytest.fixture
def listener(store):
    door = UnsubscribeListener(store, UnsubscribeSettings(base_url="https://x.org/u", port=0, requests_per_minute=1000),
                               JudgeSettings(address="judge@example.org"), timeout_seconds=0.5)
    door.start()
    yield door
    door.stop()
    with store.unit_of_work() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 0


def exchange(door: UnsubscribeListener, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", door.port), timeout=5) as client:
        client.sendall(request)
        answer = b""
        while chunk := client.recv(4096):
            answer += chunk
    return answer


def test_a_body_too_large_is_refused_unread(listener):
    answer = exchange(listener, f"POST /u/{TOKEN} HTTP/1.1\r\nHost: x\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 413")


def test_a_post_without_length_is_refused(listener):
    assert exchange(listener, f"POST /u/{TOKEN} HTTP/1.1\r\nHost: x\r\n\r\n".encode()).startswith(b"HTTP/1.1 411")


def test_a_long_path_and_an_unknown_token(listener):
    long_path = "/u/" + "a" * 300
    assert exchange(listener, f"GET {long_path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()).startswith(b"HTTP/1.1 414")
    body = b"List-Unsubscribe=One-Click"
    request = f"POST /u/{TOKEN} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
    assert exchange(listener, request).startswith(b"HTTP/1.1 404")  # no key, no game: no such link


def test_a_wrong_body_is_refused(listener):
    body = b"unsubscribe=please"
    request = f"POST /u/{TOKEN} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
    assert exchange(listener, request).startswith(b"HTTP/1.1 400")


def test_a_slow_client_is_cut_off(listener):
    with socket.create_connection(("127.0.0.1", listener.port), timeout=5) as client:
        client.sendall(b"POST /u/")  # and then nothing
        started = time.monotonic()
        assert client.recv(4096) == b""  # closed by the judge
        assert time.monotonic() - started < 3


def test_too_many_at_once_get_503(listener):
    idle = [socket.create_connection(("127.0.0.1", listener.port), timeout=5) for _ in range(MAX_AT_ONCE)]
    try:
        time.sleep(0.2)
        answer = exchange(listener, f"GET /u/{TOKEN} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 503")
    finally:
        for client in idle:
            client.close()
    time.sleep(0.8)  # the idle ones timed out: the door opens again
    assert exchange(listener, f"GET /u/{TOKEN} HTTP/1.1\r\nHost: x\r\n\r\n".encode()).startswith(b"HTTP/1.1 200")


def test_too_many_from_one_address_get_429(store):
    door = UnsubscribeListener(store, UnsubscribeSettings(base_url="https://x.org/u", port=0, requests_per_minute=3),
                               JudgeSettings(address="judge@example.org"))
    door.start()
    try:
        codes = [exchange(door, f"GET /u/{TOKEN} HTTP/1.1\r\nHost: x\r\n\r\n".encode())[9:12] for _ in range(4)]
    finally:
        door.stop()
    assert codes == [b"200", b"200", b"200", b"429"]


def test_the_client_limit_forgets_after_a_minute():
    now = [0.0]
    limit = ClientLimit(2, clock=lambda: now[0])
    assert [limit.allow("a"), limit.allow("a"), limit.allow("a"), limit.allow("b")] == [True, True, False, True]
    now[0] = 60.5
    assert limit.allow("a")


def test_behind_a_local_proxy_each_forwarded_client_has_its_own_limit(store):
    door = UnsubscribeListener(store, UnsubscribeSettings(base_url="https://x.org/u", port=0, requests_per_minute=1),
                               JudgeSettings(address="judge@example.org"))
    door.start()
    try:
        def get(client: str) -> bytes:
            return exchange(door, f"GET /u/{TOKEN} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 1.2.3.4, {client}\r\n\r\n"
                            .encode())[9:12]
        assert [get("198.51.100.1"), get("198.51.100.2"), get("198.51.100.1")] == [b"200", b"200", b"429"]
    finally:
        door.stop()
