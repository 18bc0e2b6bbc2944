"""`judge bot` in the judge's own game: seven of our bots take the seats of a RULE MACHINES
game through the judge's DAIDE edge (the store behind it) and play it; their orders are
stored and processed like a player's mail."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from sqlalchemy import select

from adjudicator.types import Phase
from bot.player import Budget
from bot.search import StrategicBot
from judge.edge.daide_player import DaideBot
from judge.store.models_game import PhaseRecord
from tests.judge.daide_edge.machines import MachineJudge, wait_until


def test_seven_of_our_bots_fill_a_machines_game_and_play_it(tmp_path: Path) -> None:
    machine = MachineJudge(tmp_path)
    codes: list[int] = []

    def play() -> None:
        async def seven() -> list[int]:
            bots = [DaideBot("127.0.0.1", machine.port, StrategicBot(n, Budget(iterations=10, seconds=None),
                                                                   samples=1, modelled=0), retries=0)
                    for n in range(7)]
            return await asyncio.gather(*(bot.run() for bot in bots))
        codes.extend(asyncio.run(seven()))

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    try:
        wait_until(lambda: machine.game().status == "active", "the game to start when the seventh bot sits")
        wait_until(lambda: Phase.parse(machine.game().phase).year >= 1902, "the year 1901 played by the bots", 90)
        with machine.judge.store.sessions() as session:
            records = {r.phase: r for r in session.scalars(select(PhaseRecord))}
        assert {"S1901M", "F1901M"} <= set(records)
        spring = records["S1901M"]
        assert sorted(spring.orders) == ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
        assert all(len(lines) >= 3 for lines in spring.orders.values())  # every unit ordered, as by mail
        assert not [r for r in spring.results if r["result"] == "void"]
    finally:
        machine.close()
        thread.join(30)
    assert not thread.is_alive()
    assert codes and all(code in (0, 3) for code in codes)  # OFF, or the edge gone without a word
