"""DRW with powers on the judge's DAIDE edge: a partial draw where RULE NO_DIAS allows it,
refused with the reason (an ADM after the REJ) where the game draws only among all survivors."""

from __future__ import annotations

import asyncio
from pathlib import Path

from daide.client import DaideClient
from daide.messages import Message, to_text
from tests.judge.daide_edge.machines import MachineJudge

POWER_TOKENS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")


async def _seven(port: int) -> dict[str, DaideClient]:
    """Seven machines seated and told HLO, by the power token HLO gave each."""
    clients = []
    for number in range(7):
        client = await DaideClient.connect("127.0.0.1", port)
        await client.send(f'NME ("bot{number}") ("v1")')
        assert (await client.receive(10))[0] == "YES"
        await client.receive(10)  # MAP
        await client.send('YES (MAP ("standard"))')
        clients.append(client)
    seated = {}
    for client in clients:
        while (message := await client.receive(10))[0] != "HLO":
            pass
        seated[message[1][0]] = client
    return seated


def test_a_partial_draw_needs_rule_no_dias_and_the_refusal_says_so(tmp_path: Path) -> None:
    machine = MachineJudge(tmp_path)

    async def scenario() -> list[str]:
        seated = await _seven(machine.port)
        austria = seated["AUS"]
        await austria.send("DRW (AUS ENG)")
        heard = [to_text(m) for m in await _answers(austria, 2)]
        await austria.send("DRW")
        heard += [to_text(m) for m in await _answers(austria, 1)]
        for client in seated.values():
            await client.close()
        return heard

    try:
        heard = asyncio.run(scenario())
        assert heard[0] == "REJ (DRW (AUS ENG))"
        assert heard[1].startswith('ADM ("Server") (') and "NO_DIAS" in heard[1]
        assert heard[2] == "YES (DRW)"
        assert machine.game().status == "active"
    finally:
        machine.close()


def test_a_draw_of_two_powers_voted_by_every_survivor_ends_the_game_under_no_dias(tmp_path: Path) -> None:
    machine = MachineJudge(tmp_path, "RULE NO_DIAS")

    async def scenario() -> tuple[list[str], list[str]]:
        seated = await _seven(machine.port)
        await seated["AUS"].send("DRW (AUS)")  # a draw is of two powers or more
        refused = [to_text(m) for m in await _answers(seated["AUS"], 2)]
        for token in POWER_TOKENS:
            await seated[token].send("DRW (ENG AUS)")
        heard = []
        while not heard or heard[-1] != "OFF":
            heard.append(to_text(await seated["FRA"].receive(10)))
        return refused, heard

    try:
        refused, heard = asyncio.run(scenario())
        assert refused[0] == "REJ (DRW (AUS))" and refused[1].startswith("ADM") and "two" in refused[1]
        assert "DRW (AUS ENG)" in heard and heard[-2].startswith("SMR")
        game = machine.game()
        assert game.status == "ended"
        assert game.outcome["result"] == "draw" and sorted(game.outcome["powers"]) == ["AUSTRIA", "ENGLAND"]
    finally:
        machine.close()


async def _answers(client: DaideClient, count: int) -> list[Message]:
    """The next ``count`` messages that are not the game's own news (SCO, NOW, TME, ...)."""
    heard: list[Message] = []
    while len(heard) < count:
        message = await client.receive(10)
        if message[0] in ("YES", "REJ", "ADM"):
            heard.append(message)
    return heard
