"""DAIDE press on the server over real TCP (``GameServer`` + ``LocalGame``): SND answered
and relayed as FRM at the game's level, and every kind of bad press answered as the syntax
says (HUH with ERR at the place, REJ, OUT, CCD) with nothing relayed."""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

import pytest

import maps
from daide.client import DaideClient
from daide.local import LocalGame
from daide.messages import from_text, to_text
from daide.press import MAX_DEPTH, Grammar, PressError
from daide.press_relay import PressLimits
from daide.server import GameServer
from daide.tokens import TokenTable

VARIANT = maps.load("standard")
TABLE = TokenTable.for_variant(VARIANT)


# -- the grammar alone
@pytest.mark.parametrize("level, text", [
    (10, "PRP (PCE (ENG FRA))"),
    (10, "PRP (ALY (ENG FRA) VSS (GER))"),
    (10, "YES (PRP (PCE (ENG FRA)))"),
    (10, "REJ (PRP (DRW))"),
    (10, "BWX (PRP (SLO (ENG)))"),
    (10, "CCL (PRP (NOT (PCE (ENG FRA))))"),
    (10, "FCT (NAR (PCE (ENG FRA)))"),
    (10, "TRY (PRP PCE ALY VSS XDO)"),
    (10, "HUH (ERR PRP (XDO ((ENG FLT LON) HLD)))"),
    (20, "PRP (XDO ((ENG FLT LON) MTO ECH))"),
    (20, "PRP (XDO ((GER AMY MUN) SUP (ITA AMY VEN) MTO TYR))"),
    (20, "PRP (XDO ((RUS FLT (STP SCS)) MTO GOB))"),
    (20, "PRP (DMZ (AUS GER) (BOH TYR))"),
    (20, "PRP (XDO ((ENG AMY LON) CTO NWY VIA (NTH)))"),
    (30, "PRP (AND (PCE (ENG FRA)) (XDO ((ENG FLT LON) HLD)))"),
    (30, "PRP (ORR (DMZ (ENG FRA) (ECH)) (ALY (ENG FRA) VSS (GER)))"),
])
def test_the_grammar_accepts_each_levels_press(level: int, text: str) -> None:
    Grammar(TABLE, level).check(from_text(text))


@pytest.mark.parametrize("level, text, path", [
    (0, "PRP (PCE (ENG FRA))", ()),                                      # no press at all
    (10, "PRP (XDO ((ENG FLT LON) HLD))", (1, 0)),                        # XDO is level 20
    (20, "PRP (AND (PCE (ENG FRA)) (DRW))", (1, 0)),                      # AND is level 30
    (30, "PRP (AND (PCE (ENG FRA)) (ORR (DRW) (SLO (ENG))))", (1, 2, 0)),  # nested at level 30
    (30, "PRP (AND (PCE (ENG FRA)))", (1, 2)),                            # one part
    (10, "PRP (PCE (ENG))", (1, 1, 1)),                                   # peace of one
    (10, "PRP (PCE (ENG LON))", (1, 1, 1)),                               # a province for a power
    (10, "PRP (ALY (ENG FRA) (GER))", (1, 2)),                            # no VSS
    (10, "PRP (NOT (NOT (DRW)))", (1, 1, 0)),                             # double negative
    (10, "XDO ((ENG FLT LON) HLD)", (0,)),                                # no press message
    (10, "YES (YES (PRP (DRW)))", (1, 0)),                                # a reply to a reply
    (20, "PRP (XDO ((ENG FLT LON) FLY NTH))", (1, 1, 1)),                  # no order word
    (20, "PRP (DMZ (ENG) (ENG))", (1, 2, 0)),                              # a power for a province
    (10, "TRY (PRP HLO)", (1, 1)),                                         # not a press token
])
def test_the_grammar_points_at_what_the_level_cannot_accept(level: int, text: str, path: tuple) -> None:
    with pytest.raises(PressError) as refused:
        Grammar(TABLE, level).check(from_text(text))
    assert refused.value.path == path


def test_a_draw_of_some_powers_is_press_only_where_partial_draws_are_allowed() -> None:
    with pytest.raises(PressError) as refused:
        Grammar(TABLE, 10).check(from_text("PRP (DRW (ENG FRA))"))
    assert refused.value.path == (1, 1)
    Grammar(TABLE, 10, partial_draws=True).check(from_text("PRP (DRW (ENG FRA))"))


