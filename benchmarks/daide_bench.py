"""DAIDE servers under machine players: phase latency and memory per connection.

    python -m benchmarks.daide_bench [--phases N] [--connections N] [--servers judge,local,peer]

Latency: seven clients (ours, ``daide.client``) take the seven seats of one game; in every
phase each holds its units (``SUB`` then ``GOF``), so no unit ever moves and every phase is
a movement phase.  Six clients submit and are answered first; timed: from the moment the
seventh client's ``SUB`` is written (followed by ``GOF`` for the peer, which waits for it) to
the moment all seven have read the next phase's ``NOW``; the median, 95th percentile and worst
of ``--phases`` phases are printed per server.  Servers, in one run:

* ``judge``: the judge's DAIDE edge (judge/edge/daide) on a SQLite file in a temporary folder
  (RULE MACHINES game made by mail through the worker), processing by a scheduler pass;
* ``local``: ``daide.local.LocalGame`` behind the same ``daide.server.GameServer`` (no store);
* ``peer``: the DAIDE server of MILA's ``diplomacy`` 1.1.2 (the bench extra), in a process of
  its own, when installed.

Memory: ``--connections`` clients (in a child process, so that only the server's memory is
counted) connect to the judge's edge, take the seats of games of seven (the last game may
stay forming) and wait; the judge process's resident set size (VmRSS) is read before the
games exist and once every client is seated.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable

from daide.client import ConnectionClosed, DaideClient
from daide.messages import Message

if TYPE_CHECKING:
    from judge.edge.daide import DaideEdge


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# -- a judge with machine games ---------------------------------------------------------

class Judge:
    """A judge on a SQLite file with games made by mail and its DAIDE edge running."""

    def __init__(self, folder: Path, port_range: str) -> None:
        from judge.config import DaideSettings, JudgeSettings, Settings
        from judge.commands import process_mail
        from judge.store.engine import Store
        from judge.store.schema import upgrade
        from judge.daemon.worker import Worker

        self.judge = JudgeSettings(address="judge@example.org", domain="example.org", name="Bench Judge",
                                   create_per_day=0)  # one master makes every game here
        self.store = Store(f"sqlite:///{folder / 'judge.db'}")
        upgrade(self.store.engine)
        self.settings = Settings(judge=self.judge, daide=DaideSettings(host="127.0.0.1", port_range=port_range,
                                                                       poll_seconds=0.1))
        self.worker = Worker(self.store, self.judge, process_mail)
        self.edge: DaideEdge | None = None

    def create(self, name: str) -> None:
        from email.message import EmailMessage
        from email.utils import make_msgid

        from judge.store.inbound import store_inbound

        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = "gm@example.net", self.judge.address, "create"
        mail["Message-ID"] = make_msgid(domain="example.net")
        mail.set_content(f"CREATE {name} masterpw\nRULE MACHINES\nTIMING MOVE 1H RETREAT 1H BUILD 1H\nFORM\n")
        raw = mail.as_bytes()
        store_inbound(self.store, raw, mail_from="gm@example.net", rcpt_to=[self.judge.address], source="smtp",
                      now=datetime.now(timezone.utc))
        self.worker.process_pending()

    def start_edge(self, games: int) -> dict[int, int]:
        from judge.edge.daide import DaideEdge
        from judge.edge.scheduler import run_pass

        self.edge = edge = DaideEdge(self.store, self.settings, run_pass)
        edge.start()
        deadline = time.monotonic() + 20
        while len(edge.servers) < games:
            if time.monotonic() > deadline:
                raise RuntimeError("the DAIDE edge did not open the games' ports")
            time.sleep(0.05)
        return dict(edge.ports_of)

    def close(self) -> None:
        if self.edge is not None:
            self.edge.stop()
        self.store.dispose()


# -- the clients -------------------------------------------------------------------------

async def seat(port: int, name: str) -> DaideClient:
    client = await DaideClient.connect("127.0.0.1", port)
    await client.send(f'NME ("{name}") ("bench")')
    answer = await client.receive(30)
    if answer[0] != "YES":
        raise RuntimeError(f"seat refused: {answer}")
    await client.receive(30)  # MAP
    await client.send('YES (MAP ("standard"))')
    return client


async def next_now(client: DaideClient) -> tuple[Message, str]:
    """The next NOW, and the client's power (from HLO when it comes first)."""
    power = getattr(client, "power", "")
    while True:
        message = await client.receive(60)
        if message[0] == "HLO":
            power = message[1][0]
            client.power = power  # type: ignore[attr-defined]
        if message[0] == "NOW":
            return message, power


def holds(now: Message, power: str) -> str:
    units = [u for u in now[2:] if u[0] == power]
    orders = " ".join(f"(({u[0]} {u[1]} {_where(u[2])}) HLD)" for u in units)
    return f"SUB {orders}" if orders else ""


def _where(element) -> str:
    return element if isinstance(element, str) else f"({element[0]} {element[1]})"


async def latency(port: int, phases: int, *, gof: bool = False) -> list[float]:
    """Per phase: the time from the seventh client's last message to everyone's next NOW.
    ``gof``: every client follows its SUB with GOF (the peer waits for it; ours process a
    complete order set without one, as bots never send it)."""
    clients = [await seat(port, f"holder{i}") for i in range(7)]
    nows = await asyncio.gather(*(next_now(c) for c in clients))
    timings = []
    for _ in range(phases):
        pairs = list(zip(clients, nows))
        for client, (now, power) in pairs[:-1]:  # six submit first, and are answered
            await submit(client, now, power, gof)
            await answered(client, gof)
        last, (now, power) = pairs[-1]
        start = time.perf_counter()
        await submit(last, now, power, gof)  # the last SUB of the phase
        nows = await asyncio.gather(*(next_now(c) for c in clients))
        timings.append(time.perf_counter() - start)
    for client in clients:
        await client.close()
    return timings


