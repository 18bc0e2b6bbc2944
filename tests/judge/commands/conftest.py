"""Fixtures for the command tests: a judge on a SQLite file, and a started game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import pytest
from sqlalchemy import select

from judge.store import passwords
from judge.store.models_game import Membership
from tests.judge.commands.harness import JudgeHarness, player

MASTER = "gm@example.net"


@pytest.fixture(autouse=True)
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real scrypt at a low cost: these tests hash dozens of passwords."""
    monkeypatch.setattr(passwords, "_N", 2**8)


@pytest.fixture
def judge(tmp_path) -> Iterator[JudgeHarness]:
    harness = JudgeHarness(tmp_path)
    yield harness
    harness.close()


@dataclass(frozen=True)
class Seat:
    power: str
    address: str
    password: str

    @property
    def signon(self) -> str:
        return f"SIGNON {self.power.lower()}@g1 {self.password}"


def create_game(judge: JudgeHarness, *status: str, name: str = "g1", form: bool = True) -> None:
    lines = [f"CREATE {name} masterpw", *status]
    if form:
        lines.append("FORM")
    reply = judge.send(MASTER, "\n".join(lines) + "\n").reply
    assert "ERROR" not in reply.body, reply.body


def fill_game(judge: JudgeHarness, name: str = "g1") -> dict[str, Seat]:
    """Seven players join; returns power -> seat."""
    for index in range(7):
        judge.send(player(index), f"JOIN {name} pw{index}\n")
    with judge.session() as session:
        rows = session.execute(select(Membership).where(Membership.role == "player")).scalars().all()
        return {m.power: Seat(m.power, m.address, "pw" + m.address[len("player")]) for m in rows}


@pytest.fixture
def started(judge: JudgeHarness) -> dict[str, Seat]:
    create_game(judge)
    return fill_game(judge)
