"""The doors of one DAIDE listener, attacked over real TCP (``GameServer`` with a
``LocalGame``): the connection caps, the first frame judged from its header, the
connections closed for not naming themselves or for silence, IAM guessing, and ``close``
ending every connection with OFF.  The same attacks against ``judge serve`` are in
tests/judge/daide_edge/test_attacks.py."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Callable

from daide.admission import Admission, Caps, total_for_limit
from daide.client import ConnectionClosed, DaideClient
from daide.framing import ErrorCode, Kind
from daide.guesses import GuessPolicy, Guesses
from daide.local import LocalGame
from daide.messages import Message
from daide.server import GameServer
from tests.daide.test_server_input import VARIANT, _closed, _frame, _raw, _run, _seated

STRANGER = "127.0.0.2"  # another loopback address: a client that is not the bot


async def _im_only(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await _raw(port)
    writer.write(bytes.fromhex("000000040001da10"))
    assert (await _frame(reader))[0] == Kind.RM
    return reader, writer


async def _eventually(condition: Callable[[], object], timeout: float = 5.0) -> None:
    """Let the server's tasks run until ``condition`` holds (AssertionError after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the server did not get there in time"
        await asyncio.sleep(0.02)


async def _until_closed(client: DaideClient) -> list[Message]:
    """Every message the client hears until the server ends the connection."""
    heard: list[Message] = []
    try:
        while True:
            heard.append(await client.receive(3))
    except ConnectionClosed:
        return heard


async def _iam(client: DaideClient, passcode: int) -> tuple[str, str]:
    """IAM (AUS) (passcode): the answer's first word and the reason an ADM gave ("" none)."""
    await client.send(f"IAM (AUS) ({passcode})")
    verdict = str((await client.receive(2))[0])
    try:
        reason = await client.receive(0.3) if verdict == "REJ" else ()
    except asyncio.TimeoutError:
        reason = ()
    return verdict, str(reason)


def test_garbage_is_refused_from_its_four_byte_header_not_held_for_the_im_timer() -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        reader, writer = await _raw(port)
        started = time.monotonic()
        writer.write(b"GET / HTTP/1.1\r\n")  # its "length" promises 8,239 bytes that never come
        assert await _frame(reader) == (Kind.EM, ErrorCode.IM_NOT_FIRST.to_bytes(2, "big"))
        assert await _closed(reader)
        assert time.monotonic() - started < 1.0
        writer.close()
    _run(scenario)


def test_an_im_header_with_a_long_body_is_refused_before_the_body() -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        reader, writer = await _raw(port)
        writer.write(bytes.fromhex("0000ffff"))
        assert await _frame(reader) == (Kind.EM, ErrorCode.UNKNOWN_MESSAGE.to_bytes(2, "big"))
        assert await _closed(reader)
        writer.close()
    _run(scenario)


def test_connections_over_a_cap_are_closed_at_once_and_the_admitted_go_on() -> None:
    caps = Caps(total=6, per_game=4, per_address=3)

    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        admitted = [await _im_only(port) for _ in range(3)]
        over = await _raw(port)  # a fourth from this address: closed before anything is read
        assert await _closed(over[0])
        stranger = [await asyncio.open_connection("127.0.0.1", port, local_addr=(STRANGER, 0)) for _ in range(2)]
        assert await _closed(stranger[1][0])  # the game's cap of 4
        assert server.refused == 2 and server.admission.open == 4
        try:  # still full (the game's cap): not even the RM comes
            await DaideClient.connect("127.0.0.1", port, local_address="127.0.0.3")
            raise AssertionError("a connection over the game's cap was served")
        except ConnectionClosed:
            pass
        admitted[0][1].close()
        await _eventually(lambda: server.admission.open == 3)
        client = await _seated(port)  # a place again once one left
        await client.close()
        for _, writer in admitted[1:] + stranger[:1]:
            writer.close()
        over[1].close()
    _run(scenario, admission=Admission(caps))


def test_the_total_keeps_a_reserve_below_the_open_file_limit() -> None:
    assert total_for_limit(512, 256, limit=1024) == 512
    assert total_for_limit(512, 256, limit=600) == 344
    assert total_for_limit(512, 256, limit=200) == 0


