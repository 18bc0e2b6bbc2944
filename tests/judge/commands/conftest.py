"""Fixtures for the command tests: a judge on a SQLite file, and a started game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import pytest
from sqlalchemy import event, select

from judge.store.models_game import Game, Membership
from tests.judge.commands.harness import JudgeHarness, player
from tests.judge.storage import make_mail

MASTER = "gm@example.net"


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
    game: str = "g1"

    @property
    def signon(self) -> str:
        return f"SIGNON {self.power.lower()}@{self.game} {self.password}"


def create_game(judge: JudgeHarness, *status: str, name: str = "g1", form: bool = True) -> None:
    lines = [f"CREATE {name} masterpw", *status]
    if form:
        lines.append("FORM")
    reply = judge.send(MASTER, "\n".join(lines) + "\n").reply
    assert "ERROR" not in reply.body, reply.body


def fill_game(judge: JudgeHarness, name: str = "g1", *, names: Sequence[str] = (),
              password: Callable[[int], str] = lambda index: f"pw{index}") -> dict[str, Seat]:
    """Seven players join (``player(index)``, whose From lines carry ``names`` as display
    names where given, with ``password(index)``); returns power -> seat."""
    for index in range(7):
        shown = f'"{names[index]}" <{player(index)}>' if index < len(names) else player(index)
        judge.deliver(make_mail(subject="join", body=f"JOIN {name} {password(index)}\n", sender=shown,
                                to=judge.settings.address), player(index))
    with judge.session() as session:
        game_id = session.execute(select(Game.id).where(Game.name == name)).scalar_one()
        rows = session.execute(select(Membership).where(Membership.role == "player",
                                                        Membership.game_id == game_id)).scalars().all()
        return {m.power: Seat(m.power, m.address, password(int(m.address[len("player")])), name) for m in rows}


@pytest.fixture
def started(judge: JudgeHarness) -> dict[str, Seat]:
    create_game(judge)
    return fill_game(judge)


def statements_seen(judge: JudgeHarness, prefix: str) -> list[str]:
    """The statements the judge's store runs from now on that start with ``prefix`` (a
    list that grows as they run): how a test counts the reads a memo saves."""
    seen: list[str] = []
    event.listen(judge.store.engine, "before_cursor_execute",
                 lambda _c, _cur, statement, *_rest: seen.append(statement) if statement.startswith(prefix) else None)
    return seen