def test_press_too_deep_or_too_long_is_refused_where_it_goes_over() -> None:
    deep = "PRP (" + "NOT (NAR (" * 5 + "DRW" + "))" * 5 + ")"
    with pytest.raises(PressError) as refused:
        Grammar(TABLE, 30).check(from_text(deep))
    assert "deeper" in refused.value.problem and len(refused.value.path) == MAX_DEPTH + 1
    long = "PRP (AND " + " ".join("(XDO ((ENG FLT LON) MTO ECH))" for _ in range(60)) + ")"
    with pytest.raises(PressError) as refused:
        Grammar(TABLE, 30).check(from_text(long))
    assert "longer" in refused.value.problem


# -- the server
async def _seat(port: int, name: str) -> DaideClient:
    client = await DaideClient.connect("127.0.0.1", port)
    await client.send(f'NME ("{name}") ("v1")')
    await client.receive(5)
    await client.receive(5)
    await client.send('YES (MAP ("standard"))')
    return client


async def _until(client: DaideClient, head: str) -> list[str]:
    """Messages up to and including the first whose text starts with ``head``."""
    seen = []
    while True:
        seen.append(to_text(await client.receive(5)))
        if seen[-1].startswith(head):
            return seen


async def _nothing(client: DaideClient, wait: float = 0.3) -> list[str]:
    seen = []
    try:
        while True:
            seen.append(to_text(await client.receive(wait)))
    except asyncio.TimeoutError:
        return seen


Scenario = Callable[[GameServer, LocalGame, list[DaideClient]], Awaitable[None]]


def _game(scenario: Scenario, *, level: int = 30, seats: int = 3, limits: PressLimits = PressLimits(),
          pda: bool = False) -> None:
    async def main() -> None:
        absent = {p.name: ("dummy", "v0") for p in VARIANT.powers[seats:]}
        game = LocalGame(VARIANT, absent=absent, choose=lambda free: free[0], level=level, partial_draws=pda)
        server = GameServer(game, press_limits=limits)
        port = await server.start("127.0.0.1", 0)
        clients = [await _seat(port, f"bot{i}") for i in range(seats)]
        try:
            for client in clients:
                hello = await _until(client, "NOW")
                assert f"(LVL {level})" in hello[0] and ("(PDA)" in hello[0]) == (pda and level >= 10)
            await scenario(server, game, clients)
        finally:
            for client in clients:
                await client.close()
            await server.close()
    asyncio.run(main())


def test_snd_is_answered_yes_and_relayed_as_frm_to_the_recipients_only() -> None:
    async def scenario(server: GameServer, game: LocalGame, clients: list[DaideClient]) -> None:
        austria, england, france = clients  # seats dealt in order: AUS, ENG, FRA
        await austria.send("SND (SPR 1901) (ENG) (PRP (PCE (AUS ENG)))")
        assert await _until(austria, "YES") == ["YES (SND (SPR 1901) (ENG) (PRP (PCE (AUS ENG))))"]
        assert await _until(england, "FRM") == ["FRM (AUS) (ENG) (PRP (PCE (AUS ENG)))"]
        await england.send("SND (AUS FRA) (YES (PRP (PCE (AUS ENG))))")
        await _until(england, "YES")
        assert await _until(austria, "FRM") == ["FRM (ENG) (AUS FRA) (YES (PRP (PCE (AUS ENG))))"]
        assert await _until(france, "FRM") == ["FRM (ENG) (AUS FRA) (YES (PRP (PCE (AUS ENG))))"]
        assert await _nothing(france) == []
        await france.send("SND (AUS) (TRY (PRP PCE XDO SCD INS))")  # the server drops what is above level 30
        await _until(france, "YES")
        assert await _until(austria, "FRM") == ["FRM (FRA) (AUS) (TRY (PRP PCE XDO))"]
        assert [(p, s, r) for _, s, r, p in game.press_log] == [
            (from_text("PRP (PCE (AUS ENG))"), "AUSTRIA", ("ENGLAND",)),
            (from_text("YES (PRP (PCE (AUS ENG)))"), "ENGLAND", ("AUSTRIA", "FRANCE")),
            (from_text("TRY (PRP PCE XDO SCD INS)"), "FRANCE", ("AUSTRIA",))]
    _game(scenario)


