"""A judge on a SQLite file (tests.judge.commands.harness) with its DAIDE edge running,
and real AiClient bots (../shared/peers/daide-client/bin) as machine players.

The bots are test fixtures only: a test that needs them skips, saying so, when the peers
folder is absent.  Each bot runs in a temporary folder of its own (it writes biglog.txt).
"""

from __future__ import annotations

import asyncio
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest
from sqlalchemy import select

from daide.client import ConnectionClosed, DaideClient
from daide.messages import Message, from_text
from judge.commands.daide_ports import configure_ports
from judge.config import DaideSettings, Settings
from judge.edge.daide import DaideEdge
from judge.store.models_game import Game
from judge.edge.scheduler import run_pass
from tests.fixtures.ports import free_port
from tests.fixtures.shared import shared_path
from tests.judge.commands.conftest import create_game
from tests.judge.commands.harness import JUDGE, JudgeHarness

BOTS = shared_path("peers", "daide-client", "bin") or Path("shared/peers/daide-client/bin")


def bot_path(kind: str = "dumbbot") -> Path:
    path = BOTS / kind
    if not path.is_file():
        pytest.skip(f"the AiClient bots are not here ({path} is missing: ../shared/peers is a test fixture "
                    "of the development machine)")
    return path


@dataclass
class Bot:
    process: subprocess.Popen
    folder: Path

    def log(self) -> list[str]:
        path = self.folder / "biglog.txt"
        return path.read_text(errors="replace").splitlines() if path.is_file() else []

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)


def launch_bot(port: int, kind: str = "dumbbot", *options: str) -> Bot:
    """An AiClient bot connecting to ``port`` on this host, in a temporary folder of its own."""
    folder = Path(tempfile.mkdtemp(prefix="daide-bot-"))
    process = subprocess.Popen([str(bot_path(kind)), "-i127.0.0.1", f"-p{port}", *options], cwd=folder,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Bot(process, folder)


class MachineJudge:
    """The harness judge, its edge listening on one free port, and the bots started here."""

    def __init__(self, directory: Path, *status: str) -> None:
        self.judge = JudgeHarness(directory)
        self.port = free_port()
        self.settings = Settings(judge=JUDGE, daide=DaideSettings(
            host="127.0.0.1", port_range=f"{self.port}-{self.port}", poll_seconds=0.05))
        configure_ports(self.settings.daide)  # as judge serve does: RULE MACHINES gives this port
        create_game(self.judge, "RULE MACHINES", *status)
        self.edge = DaideEdge(self.judge.store, self.settings, run_pass, clock=lambda: self.judge.now)
        self.edge.start()
        self.bots: list[Bot] = []
        wait_until(lambda: self.edge.servers, "the game's DAIDE port to open")

    def start_bot(self, kind: str = "dumbbot", *options: str) -> Bot:
        self.bots.append(launch_bot(self.port, kind, *options))
        return self.bots[-1]

    def game(self) -> Game:
        with self.judge.store.sessions() as session:
            game = session.scalars(select(Game)).one()
            session.expunge(game)
            return game

    def scheduler_pass(self) -> None:
        run_pass(self.judge.store, self.settings, self.judge.now)

    def close(self) -> None:
        for bot in self.bots:
            bot.stop()
        self.edge.stop()
        self.judge.close()
        configure_ports(DaideSettings())


def wait_until(condition: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class Watcher:
    """An observer (OBS) on its own thread, keeping every message the server sends it."""

    def __init__(self, port: int) -> None:
        self.messages: list[Message] = []
        self.closed = False
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._watch(port)), daemon=True)
        self._thread.start()
        assert self._ready.wait(10), "the observer could not connect"

    async def _watch(self, port: int) -> None:
        client = await DaideClient.connect("127.0.0.1", port)
        await client.send("OBS")
        self._ready.set()
        try:
            while True:
                self.messages.append(await client.receive())
        except ConnectionClosed:
            self.closed = True


def sent_and_thanked(bot: Bot) -> tuple[int, list[str]]:
    """(orders the bot submitted, the notes of the THX it got) from its biglog, leaving out
    a last SUB still in flight when the log was read (the bots play on meanwhile)."""
    rounds: list[tuple[int, list[str]]] = []
    for line in bot.log():
        if line.startswith("<< SUB"):
            message = from_text(line[3:])
            rounds.append((sum(1 for element in message[1:] if type(element) is tuple and element[0] not in
                               ("SPR", "SUM", "FAL", "AUT", "WIN")), []))
        elif line.startswith(">> THX") and rounds:
            rounds[-1][1].append(from_text(line[3:])[-1][0])
    if rounds and len(rounds[-1][1]) < rounds[-1][0]:
        rounds.pop()
    return sum(count for count, _ in rounds), [note for _, notes in rounds for note in notes]