async def submit(client: DaideClient, now: Message, power: str, gof: bool) -> None:
    await client.send(holds(now, power))
    if gof:
        await client.send("GOF")


async def answered(client: DaideClient, gof: bool) -> None:
    """Read up to the server's last answer to a SUB (MIS) or SUB and GOF (YES (GOF))."""
    last = ("YES", ("GOF",)) if gof else None
    while True:
        message = await client.receive(60)
        if (last is not None and message == last) or (last is None and message[0] == "MIS"):
            return


def summary(name: str, timings: list[float]) -> dict[str, float | str]:
    ms = sorted(t * 1000 for t in timings)
    return {"server": name, "phases": len(ms), "median_ms": round(statistics.median(ms), 1),
            "p95_ms": round(ms[max(0, int(len(ms) * 0.95) - 1)], 1), "max_ms": round(ms[-1], 1)}


# -- the servers -------------------------------------------------------------------------

def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def judge_latency(phases: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        port = _free_port()
        judge = Judge(Path(folder), f"{port}-{port}")
        try:
            judge.create("bench")
            judge.start_edge(1)
            return summary("judge (SQLite, DAIDE edge)", asyncio.run(latency(port, phases)))
        finally:
            judge.close()


def local_latency(phases: int) -> dict:
    import maps
    from daide.local import LocalGame
    from daide.server import GameServer

    async def main() -> list[float]:
        server = GameServer(LocalGame(maps.load("standard")))
        port = await server.start("127.0.0.1", 0)
        try:
            return await latency(port, phases)
        finally:
            await server.close()
    return summary("daide.local.LocalGame", asyncio.run(main()))


PEER_SCRIPT = textwrap.dedent("""
    import sys
    from tornado import gen
    from tornado.ioloop import IOLoop
    from diplomacy import Server
    from diplomacy.server.server_game import ServerGame
    server = Server()
    io_loop = IOLoop()
    io_loop.make_current()
    @gen.coroutine
    def main():
        server.start(port=int(sys.argv[1]))
        game = ServerGame(map_name="standard", n_controls=7, rules=["NO_PRESS", "IGNORE_ERRORS", "POWER_CHOICE"],
                          server=server)
        server.add_new_game(game)
        port = server.start_new_daide_server(game.game_id)
        if port is None:  # adding the game started its DAIDE server already
            port = next(p for p, d in server.daide_servers.items() if d.game_id == game.game_id)
        print("DAIDE-PORT", port, flush=True)
    io_loop.add_callback(main)
    io_loop.start()
""")


def peer_latency(phases: int) -> dict | None:
    try:
        import diplomacy  # noqa: F401
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen([sys.executable, "-c", PEER_SCRIPT, str(_free_port())], cwd=folder,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            line = ""
            while not line.startswith("DAIDE-PORT"):  # the peer prints its own progress first
                line = process.stdout.readline()  # type: ignore[union-attr]
                if not line:
                    raise RuntimeError("the peer's server did not start")
            port = int(line.split()[1])
            return summary("peer: diplomacy 1.1.2 DAIDE server", asyncio.run(latency(port, phases, gof=True)))
        finally:
            process.kill()
            process.wait()


# -- memory ------------------------------------------------------------------------------

CLIENTS_SCRIPT = textwrap.dedent("""
    import asyncio, json, sys
    from benchmarks.daide_bench import seat
    from daide.client import DaideClient
    async def main():
        ports = json.loads(sys.argv[1])
        count = int(sys.argv[2])
        clients = []
        for n in range(count):
            port = ports[min(n // 7, len(ports) - 1)]
            clients.append(await seat(port, f"m{n}"))
        print("seated", flush=True)
        sys.stdin.readline()
        for c in clients:
            await c.close()
    asyncio.run(main())
""")


def judge_memory(connections: int) -> dict:
    games = (connections + 6) // 7
    with tempfile.TemporaryDirectory() as folder:
        first = _free_port()
        judge = Judge(Path(folder), f"{first}-{first + games + 20}")
        try:
            before_games = rss_mb()
            for n in range(games):
                judge.create(f"mem{n}")
            ports = judge.start_edge(games)
            before = rss_mb()
            child = subprocess.Popen([sys.executable, "-c", CLIENTS_SCRIPT, json.dumps(sorted(ports.values())),
                                      str(connections)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
            assert child.stdout is not None and child.stdout.readline().strip() == "seated"
            time.sleep(2 * judge.settings.daide.poll_seconds + 1)  # the games started, the edge looked again
            after = rss_mb()
            child.communicate("\n", timeout=60)
            return {"connections": connections, "games": games, "rss_before_games_mb": round(before_games, 1),
                    "rss_before_mb": round(before, 1), "rss_after_mb": round(after, 1),
                    "added_mb": round(after - before, 1)}
        finally:
            judge.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phases", type=int, default=20, help="phases timed per server (default 20)")
    parser.add_argument("--connections", type=int, default=100, help="connections for the memory figure (default 100)")
    parser.add_argument("--servers", default="judge,local,peer", help="which latency runs (default judge,local,peer)")
    args = parser.parse_args(argv)
    print(f"# {platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs")
    runs: dict[str, Callable[[int], dict | None]] = {"judge": judge_latency, "local": local_latency,
                                                     "peer": peer_latency}
    for name in filter(None, args.servers.split(",")):
        result = runs[name.strip()](args.phases)
        print(json.dumps(result if result is not None else {"server": name, "skipped": "not installed"}))
    if args.connections:
        print(json.dumps(judge_memory(args.connections)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
