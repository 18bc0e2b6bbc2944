"""DRW with and without powers, and TME (seconds) reminders, over a real socket against
``daide.local.LocalGame`` (the judge's own host is tested in tests/judge/daide_edge)."""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

import maps
from daide.client import DaideClient
from daide.local import LocalGame
from daide.messages import Message, to_text
from daide.render import Timing
from daide.server import GameServer

VARIANT = maps.load("standard")


async def _seat(port: int) -> DaideClient:
    client = await DaideClient.connect("127.0.0.1", port)
    await client.send('NME ("bot") ("v1")')
    assert (await client.receive(5))[0] == "YES"
    await client.receive(5)  # MAP
    await client.send('YES (MAP ("standard"))')
    return client


async def _until(client: DaideClient, word: str) -> list[Message]:
    heard = [await client.receive(10)]
    while heard[-1][0] != word:
        heard.append(await client.receive(10))
    return heard


def _seven_seats(scenario: Callable[[LocalGame, list[DaideClient]], Awaitable[None]], **game_options) -> None:
    """Every power seated, in the map's order (Austria, England, France, ...)."""
    async def main() -> None:
        game = LocalGame(VARIANT, choose=lambda free: free[0], **game_options)
        server = GameServer(game, reminder_interval=0.05)
        port = await server.start("127.0.0.1", 0)
        try:
            clients = [await _seat(port) for _ in VARIANT.powers]
            for client in clients:  # the start: HLO, SCO, NOW and, with deadlines, TME
                await _until(client, "TME" if game.deadlines.movement else "NOW")
            await scenario(game, clients)
        finally:
            await server.close()
    asyncio.run(main())


def test_a_partial_draw_is_refused_with_the_reason_where_the_rules_allow_only_all_survivors() -> None:
    async def scenario(game: LocalGame, clients: list[DaideClient]) -> None:
        austria, england, *others = clients
        await austria.send("DRW (AUS ENG)")
        assert await austria.receive_text(5) == "REJ (DRW (AUS ENG))"
        reason = await austria.receive(5)
        assert reason[0] == "ADM" and "only among all survivors" in reason[2][0]
        await austria.send("DRW (AUS SPR)")
        assert (await austria.receive_text(5)).startswith("HUH (DRW (AUS ERR SPR")
        await austria.send("DRW")
        assert await austria.receive_text(5) == "YES (DRW)"
        assert game.ended() is None  # the others have not voted
        await austria.send("NOT (DRW)")
        assert await austria.receive_text(5) == "YES (NOT (DRW))"
    _seven_seats(scenario)


def test_a_partial_draw_ends_the_game_when_every_voter_lists_the_same_powers() -> None:
    async def scenario(game: LocalGame, clients: list[DaideClient]) -> None:
        austria, england, *others = clients
        await austria.send("DRW (ENG)")  # a draw is of two powers or more
        assert await austria.receive_text(5) == "REJ (DRW (ENG))"
        assert (await austria.receive(5))[0] == "ADM"
        await austria.send("DRW (ENG AUS)")
        assert await austria.receive_text(5) == "YES (DRW (ENG AUS))"
        for other in others:  # a power left out of the draw votes for it too
            await other.send("DRW (AUS ENG)")
            assert await other.receive_text(5) == "YES (DRW (AUS ENG))"
        assert game.ended() is None  # England has not voted
        await england.send("DRW (AUS ENG)")
        heard = [to_text(m) for m in await _until(england, "OFF")]
        assert heard[0] == "YES (DRW (AUS ENG))" and "DRW (AUS ENG)" in heard[1:] and heard[-2].startswith("SMR")
        ending = game.ended()
        assert ending is not None and ending.kind == "draw" and set(ending.drawn) == {"AUSTRIA", "ENGLAND"}
        assert "DRW (AUS ENG)" in [to_text(m) for m in await _until(austria, "OFF")]
    _seven_seats(scenario, partial_draws=True)


def test_tme_with_seconds_is_sent_when_that_many_are_left_and_can_be_withdrawn() -> None:
    async def scenario(game: LocalGame, clients: list[DaideClient]) -> None:
        austria, england, *others = clients
        await austria.send("NOT (TME (5))")
        assert await austria.receive_text(5) == "REJ (NOT (TME (5)))"  # never asked
        await austria.send("TME (1)")
        assert await austria.receive_text(5) == "YES (TME (1))"
        reminder = await austria.receive(10)  # sent once the 3 s deadline has 1 s or less to go
        assert reminder[0] == "TME" and reminder[1][0] <= 1
        await england.send("TME (30)")  # more than the whole phase: due at once
        assert await england.receive_text(5) == "YES (TME (30))"
        assert (await england.receive(5))[0] == "TME"
        await england.send("NOT (TME (30))")
        assert await england.receive_text(5) == "YES (NOT (TME (30)))"
        await austria.send("NOT (TME)")
        assert await austria.receive_text(5) == "YES (NOT (TME))"
        await austria.send("TME (SPR)")
        assert (await austria.receive_text(5)).startswith("HUH (TME (ERR")
    _seven_seats(scenario, deadlines=Timing(movement=3, retreat=3, build=3))


def test_tme_with_seconds_is_refused_in_a_game_without_deadlines() -> None:
    async def scenario(game: LocalGame, clients: list[DaideClient]) -> None:
        austria, england, *others = clients
        await austria.send("TME (60)")
        assert await austria.receive_text(5) == "REJ (TME (60))"
    _seven_seats(scenario)


def test_off_is_said_once_when_the_game_ends_and_the_server_then_closes() -> None:
    async def main() -> None:
        game = LocalGame(VARIANT, choose=lambda free: free[0])
        server = GameServer(game)
        port = await server.start("127.0.0.1", 0)
        try:
            clients = [await _seat(port) for _ in VARIANT.powers]
            for client in clients:
                await _until(client, "NOW")
            for client in clients:
                await client.send("DRW")
            ends = [await _until(client, "OFF") for client in clients]
            assert all(heard[-2][0] == "SMR" for heard in ends)
        finally:
            await server.close()  # the listener closes after the end: no second OFF
        for client in clients:
            after: list[str] = []
            while True:
                try:
                    after.append(to_text(await client.receive(2)))
                except Exception:  # the connection's end
                    break
            assert "OFF" not in after, after
    asyncio.run(main())
