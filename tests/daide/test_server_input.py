"""Bad input over a real socket: each gets the protocol's answer, the connection closes
where the protocol says so, and the game and the other connections go on with nothing
stored that was not a valid order."""

from __future__ import annotations

import asyncio
import struct
from typing import Awaitable, Callable

import pytest

import maps
from daide import framing
from daide.client import ConnectionClosed, DaideClient
from daide.framing import ErrorCode, Kind
from daide.local import LocalGame
from daide.messages import to_text
from daide.server import GameServer

VARIANT = maps.load("standard")


async def _raw(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port)


async def _frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    header = await asyncio.wait_for(reader.readexactly(4), 5)
    kind, length = framing.HEADER.unpack(header)
    return kind, await reader.readexactly(length)


async def _closed(reader: asyncio.StreamReader) -> bool:
    return await asyncio.wait_for(reader.read(1), 5) == b""


async def _seated(port: int, name: str = "bot", *, starts: bool = False) -> DaideClient:
    """A client that took a seat and accepted the map (and, when its seat starts the game,
    has read HLO, SCO and NOW)."""
    client = await DaideClient.connect("127.0.0.1", port)
    await client.send(f'NME ("{name}") ("v1")')
    assert (await client.receive(5))[0] == "YES"
    await client.receive(5)  # MAP
    await client.send('YES (MAP ("standard"))')
    if starts:
        assert [(await client.receive(5))[0] for _ in range(3)] == ["HLO", "SCO", "NOW"]
    return client


def _run(scenario: Callable[[GameServer, LocalGame, int], Awaitable[None]], *, seats: int = 2, **server_options) -> None:
    async def main() -> None:
        absent = {p.name: ("dummy", "v0") for p in VARIANT.powers[seats:]}
        game = LocalGame(VARIANT, absent=absent, choose=lambda free: free[0])
        server = GameServer(game, **server_options)
        port = await server.start("127.0.0.1", 0)
        try:
            await scenario(server, game, port)
        finally:
            await server.close()
    asyncio.run(main())


@pytest.mark.parametrize("first, code", [
    (framing.pack(Kind.IM, struct.pack(">HH", 1, 0xBEEF)), ErrorCode.IM_WRONG_MAGIC),
    (framing.pack(Kind.IM, struct.pack(">HH", 1, 0x10DA)), ErrorCode.IM_WRONG_ENDIAN),
    (framing.pack(Kind.DM, b"\x48\x09"), ErrorCode.IM_NOT_FIRST),
    (framing.pack(Kind.RM, b""), ErrorCode.IM_NOT_FIRST),
])
def test_a_bad_opening_gets_its_em_and_the_connection_closes(first: bytes, code: ErrorCode) -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        reader, writer = await _raw(port)
        writer.write(first)
        assert await _frame(reader) == (Kind.EM, struct.pack(">H", code))
        assert await _closed(reader)
        writer.close()
    _run(scenario)


@pytest.mark.parametrize("after_rm, code", [
    (framing.initial_message(), ErrorCode.IM_REPEATED),
    (framing.pack(Kind.RM, b""), ErrorCode.RM_FROM_CLIENT),
    (framing.pack(Kind.DM, b"\x48\x18\x5F\xFF"), ErrorCode.INVALID_TOKEN),
    (framing.pack(Kind.DM, b"\x48\x18\x41"), ErrorCode.MESSAGE_TOO_SHORT),
    (framing.HEADER.pack(9, 2) + b"\x00\x00", ErrorCode.UNKNOWN_MESSAGE),
    (b"GET / HTTP/1.1\r\n\r\n", ErrorCode.UNKNOWN_MESSAGE),
])
def test_bad_frames_after_the_rm_get_their_em(after_rm: bytes, code: ErrorCode) -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        client = await DaideClient.connect("127.0.0.1", port)
        await client.send_raw(after_rm)
        with pytest.raises(ConnectionClosed) as closed:
            await client.receive(5)
        assert closed.value.error == code
    _run(scenario)


def test_no_im_in_time_is_em_01() -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        reader, writer = await _raw(port)
        writer.write(framing.initial_message()[:3])  # a truncated IM, never completed
        assert await _frame(reader) == (Kind.EM, struct.pack(">H", ErrorCode.IM_TIMER_POPPED))
        writer.close()
    _run(scenario, im_timeout=0.3)


def test_brackets_get_prn_unknown_words_huh_and_the_connection_stays() -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        client = await _seated(port, starts=True)
        await client.send_raw(framing.pack(Kind.DM, struct.pack(">HHH", 0x480E, 0x4000, 0x4000)))
        assert (await client.receive(5))[0] == "PRN"
        await client.send("SVE (\"game\")")
        assert to_text(await client.receive(5)) == 'HUH (ERR SVE ("game"))'
        await client.send("MAP")
        assert to_text(await client.receive(5)) == 'MAP ("standard")'
    _run(scenario, seats=1)


def test_sub_for_another_power_is_nyu_and_nothing_is_stored() -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        client = await _seated(port, starts=True)
        await client.send("SUB ((FRA AMY PAR) MTO BUR) ((AUS AMY VIE) HLD)")
        assert to_text(await client.receive(5)) == "THX ((FRA AMY PAR) MTO BUR) (NYU)"
        assert to_text(await client.receive(5)) == "THX ((AUS AMY VIE) HLD) (MBV)"
        assert (await client.receive(5))[0] == "MIS"
        await client.send("SUB ((AUS AMY VIE) YES BUD)")
        assert to_text(await client.receive(5)) == "HUH (SUB ((AUS AMY VIE) ERR YES BUD))"
        await client.send("SUB ((AUS AMY BUD) HLD VIE)")
        assert to_text(await client.receive(5)) == "HUH (SUB ((AUS AMY BUD) HLD ERR VIE))"
        assert game.ordered_units("FRANCE") == set() and game.ordered_units("AUSTRIA") == {"VIE"}
    _run(scenario, seats=1)


def test_a_flooding_client_is_cut_off_and_the_game_goes_on() -> None:
    async def scenario(server: GameServer, game: LocalGame, port: int) -> None:
        steady = await _seated(port, "steady")
        flood = await _seated(port, "flood")
        await flood.send_raw(framing.pack(Kind.DM, b"\x48\x09") * 50)
        with pytest.raises(ConnectionClosed):
            while True:
                await flood.receive(5)
        heard = []
        while not heard or heard[-1][0] != "NOW":
            heard.append(await steady.receive(5))
        await steady.send("SUB ((AUS AMY VIE) HLD) ((AUS AMY BUD) HLD) ((AUS FLT TRI) HLD)")
        while heard[-1][0] != "MIS":
            heard.append(await steady.receive(5))
        assert ("CCD", ("ENG",)) in heard  # the flooder's power is in civil disorder
        await steady.send("NOW")
        assert (await steady.receive(5))[:2] == ("NOW", ("SPR", 1901))
    _run(scenario, flood_limit=20)
