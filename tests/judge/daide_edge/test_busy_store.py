"""The DAIDE edge while its store is busy (judge/edge/daide/offload.py): a long write
transaction, as the mail worker's, holds SQLite's write turn; over real TCP, a seated bot's
MAP, MDF and HLO and a newcomer's RM and OBS are answered at once, a flood of NMEs waits
(each flooder's later commands unanswered, nothing queued beyond one call a connection),
and every waiting NME is answered in order once the transaction ends.  A bot that hangs up
while its command waits for the store is known gone at once: its successor's IAM is not
refused for a live connection, and the host counts the power connected after both calls."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from daide.client import DaideClient
from judge.store.engine import Store
from tests.judge.daide_edge.machines import MachineJudge, wait_until
from tests.judge.daide_edge.test_draws import _seven

#: An answer that needs no store comes within this, however long the store is busy.
PROMPT = 1.0
FLOOD = 12
BUSY_SECONDS = 3.0


async def _timed(client: DaideClient, message: str) -> tuple[str, float]:
    started = time.monotonic()
    await client.send(message)
    answer = await client.receive_text(timeout=PROMPT * 5)
    return answer, time.monotonic() - started


async def _busy_store_scenario(store: Store, port: int, machine: MachineJudge) -> None:
    honest = await DaideClient.connect("127.0.0.1", port)
    await honest.send('NME ("honest") ("v1")')
    assert (await honest.receive_text(timeout=10)).startswith("YES (NME")
    assert (await honest.receive_text(timeout=10)).startswith("MAP")
    await honest.send('YES (MAP ("STANDARD"))')

    held = store.unit_of_work()  # the worker's long write transaction
    held.__enter__()
    released_at = None
    try:
        flood = [await DaideClient.connect("127.0.0.1", port) for _ in range(FLOOD)]
        for number, client in enumerate(flood):
            await client.send(f'NME ("flood{number}") ("v1")')
            await client.send("MDF")  # answered only after its NME: the flooder waits, not the judge
        await asyncio.sleep(0.5)  # every NME now waits for the store
        for message, expected in (("MAP", "MAP"), ("MDF", "MDF"), ("HLO", "REJ (HLO")):
            answer, seconds = await _timed(honest, message)
            assert answer.startswith(expected) and seconds < PROMPT, (message, answer, seconds)
        started = time.monotonic()
        newcomer = await DaideClient.connect("127.0.0.1", port)  # its RM
        answer, _ = await _timed(newcomer, "OBS")
        assert answer.startswith("YES (OBS") and time.monotonic() - started < PROMPT, answer
        assert (await newcomer.receive_text(timeout=PROMPT)).startswith("MAP")
        for client in flood:  # nothing yet: each NME still waits for the store
            try:
                unexpected = await client.receive_text(timeout=0.05)
            except asyncio.TimeoutError:
                continue
            raise AssertionError(f"a flooder was answered while the store was busy: {unexpected}")
        waiting = machine.edge.store_calls.most_pending
        assert waiting <= FLOOD + 2, f"{waiting} store calls queued for {FLOOD + 2} connections and one look"
        await asyncio.sleep(max(0.0, BUSY_SECONDS - 0.5 - (time.monotonic() - started)))
    finally:
        held.__exit__(None, None, None)
        released_at = time.monotonic()

    seated = 1
    for client in flood:  # in order: the answer to NME, then (YES) the map, then MDF
        first = await client.receive_text(timeout=30)
        if first.startswith("YES (NME"):
            seated += 1
            assert (await client.receive_text(timeout=10)).startswith("MAP")
        else:
            assert first.startswith("REJ (NME"), first  # the seven powers are taken
        assert (await client.receive_text(timeout=10)).startswith("MDF")
    assert seated == 7
    assert time.monotonic() - released_at < 30
    for client in (honest, newcomer, *flood):
        await client.close()


def test_a_busy_store_delays_only_the_commands_that_need_it(tmp_path: Path) -> None:
    machine = MachineJudge(tmp_path)
    try:
        asyncio.run(_busy_store_scenario(machine.judge.store, machine.port, machine))
    finally:
        machine.close()


async def _hang_up_while_waiting(machine: MachineJudge) -> tuple[str, tuple[str, str] | None]:
    """The successor's answer, and what the host says of reaching AUSTRIA afterwards."""
    seated = await _seven(machine.port)
    victim = seated["AUS"]
    await victim.send("HLO")
    while (hello := await victim.receive(10))[0] != "HLO":
        pass
    passcode = hello[2][0]
    held = machine.judge.store.unit_of_work()
    held.__enter__()
    try:
        await victim.send("GOF")  # its SET NOWAIT waits for the store
        await asyncio.sleep(0.5)
        victim._writer.transport.abort()  # killed: a reset, no goodbye
        await asyncio.sleep(0.2)
        successor = await DaideClient.connect("127.0.0.1", machine.port)
        await successor.send(f"IAM (AUS) ({passcode})")
        try:  # a refusal needs no store: it would come now
            early = await successor.receive_text(timeout=PROMPT)
            raise AssertionError(f"the IAM was answered while the store was busy: {early}")
        except asyncio.TimeoutError:
            pass
    finally:
        held.__exit__(None, None, None)
    answer = await successor.receive_text(timeout=30)
    (game_id, server), = machine.edge.servers.items()
    await asyncio.to_thread(wait_until, lambda: len(server.connections) == 7 and machine.edge.store_calls.pending == 0,
                            "the killed bot's connection to be gone", 30)
    reach = await asyncio.to_thread(machine.edge.hosts[game_id].unreachable, frozenset({"AUSTRIA"}))
    for client in (*seated.values(), successor):
        if client is not victim:
            await client.close()
    return answer, reach


def test_a_bot_that_hangs_up_while_the_store_is_busy_is_replaced_by_its_iam(tmp_path: Path) -> None:
    machine = MachineJudge(tmp_path)
    try:
        answer, reach = asyncio.run(_hang_up_while_waiting(machine))
        assert answer.startswith("YES (IAM (AUS)"), answer
        assert reach is None  # connected: the predecessor's leaving did not undo the successor's coming back
    finally:
        machine.close()