@pytest.mark.parametrize("level, sent, answer", [
    # above the level or malformed: HUH with ERR at the place
    (10, "SND (ENG) (PRP (XDO ((AUS FLT TRI) HLD)))", "HUH (SND (ENG) (PRP (ERR XDO ((AUS FLT TRI) HLD))))"),
    (20, "SND (ENG) (PRP (AND (DRW) (PCE (AUS ENG))))", "HUH (SND (ENG) (PRP (ERR AND (DRW) (PCE (AUS ENG)))))"),
    (0, "SND (ENG) (PRP (PCE (AUS ENG)))", "HUH (SND (ENG) (ERR PRP (PCE (AUS ENG))))"),
    (30, "SND (LON) (PRP (DRW))", "HUH (SND (ERR LON) (PRP (DRW)))"),          # a province for a power
    (30, "SND (ENG) PRP", "HUH (SND (ENG) ERR PRP)"),
    (30, "SND (ENG)", "HUH (SND (ENG) ERR)"),
    (30, "SND (ENG) (FRM (AUS) (ENG) (PRP (DRW)))", "HUH (SND (ENG) (ERR FRM (AUS) (ENG) (PRP (DRW))))"),
    (30, "SND (ENG) (PRP (NOT (NAR (NOT (NAR (NOT (NAR (NOT (NAR (DRW))))))))))",
     "HUH (SND (ENG) (PRP (NOT (NAR (NOT (NAR (NOT (NAR (NOT (NAR ERR (DRW)))))))))))"),  # 9 deep
    # refused: REJ (the reason follows as ADM)
    (30, "SND (AUS ENG) (PRP (DRW))", "REJ (SND (AUS ENG) (PRP (DRW)))"),          # to itself
    (30, "SND (ENG ENG) (PRP (DRW))", "REJ (SND (ENG ENG) (PRP (DRW)))"),          # twice
    (30, "SND (FAL 1901) (ENG) (PRP (DRW))", "REJ (SND (FAL 1901) (ENG) (PRP (DRW)))"),  # not this turn
    # a recipient who cannot read press: nothing sent to anybody
    (30, "SND (ENG GER) (PRP (DRW))", "CCD (GER)"),
])
def test_bad_press_gets_the_syntaxs_answer_and_nothing_is_relayed(level: int, sent: str, answer: str) -> None:
    async def scenario(server: GameServer, game: LocalGame, clients: list[DaideClient]) -> None:
        austria, england, _ = clients
        await austria.send(sent)
        assert (await _nothing(austria))[:1] == [answer]
        assert await _nothing(england, 0.2) == []
        assert game.press_log == []
    _game(scenario, level=level)


def test_a_client_sending_frm_itself_gets_huh_and_nobody_hears_it() -> None:
    async def scenario(server: GameServer, game: LocalGame, clients: list[DaideClient]) -> None:
        austria, england, _ = clients
        await austria.send("FRM (FRA) (ENG) (PRP (PCE (FRA ENG)))")
        assert await _nothing(austria) == ["HUH (ERR FRM (FRA) (ENG) (PRP (PCE (FRA ENG))))"]
        assert await _nothing(england, 0.2) == []
    _game(scenario)


def test_a_press_flood_is_refused_per_connection_and_per_power_and_the_game_goes_on() -> None:
    async def scenario(server: GameServer, game: LocalGame, clients: list[DaideClient]) -> None:
        austria, england, france = clients
        for _ in range(5):
            await austria.send("SND (ENG) (PRP (DRW))")
        answers = [m for m in await _nothing(austria) if not m.startswith("ADM")]
        assert answers == ["YES (SND (ENG) (PRP (DRW)))"] * 3 + ["REJ (SND (ENG) (PRP (DRW)))"] * 2
        assert len([m for m in await _nothing(england) if m.startswith("FRM")]) == 3
        await france.send("SND (ENG) (PRP (DRW))")  # another power's bucket is its own
        assert await _until(france, "YES") == ["YES (SND (ENG) (PRP (DRW)))"]
        await austria.send("NOW")
        assert (await _until(austria, "NOW"))[-1].startswith("NOW (SPR 1901)")
        assert len(game.press_log) == 4
    _game(scenario, limits=PressLimits(burst=3, per_second=0.01))


