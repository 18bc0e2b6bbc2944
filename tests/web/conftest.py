"""Games played by mail through the real worker and scheduler, for the web archive tests."""

from __future__ import annotations

from typing import Iterator

import pytest
from sqlalchemy import select

from judge.store.models_game import PLAYER, Game, Membership
from tests.judge.scheduler.driver import HOLDS, TurnHarness
from tests.judge.services.conftest import cheap_scrypt, create_game  # noqa: F401
from tests.judge.services.harness import player

# Retreat-free, build-free moves for the first year, then holds.
OPENING = {**HOLDS, "FRANCE": ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"],
           "RUSSIA": ["A MOS - UKR", "A WAR - GAL", "F SEV - BLA", "F STP/SC - BOT"]}


def play(judge: TurnHarness, name: str, *, rules: tuple[str, ...] = (), phases: int = 2) -> None:
    """Create ``name`` (with ``rules``), seat seven players, and play ``phases`` movement
    phases by mail, each processed by the scheduler's pass."""
    create_game(judge, *(f"RULE {rule}" for rule in rules), name=name)
    for index in range(7):
        judge.send(player(index), f"JOIN {name} pw{index}\n")
    with judge.session() as session:
        game = session.execute(select(Game).where(Game.name == name)).scalar_one()
        seats = {m.power: m.address for m in session.scalars(
            select(Membership).where(Membership.game_id == game.id, Membership.role == PLAYER))}
    for number in range(phases):
        with judge.session() as session:
            game = session.execute(select(Game).where(Game.name == name)).scalar_one()
            units = game.position["units"]
        for power, address in seats.items():
            lines = [f"{unit} H" for unit in units.get(power, [])] if number else OPENING[power]
            password = "pw" + address[len("player")]
            judge.send(address, f"SIGNON {power.lower()}@{name} {password}\n" + "\n".join(lines) + "\n")
        for _ in range(3):  # the settle window, then the processing pass
            judge.advance(days=2)
            judge.tick()
            if judge.game(name)["phase"] != game.phase:
                break


@pytest.fixture
def judge(tmp_path) -> Iterator[TurnHarness]:
    harness = TurnHarness(tmp_path)
    yield harness
    harness.close()
