"""`judge bot`'s DAIDE client against our own DAIDE server (daide.server + LocalGame) over
real sockets: it plays a whole game, takes its seat back after a lost connection, and
stops with a clear log line when refused, on an unknown map, or when nobody listens."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

import maps
from bot.player import Budget
from bot.search import StrategicBot
from daide.local import LocalGame
from daide.server import GameServer
from judge.edge.daide_player import EXIT_DONE, EXIT_REFUSED, EXIT_UNREACHABLE, DaideBot

STANDARD = maps.load("standard")
QUICK = StrategicBot(1, Budget(iterations=15, seconds=None), samples=1, modelled=0)


def _game(variant=STANDARD, seats: int = 1) -> LocalGame:
    absent = {p.name: ("dummy", "v0") for p in variant.powers[seats:]}
    return LocalGame(variant, absent=absent, choose=lambda free: free[0])


async def _serve(game: LocalGame, scenario) -> object:
    server = GameServer(game)
    port = await server.start("127.0.0.1", 0)
    try:
        return await asyncio.wait_for(scenario(server, port), 120)
    finally:
        await server.close()


def _until(game: LocalGame, year: int):
    async def wait() -> None:
        while game.position().phase.year < year and game.ended() is None:
            await asyncio.sleep(0.02)
    return wait()


def test_it_plays_every_phase_until_the_server_says_off(caplog):
    caplog.set_level(logging.INFO, logger="judge.bot")
    game = _game()  # Austria (the first seat) against six powers that never order

    async def scenario(server, port):
        task = asyncio.create_task(DaideBot("127.0.0.1", port, QUICK).run())
        await _until(game, 1903)
        await server.close()  # OFF to everyone
        return await task

    assert asyncio.run(_serve(game, scenario)) == EXIT_DONE
    assert game.position().phase.year == 1903  # it ordered every phase, builds included
    assert len([u for u in game.position().units if u.power == "AUSTRIA"]) > 3
    assert "playing AUSTRIA (passcode" in caplog.text and "server said OFF" in caplog.text
    assert "not accepted" not in caplog.text and "could not" not in caplog.text  # every order MBV, no error


def test_a_lost_connection_is_reopened_with_iam_and_play_goes_on(caplog):
    caplog.set_level(logging.INFO, logger="judge.bot")
    game = _game()

    async def scenario(server, port):
        bot = DaideBot("127.0.0.1", port, QUICK, retries=3)
        task = asyncio.create_task(bot.run())
        while bot.seat.submitted is None:  # until its first orders are in
            await asyncio.sleep(0.01)
        for connection in list(server.connections):
            connection.close()  # the server drops it
        await _until(game, 1902)  # the game goes on: it took its seat back
        await server.close()
        return await task

    assert asyncio.run(_serve(game, scenario)) == EXIT_DONE
    assert "connection lost" in caplog.text and "server accepted IAM" in caplog.text
    assert game.position().phase.year == 1902


def test_a_full_game_refuses_it_and_it_says_so(caplog):
    game = _game(seats=0)

    async def scenario(server, port):
        return await DaideBot("127.0.0.1", port, QUICK).run()

    assert asyncio.run(_serve(game, scenario)) == EXIT_REFUSED
    assert 'the server refused NME ("dipjudge-bot") ("1")' in caplog.text


def test_an_unknown_map_is_refused_and_said_so(caplog):
    game = _game(replace(STANDARD, name="nowhere"))  # a map the judge has no file for

    async def scenario(server, port):
        return await DaideBot("127.0.0.1", port, QUICK).run()

    assert asyncio.run(_serve(game, scenario)) == EXIT_REFUSED
    assert "unknown variant 'nowhere'" in caplog.text


def test_nobody_listening_gives_up_after_the_retries(caplog):
    async def scenario():
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        return await DaideBot("127.0.0.1", port, QUICK, retries=0).run()

    assert asyncio.run(scenario()) == EXIT_UNREACHABLE
    assert "cannot reach 127.0.0.1" in caplog.text


def test_huh_and_rej_are_logged_and_play_goes_on(caplog):
    bot = DaideBot("127.0.0.1", 1, QUICK)
    assert asyncio.run(bot._handle(None, ("HUH", ("SUB", "ERR", ("AUS", "AMY", "VIE"), "HLD")))) is False
    assert asyncio.run(bot._handle(None, ("REJ", ("TME", (60,))))) is False
    assert "server could not read our message: HUH" in caplog.text
    assert "server refused TME" in caplog.text


def test_the_command_refuses_a_power_without_its_passcode(capsys):
    from judge.cli import main

    assert main(["bot", "--host", "127.0.0.1", "--port", "1", "--power", "FRA"]) == 2
    assert "--power and --passcode go together" in capsys.readouterr().err
