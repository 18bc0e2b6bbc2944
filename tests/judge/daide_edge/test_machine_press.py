"""Press between machines and humans in one game (issue 26 item 3): the judge's daemon with
its real SMTP listener and DAIDE edge, two machines speaking press over TCP, a real DumbBot
(which reads no press and must keep playing) and four players by mail."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import select

from daide.client import DaideClient
from daide.messages import Message, to_text
from judge.store.models_game import Membership, PressLog
from tests.judge.daide_edge.machines import MachineJudge, bot_path, wait_until
from tests.judge.daide_edge.smtp_judge import SmtpMachineJudge
from tests.judge.commands.conftest import MASTER
from tests.fixtures.ports import wait_for_port

TOKENS = {"AUSTRIA": "AUS", "ENGLAND": "ENG", "FRANCE": "FRA", "GERMANY": "GER", "ITALY": "ITA",
          "RUSSIA": "RUS", "TURKEY": "TUR"}


async def _seated(port: int, name: str) -> DaideClient:
    await asyncio.to_thread(wait_for_port, port, timeout=20)  # the edge opens a new game's port at its next look
    client = await DaideClient.connect("127.0.0.1", port)
    await client.send(f'NME ("{name}") ("v1")')
    assert (await client.receive(10))[0] == "YES"
    await client.receive(10)  # MAP
    await client.send('YES (MAP ("standard"))')
    return client


async def _until(client: DaideClient, head: str, timeout: float = 30) -> Message:
    while True:
        message = await client.receive(timeout)
        if to_text(message).startswith(head):
            return message


def test_machines_and_players_by_mail_talk_in_one_game(tmp_path: Path) -> None:
    bot_path("dumbbot")
    judge = SmtpMachineJudge(tmp_path)
    humans = {f"human{i}@example.net": f"pw{i}" for i in range(4)}

    async def scenario() -> None:
        created = await asyncio.to_thread(judge.send, MASTER,
                                          "CREATE g1 masterpw\nRULE MACHINES\nRULE PRESS_LEVEL 30\nFORM\n")
        assert "rule PRESS_LEVEL 30" in created and "ERROR" not in created
        alice, bob = await _seated(judge.port, "alice"), await _seated(judge.port, "bob")
        for address, password in humans.items():
            assert "ERROR" not in await asyncio.to_thread(judge.send, address, f"JOIN g1 {password}\n")
        dumbbot = judge.start_bot("dumbbot")
        a = (await _until(alice, "HLO"))[1][0]
        b = (await _until(bob, "HLO"))[1][0]
        with judge.store.sessions() as session:
            seats = {m.address: m.power for m in session.scalars(select(Membership).where(Membership.role == "player"))}
        human, h_password = next(iter(humans.items()))
        h = TOKENS[seats[human]]
        other = next(p for a_, p in seats.items() if a_.startswith("machine3"))
        d = TOKENS[other]
        assert "(LVL 30)" in to_text(await _hello(alice))

        # a machine proposes peace to a machine and a player: YES, FRM to the machine, a mail to the player
        await alice.send(f"SND ({b} {h}) (PRP (PCE ({a} {b} {h})))")
        assert to_text(await _until(alice, "YES")) == f"YES (SND ({b} {h}) (PRP (PCE ({a} {b} {h}))))"
        assert to_text(await _until(bob, "FRM")) == f"FRM ({a}) ({b} {h}) (PRP (PCE ({a} {b} {h})))"
        mail = await asyncio.to_thread(_mail_to, judge, human, "press from")
        assert f"proposes peace between" in mail and f"DAIDE: PRP (PCE ({a} {b} {h}))" in mail
        assert "ACCEPT" in mail

        # the player answers in English and in DAIDE; a line that cannot be read is quoted
        sender_power = seats[human].lower()
        a_power = next(p for p, t in TOKENS.items() if t == a)
        reply = await asyncio.to_thread(judge.send, human, (
            f"SIGNON {sender_power}@g1 {h_password}\nPRESS TO {a_power}\nGood to hear from you.\nACCEPT\n"
            f"PROPOSE DMZ BUR\nPROPOSE NONSENSE\nFCT (PCE ({h} {a}))\nENDPRESS\n"))
        assert f"press sent to {a_power}" in reply
        assert "nobody" not in reply and "machine" not in reply.split("PROPOSE NONSENSE")[0]
        assert "PROPOSE NONSENSE" in reply and "PROPOSE PEACE [WITH powers]" in reply
        heard = [to_text(await _until(alice, "FRM")) for _ in range(3)]
        assert heard == [f"FRM ({h}) ({a}) (YES (PRP (PCE ({a} {b} {h}))))",
                         f"FRM ({h}) ({a}) (PRP (DMZ ({h} {a}) (BUR)))",
                         f"FRM ({h}) ({a}) (FCT (PCE ({h} {a})))"]

        # a player's BROADCAST reaches every machine (the DumbBot excepted), listing every other power
        second, second_password = list(humans.items())[1]
        g = TOKENS[seats[second]]
        reply = await asyncio.to_thread(judge.send, second, (
            f"SIGNON {seats[second].lower()}@g1 {second_password}\nBROADCAST\nPROPOSE DRAW\nENDPRESS\n"))
        assert "ERROR" not in reply, reply
        others = " ".join(sorted(t for t in TOKENS.values() if t != g))
        for machine in (alice, bob):
            assert to_text(await _until(machine, "FRM")) == f"FRM ({g}) ({others}) (PRP (DRW))"

        # a machine's press to the DumbBot (the AiClient bots crash at an FRM): accepted and
        # recorded, never relayed; the DumbBot keeps playing
        await bob.send(f"SND ({d}) (PRP (ALY ({b} {d}) VSS ({a})))")
        assert to_text(await _until(bob, "YES")).startswith("YES (SND")
        await asyncio.to_thread(wait_until, lambda: any(line.startswith("<< SUB") for line in dumbbot.log()),
                                "the DumbBot's orders", 30)
        await alice.send("NOW")
        assert to_text(await _until(alice, "NOW")).startswith("NOW (SPR 1901)")
        assert dumbbot.process.poll() is None
        assert not [line for line in dumbbot.log() if line.startswith(">> FRM")]
        await alice.close()
        await bob.close()

    try:
        asyncio.run(scenario())
        with judge.store.sessions() as session:
            rows = session.scalars(select(PressLog).order_by(PressLog.id)).all()
        assert [len(r.daide or ()) for r in rows] == [1, 3, 1, 1]
        assert rows[0].body.startswith(rows[0].sender) and "DAIDE: PRP (PCE" in rows[0].body
    finally:
        judge.close()


async def _hello(client: DaideClient) -> Message:
    await client.send("HLO")
    return await _until(client, "HLO")


def _mail_to(judge: SmtpMachineJudge, address: str, subject: str) -> str:
    found: list[str] = []

    def look() -> bool:
        found[:] = [m.get_body(("plain",)).get_content() for m in judge.outbox()
                    if address in str(m["To"]) and subject in str(m["Subject"])]
        return bool(found)
    wait_until(look, f"a mail to {address} about {subject!r}", 30)
    return found[-1]


def test_the_games_press_rules_bind_machines_as_they_bind_players(tmp_path: Path) -> None:
    """PUBLIC_PRESS: a machine's press to one power is refused (REJ, the reason as ADM) and a
    press to every other power goes; NO_PRESS: HLO says LVL 0 and SND gets HUH."""
    for rules, level in ((("RULE PRESS_LEVEL 10", "RULE PUBLIC_PRESS"), 10), (("RULE PRESS_LEVEL 30", "RULE NO_PRESS"), 0)):
        folder = tmp_path / str(level)
        folder.mkdir()
        machine = MachineJudge(folder, *rules)

        async def scenario() -> None:
            bot = await _seated(machine.port, "talker")
            for index in range(6):
                await asyncio.to_thread(machine.judge.send, f"p{index}@example.net", f"JOIN g1 pw{index}\n")
            hello = await _until(bot, "HLO")
            assert ("LVL", level) in hello[3]
            me = hello[1][0]
            await _until(bot, "NOW")
            one = next(t for t in TOKENS.values() if t != me)
            await bot.send(f"SND ({one}) (PRP (DRW))")
            answer = to_text(await bot.receive(10))
            if level == 0:
                assert answer == f"HUH (SND ({one}) (ERR PRP (DRW)))"
            else:
                assert answer == f"REJ (SND ({one}) (PRP (DRW)))"
                assert "PUBLIC_PRESS" in to_text(await bot.receive(10))
                everyone = " ".join(t for t in sorted(TOKENS.values()) if t != me)
                await bot.send(f"SND ({everyone}) (PRP (DRW))")
                assert to_text(await bot.receive(10)).startswith("YES (SND")
            await bot.close()

        try:
            asyncio.run(scenario())
            with machine.judge.store.sessions() as session:
                logged = session.scalars(select(PressLog)).all()
            assert len(logged) == (1 if level else 0)
        finally:
            machine.close()
