"""Games played by mail through the real worker and scheduler, for the web archive tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from judge.config import WebSettings
from judge.web.build import Archive
from judge.web.server import ArchiveServer
from tests.judge.scheduler.conftest import judge  # noqa: F401  (the commands' harness with scheduler passes)
from tests.judge.scheduler.driver import HOLDS, TurnHarness
from tests.judge.commands.harness import player
from tests.judge.registry.test_registry_rules import register
from tests.judge.commands.conftest import create_game, fill_game  # noqa: F401

# Retreat-free, build-free moves for the first year, then holds.
OPENING = {**HOLDS, "FRANCE": ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"],
           "RUSSIA": ["A MOS - UKR", "A WAR - GAL", "F SEV - BLA", "F STP/SC - BOT"]}


def password(index: int) -> str:
    """Players' passwords long enough that finding one in a file is no accident."""
    return f"Zq{index}secretword"


def play(judge: TurnHarness, name: str, *, rules: tuple[str, ...] = (), phases: int = 2,
         names: tuple[str, ...] = ()) -> None:
    """Create ``name`` (with ``rules``), seat seven players (``names``: the display names of
    their From lines), and play ``phases`` phases by mail, each processed by the scheduler's
    pass."""
    create_game(judge, *(f"RULE {rule}" for rule in rules), name=name)
    seats = fill_game(judge, name, names=names, password=password)
    for number in range(phases):
        before = judge.game(name)
        for power, seat in seats.items():
            lines = [f"{unit} H" for unit in before["position"]["units"].get(power, [])] if number else OPENING[power]
            judge.orders(seat, lines)
        for _ in range(3):  # the settle window, then the processing pass
            judge.advance(days=2)
            judge.tick()
            if judge.game(name)["phase"] != before["phase"]:
                break


@dataclass(frozen=True)
class Served:
    """Games played into a store, their archive built under ``root`` and served."""

    judge: TurnHarness
    root: Path
    url: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """g1 played for three phases (a year; player0 registered as Anna), a forming game, a private
    game; archive built and served."""
    directory = tmp_path_factory.mktemp("served")
    harness = TurnHarness(directory)
    try:
        register(harness, player(0), "Anna", lines="COUNTRY Finland\nPUBLIC country record\nEND\n")
        play(harness, "g1", phases=3)
        create_game(harness, name="forming1")
        create_game(harness, "PRIVATE secretword", name="hidden1")
        root = directory / "web"
        Archive(harness.store, root, "judge.example.org").rebuild()
        server = ArchiveServer(root, WebSettings(port=0))
        server.start()
        try:
            yield Served(harness, root, f"http://127.0.0.1:{server.port}")
        finally:
            server.stop()
    finally:
        harness.close()