def test_press_before_the_game_starts_is_refused() -> None:
    async def main() -> None:
        game = LocalGame(VARIANT, choose=lambda free: free[0], level=30)
        server = GameServer(game)
        port = await server.start("127.0.0.1", 0)
        client = await _seat(port, "early")
        try:
            await client.send("SND (ENG) (PRP (DRW))")
            assert "REJ (SND (ENG) (PRP (DRW)))" in await _nothing(client)
            assert game.press_log == []
        finally:
            await client.close()
            await server.close()
    asyncio.run(main())


def test_press_to_an_aiclient_level_0_bot_is_accepted_but_never_relayed() -> None:
    """DumbBot, HoldBot and RandBot (AiClient 8~3) crash at the first FRM they get."""
    async def main() -> None:
        absent = {p.name: ("dummy", "v0") for p in VARIANT.powers[2:]}
        game = LocalGame(VARIANT, absent=absent, choose=lambda free: free[0], level=30)
        server = GameServer(game)
        port = await server.start("127.0.0.1", 0)
        talker, dumbbot = await _seat(port, "Albert"), await _seat(port, "DumbBot")
        try:
            await _until(talker, "NOW")
            await _until(dumbbot, "NOW")
            await talker.send("SND (ENG) (PRP (PCE (AUS ENG)))")
            assert await _until(talker, "YES") == ["YES (SND (ENG) (PRP (PCE (AUS ENG))))"]
            assert await _nothing(dumbbot) == []
            assert [s for _, s, _, _ in game.press_log] == ["AUSTRIA"]
        finally:
            await talker.close()
            await dumbbot.close()
            await server.close()
    asyncio.run(main())


def test_press_to_an_eliminated_power_gets_out_and_from_one_rej() -> None:
    async def scenario(server: GameServer, game: LocalGame, clients: list[DaideClient]) -> None:
        austria, england, france = clients
        game._eliminated["FRANCE"] = 1901  # no public way to lose every unit in a test's time
        await austria.send("SND (ENG FRA) (PRP (DRW))")
        assert await _nothing(austria) == ["OUT (FRA)"]  # nobody gets it, England neither
        await france.send("SND (ENG) (PRP (DRW))")
        assert (await _nothing(france))[0] == "REJ (SND (ENG) (PRP (DRW)))"
        assert await _nothing(england, 0.2) == [] and game.press_log == []
    _game(scenario)


def test_the_flood_limit_of_a_power_survives_its_reconnection() -> None:
    async def scenario(server: GameServer, game: LocalGame, clients: list[DaideClient]) -> None:
        austria = clients[0]
        hello = await _hello_of(austria)
        for _ in range(3):
            await austria.send("SND (ENG) (PRP (DRW))")
        assert [m for m in await _nothing(austria) if m.startswith("YES")] != []
        await austria.close()
        again = await DaideClient.connect("127.0.0.1", server._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]
        await again.send(f"IAM (AUS) ({hello[2][0]})")
        assert (await again.receive(5))[0] == "YES"
        await again.send("SND (ENG) (PRP (DRW))")  # a new connection, the same power: still refused
        assert (await _nothing(again))[0] == "REJ (SND (ENG) (PRP (DRW)))"
        await again.close()
    _game(scenario, limits=PressLimits(burst=3, per_second=0.01))


async def _hello_of(client: DaideClient) -> tuple:
    await client.send("HLO")
    while True:
        message = await client.receive(5)
        if message[0] == "HLO":
            return message


def test_hlo_says_pda_where_partial_draws_are_allowed_and_press_may_propose_one() -> None:
    async def scenario(server: GameServer, game: LocalGame, clients: list[DaideClient]) -> None:
        await clients[0].send("SND (ENG) (PRP (DRW (AUS ENG)))")
        assert await _until(clients[0], "YES") == ["YES (SND (ENG) (PRP (DRW (AUS ENG))))"]
    _game(scenario, level=10, pda=True)
