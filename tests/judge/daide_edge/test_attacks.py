"""Attacks on the DAIDE doors of a running judge (judge.daemon.serve.Daemon: its real SMTP
listener and DAIDE edge), each sent over the real listeners: IAM guessing for a seated
bot's passcode, one mail of CREATEs taking every port, a terminated forming game, a game
that fails at every look.  Each must fail while mail is answered as ever and nothing is
lost (the descriptor flood and SIGTERM: test_flood_and_stop.py)."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from email.message import EmailMessage
from datetime import timedelta
from pathlib import Path
from typing import Iterator

import pytest
from sqlalchemy import select

from daide.client import ConnectionClosed, DaideClient
from daide.messages import Message
from judge.edge.daide.host import StoreHost
from judge.store.models_game import Game
from tests.judge.daide_edge.machines import wait_until
from tests.judge.daide_edge.smtp_judge import SmtpMachineJudge

MASTER = "master@example.net"
STRANGER = "127.0.0.2"  # the attacker's loopback address (the bots use 127.0.0.1)


@pytest.fixture
def judge(tmp_path: Path) -> Iterator[SmtpMachineJudge]:
    served = SmtpMachineJudge(tmp_path)
    yield served
    served.close()


def _timed_mail(judge: SmtpMachineJudge, sender: str, body: str) -> tuple[str, float]:
    started = time.monotonic()
    reply = judge.send(sender, body)
    return reply, time.monotonic() - started


def _game_id(judge: SmtpMachineJudge, name: str) -> int:
    with judge.store.sessions() as session:
        return int(session.scalar(select(Game.id).where(Game.name == name)))  # type: ignore[arg-type]


async def _bot(port: int, name: str) -> DaideClient:
    client = await DaideClient.connect("127.0.0.1", port)
    await client.send(f'NME ("{name}") ("v1")')
    assert (await client.receive(10))[0] == "YES"
    await client.receive(10)  # MAP
    await client.send('YES (MAP ("standard"))')
    return client


async def _until(client: DaideClient, word: str) -> Message:
    while True:
        message = await client.receive(20)
        if message[0] == word:
            return message


async def _iam(client: DaideClient, power: str, passcode: int) -> str:
    """The answer to IAM and, after a REJ, the reason its ADM gave ("" none)."""
    await client.send(f"IAM ({power}) ({passcode})")
    verdict = str((await client.receive(5))[0])
    try:
        return verdict + (" " + str(await client.receive(0.3)) if verdict == "REJ" else "")
    except asyncio.TimeoutError:
        return verdict


def test_guessing_a_bots_passcode_gets_three_tries_an_hour_not_a_seat(judge: SmtpMachineJudge) -> None:
    judge.send(MASTER, "CREATE g1 masterpw\nRULE MACHINES\nFORM\n")
    wait_until(lambda: judge.daemon.daide and judge.daemon.daide.servers, "the game's DAIDE port to open")

    async def attack() -> tuple[list[str], list[float], str]:
        bots = [await _bot(judge.port, f"bot{n}") for n in range(7)]
        hellos = [await _until(bot, "HLO") for bot in bots]
        power, passcode = str(hellos[0][1][0]), int(hellos[0][2][0])  # type: ignore[index, arg-type, call-overload]
        assert (await _iam(await DaideClient.connect("127.0.0.1", judge.port, local_address=STRANGER), power,
                           passcode)).startswith("REJ")  # alive: not even the right passcode
        await bots[0].close()  # the bot's connection drops
        server = next(iter(judge.daemon.daide.servers.values()))  # type: ignore[union-attr]
        await asyncio.to_thread(wait_until, lambda: sum(c.seat is not None for c in list(server.connections)) == 6,
                                "the judge to see the bot gone", 10)
        thieves = [await DaideClient.connect("127.0.0.1", judge.port, local_address=STRANGER) for _ in range(8)]
        answers: list[str] = []
        latencies: list[float] = []

        async def guess(thief: DaideClient, first: int) -> None:
            for number in range(first, 8192, 8):
                if number != passcode:
                    answers.append(await _iam(thief, power, number))
                if len(answers) >= 400:
                    return
        mail = asyncio.create_task(asyncio.to_thread(
            lambda: [latencies.append(_timed_mail(judge, f"p{n}@example.net", "LIST\n")[1]) for n in range(3)]))
        await asyncio.gather(*(guess(thief, n + 1) for n, thief in enumerate(thieves)))
        await mail
        back = await DaideClient.connect("127.0.0.1", judge.port)  # the bot's own address
        comeback = await _iam(back, power, passcode)
        for client in [*bots[1:], *thieves, back]:
            await client.close()
        return answers, latencies, comeback

    answers, latencies, comeback = asyncio.run(attack())
    assert len(answers) >= 400 and not any(answer.startswith("YES") for answer in answers)
    tried = [answer for answer in answers if "too many wrong IAMs" not in answer]
    assert len(tried) == 3, tried  # three reached the passcode check; the rest waited
    assert comeback == "YES"  # the bot, from its address, is not held by the strangers' lock
    assert max(latencies) < 2.0, latencies
    notices: list[EmailMessage] = []
    wait_until(lambda: notices.extend(m for m in judge.outbox() if m["To"] == MASTER and "came back" in
                                      str(m["Subject"])) or notices, "the master's notice", 10)
    assert len(notices) == 1 and "from 127.0.0.1" in notices[0].get_body(("plain",)).get_content()


def test_one_mail_of_creates_takes_three_ports_and_idle_forming_games_give_theirs_back(tmp_path: Path) -> None:
    judge = SmtpMachineJudge(tmp_path, ports=8)
    try:
        creates = "".join(f"CREATE a{n} pw\nRULE MACHINES\nFORM\n" for n in range(5))
        reply, seconds = _timed_mail(judge, "hoarder@example.net", creates)
        assert set(re.findall(r"port (\d+) of the judge's host", reply)) == {str(judge.port + n) for n in range(3)}
        assert reply.count("you are already master of 3 machine games that have not started") == 2
        other, latency = _timed_mail(judge, MASTER, "CREATE b1 pw\nRULE MACHINES\nFORM\n")
        assert f"port {judge.port + 3} of the judge's host" in other and latency < 2.0
        edge = judge.daemon.daide
        assert edge is not None
        wait_until(lambda: len(edge.servers) == 4, "four listeners")
        judge.now += timedelta(hours=73)  # nobody joined any of them
        wait_until(lambda: not edge.servers, "the idle forming games' listeners to close")
        wait_until(lambda: any("DAIDE port given back" in str(m["Subject"]) for m in judge.outbox()
                               if m["To"] == MASTER), "the master's notice")
        listing = judge.send("someone@example.net", "LIST b1\n")
        assert "nobody joined for 72 hours" in listing and "RULE MACHINES" in listing
        again = judge.send(MASTER, "SIGNON master@b1 pw\nRULE MACHINES\n")
        assert f"port {judge.port} of the judge's host" in again  # the lowest, free again
        wait_until(lambda: list(edge.ports_of.values()) == [judge.port], "b1's listener")
        assert seconds < 5
    finally:
        judge.close()


def test_a_terminated_forming_game_closes_its_listener_and_the_next_game_gets_the_port(
        judge: SmtpMachineJudge, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    judge.send(MASTER, "CREATE g1 masterpw\nRULE MACHINES\nFORM\n")
    edge = judge.daemon.daide
    assert edge is not None
    wait_until(lambda: edge.servers, "g1's listener")

    async def bot_then_terminate() -> list[Message]:
        bot = await _bot(judge.port, "early")
        await asyncio.to_thread(judge.send, MASTER, "SIGNON master@g1 masterpw\nTERMINATE\n")
        heard: list[Message] = []
        try:
            while True:
                heard.append(await bot.receive(10))
        except ConnectionClosed:
            return heard
    assert asyncio.run(bot_then_terminate())[-1] == ("OFF",)
    judge.send(MASTER, "CREATE g2 masterpw\nRULE MACHINES\nFORM\n")
    g2 = _game_id(judge, "g2")
    wait_until(lambda: edge.ports_of.get(g2) == judge.port, "g2 served on the port g1 gave back")

    async def next_bot() -> None:
        await (await _bot(judge.port, "next")).close()
    asyncio.run(next_bot())
    assert "has not started yet" not in caplog.text and "cannot listen" not in caplog.text
    listing, latency = _timed_mail(judge, "someone@example.net", "LIST g2\n")
    assert listing.count(f"port {judge.port}") == 1 and latency < 2.0


def test_a_game_failing_at_every_look_never_stops_the_edge_for_the_others(
        judge: SmtpMachineJudge, monkeypatch: pytest.MonkeyPatch) -> None:
    judge.send(MASTER, "CREATE bad masterpw\nRULE MACHINES\nFORM\n")
    edge = judge.daemon.daide
    assert edge is not None
    wait_until(lambda: edge.servers, "bad's listener")
    bad = _game_id(judge, "bad")
    refresh = StoreHost.refresh

    def failing(host: StoreHost) -> None:
        if host.game_id == bad:
            raise RuntimeError("this game's rows cannot be read")
        refresh(host)
    monkeypatch.setattr(StoreHost, "refresh", failing)
    judge.send(MASTER, "SIGNON master@bad masterpw\nRULE !MACHINES\n")  # frees the only port, once closed
    wait_until(lambda: not edge.servers, "bad's listener to close though it fails")
    judge.send("other@example.net", "CREATE good masterpw\nRULE MACHINES\nFORM\n")
    good = _game_id(judge, "good")
    wait_until(lambda: edge.ports_of.get(good) == judge.port, "good's listener")
    assert _timed_mail(judge, "someone@example.net", "LIST good\n")[1] < 2.0