def test_an_unnamed_connection_is_told_off_and_closed_and_an_idle_observer_too() -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        started = time.monotonic()
        reader, writer = await _im_only(port)
        watcher = await DaideClient.connect("127.0.0.1", port)
        await watcher.send("OBS")
        assert (await watcher.receive(2))[0] == "YES"
        seated = await _seated(port, starts=False)
        kind, body = await _frame(reader)
        assert kind == Kind.DM and await _closed(reader)  # the OFF, then the end
        assert 0.5 <= time.monotonic() - started < 3.0  # name_seconds after it opened
        assert server.admission.open == 2
        heard = await _until_closed(watcher)
        assert heard[0][0] == "MAP" and heard[-1] == ("OFF",)  # silent past idle_seconds
        await _eventually(lambda: len(server.connections) == 1)
        assert [c.seat is not None for c in server.connections] == [True]  # the seated bot stays, silent or not
        await seated.close()
        writer.close()
    _run(scenario, name_seconds=0.5, idle_seconds=1.0)


def test_wrong_iams_wait_doubling_and_a_live_seat_refuses_iam_whatever_the_passcode() -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        first = await _seated(port, "a")
        await _seated(port, "b", starts=True)
        passcode = game._players["AUSTRIA"].passcode
        thief = await DaideClient.connect("127.0.0.1", port, local_address=STRANGER)
        verdict, reason = await _iam(thief, passcode)
        assert verdict == "REJ" and "own connection is alive" in reason  # not even tried
        await first.close()
        await _eventually(lambda: not any(c.power == "AUSTRIA" for c in server.connections))
        wrong = [n for n in range(1, 8192) if n != passcode]
        answers = [await _iam(thief, guess) for guess in wrong[:10]]
        assert [verdict for verdict, _ in answers] == ["REJ"] * 10
        assert [("too many wrong IAMs" in reason) for _, reason in answers] == [False] * 3 + [True] * 7
        assert server.power_guesses.wait("AUSTRIA") > 50  # three tried, then a minute's wait
        assert (await _iam(thief, passcode))[0] == "REJ"  # even the right one waits out the lock
        back = await DaideClient.connect("127.0.0.1", port, local_address="127.0.0.4")
        assert (await _iam(back, passcode))[0] == "REJ"  # a new address: the power's lock holds it too
        await back.close()
        await thief.close()
    _run(scenario)


def test_the_bots_own_address_comes_back_past_the_lock_strangers_earned() -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        first = await _seated(port, "a")
        await _seated(port, "b", starts=True)
        passcode = game._players["AUSTRIA"].passcode
        await first.close()
        await _eventually(lambda: not any(c.power == "AUSTRIA" for c in server.connections))
        thief = await DaideClient.connect("127.0.0.1", port, local_address=STRANGER)
        for guess in [n for n in range(1, 8) if n != passcode][:5]:
            assert (await _iam(thief, guess))[0] == "REJ"
        back = await DaideClient.connect("127.0.0.1", port)
        assert await _iam(back, passcode) == ("YES", "()")
        await back.close()
        await thief.close()
    _run(scenario)


def test_the_guess_policy_puts_a_hit_weeks_away() -> None:
    """The figure docs/daide.md gives: the expected time to find a passcode (half of 8,191
    tries) at the rate the default policy allows one power."""
    policy = GuessPolicy()
    clock = [0.0]
    guesses = Guesses(policy, clock=lambda: clock[0])
    for _ in range(8191 // 2):
        clock[0] += guesses.wait("AUS")
        guesses.wrong("AUS")
    weeks = clock[0] / (7 * 86400)
    assert 23 < weeks < 25, weeks
    clock[0] += policy.forget_after
    assert guesses.wait("AUS") == 0.0


def test_close_tells_every_connection_off_and_leaves_no_task_and_connections_probe_for_dead_peers() -> None:
    async def main() -> None:
        game = LocalGame(VARIANT, absent={p.name: ("dummy", "v0") for p in VARIANT.powers[2:]},
                         choose=lambda free: free[0])
        server = GameServer(game)
        port = await server.start("127.0.0.1", 0)
        clients = [await _seated(port, "a"), await _seated(port, "b", starts=True)]
        idle = await _im_only(port)
        sockets = [c.writer.get_extra_info("socket") for c in server.connections]
        assert all(sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) for sock in sockets)  # dead peers found
        before = asyncio.all_tasks()
        await server.close()
        for client in clients:
            assert (await _until_closed(client))[-1] == ("OFF",)
        rest = await asyncio.wait_for(idle[0].read(), 5)  # up to the end of the stream
        assert rest[:1] == bytes([Kind.DM]) and len(rest) == 6  # one DM: OFF
        assert not server._tasks and len(asyncio.all_tasks()) < len(before)
        assert server.admission.open == 0
    asyncio.run(main())
