"""The web archive: writing a phase's pages, page weight, the index of many games, serving.

    python -m benchmarks.web_bench [--games 10000] [--phases 20] [--seconds 5] [--players 10000]

On a SQLite file in a scratch folder: one standard game played by RandomBot (seed 1) for
``--phases`` phases, stored as the judge stores them (positions, orders, results, a list
mail per phase), then ``--games`` more games (forming and running rows).  Measured:

1. a phase's pages: a new phase record and its results mail added, then ``refresh``, which
   draws the phase's board, rewrites the game's pages, feed and mbox, and the index page
   that lists the game (the goal: under 200 ms), median of 5, wall and CPU time;
2. what a reader downloads for the game page with its first picture (page, picture, style
   sheet, script, icon; the goal: under 300 KB);
3. the index of all the games, written from the store (the goal: 10,000 in under 10 s), and
   the poll that finds nothing changed (what ``judge serve`` does every ``poll_seconds``);
4. the built-in server answering cached pages (the goal: 200 requests/s): ``wrk`` (Debian's)
   on loopback when installed, else a Python client with keep-alive connections; the CPU
   time of this process (the server's threads) per request;
5. the registered players' pages (issue 31) with ``--players`` players (benchmarks/registry_bench.py's
   population: two addresses each, their records public): every page written (``judge web
   build``, and what every change cost before the pages were kept by content), then one
   rating added and the refresh that follows it, side by side in this run: its time and
   the pages it wrote.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Sequence

from adjudicator import api
from adjudicator.jsonio import position_to_json
from bot.randombot import RandomBot
from judge.config import WebSettings
from judge.lifecycle import ACTIVE, FORMING
from judge.store.engine import Store
from judge.store.models_game import PLAYER, Game, Membership, PhaseRecord
from judge.store.models_standing import RatingEntry
from judge.store.models_web import ListMail
from judge.store.queries import variant_named
from judge.store.schema import upgrade
from judge.web.build import Archive
from judge.web.index import write_index
from judge.web.players import write_players
from judge.web.server import ArchiveServer

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
HASH = "scrypt$256$8$1$00$00"


def _phases(count: int) -> list[dict[str, Any]]:
    """``count`` phases of a RandomBot game: position before and after, orders, results."""
    variant = variant_named("standard")
    position = api.initial_position(variant)
    bot = RandomBot(seed=1)
    found = []
    for _ in range(count):
        board = api.prepare(variant, position)
        orders = {power: api.parse_orders(board, power, [o.canonical() for o in bot.orders(board, power)])
                  for power in api.requirements(board)}
        done = api.adjudicate(board, orders)
        found.append({
            "phase": str(position.phase), "position_before": position_to_json(position, "standard"),
            "orders": {p: list(o.canonical) for p, o in sorted(orders.items())},
            "results": [{"power": r.power, "order": r.order, "result": r.result, "reason": r.reason}
                        for r in done.results],
            "position_after": position_to_json(done.position, "standard"),
            "digest": api.position_digest(done.position)})
        position = done.position
    return found


def _results_mail(game: str, phase: dict[str, Any]) -> bytes:
    lines = [f"{r['power']}: {r['order']} {r['result']}" for r in phase["results"]]
    return (f"From: judge@example.org\nTo: judge@example.org\nSubject: {game} {phase['phase']} results\n"
            "Content-Type: text/plain; charset=utf-8\n\n" + "\n".join(lines) + "\n").encode()


def _add_phase(store: Store, game_id: int, phase: dict[str, Any], at: datetime) -> None:
    with store.unit_of_work() as session:
        session.add(PhaseRecord(game_id=game_id, processed_at=at, **phase))
        session.add(ListMail(game_id=game_id, kind="results", subject=f"g0 {phase['phase']} results",
                             raw=_results_mail("g0", phase), sent_at=at))
        game = session.get(Game, game_id)
        assert game is not None
        game.phase = phase["position_after"]["phase"]
        game.position = phase["position_after"]


def _seed(store: Store, phases: list[dict[str, Any]], played: int, games: int) -> int:
    variant = variant_named("standard")
    with store.unit_of_work() as session:
        game = Game(name="g0", master_password_hash=HASH, status=ACTIVE, position=phases[0]["position_before"],
                    phase=phases[0]["phase"], deadline=START + timedelta(days=3), created_at=START)
        session.add(game)
        session.flush()
        for power in variant.powers:
            session.add(Membership(game_id=game.id, role=PLAYER, power=power.name, name=f"Player {power.name}",
                                   address=f"{power.name.lower()}@example.net", password_hash=HASH,
                                   joined_at=START))
        game_id = game.id
        for index in range(games):
            session.add(Game(name=f"x{index:05d}", master_password_hash=HASH,
                             status=ACTIVE if index % 3 else FORMING, phase="S1901M" if index % 3 else None,
                             deadline=START + timedelta(hours=index), created_at=START))
    for index, phase in enumerate(phases[:played]):
        _add_phase(store, game_id, phase, START + timedelta(days=index))
    return game_id


def _median_ms(samples: Sequence[float]) -> str:
    return f"{statistics.median(samples) * 1000:.0f} ms (best {min(samples) * 1000:.0f})"


class _Timer:
    """Wall and CPU time of a block (this process's CPU, every thread)."""

    def __enter__(self) -> "_Timer":
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu

    def __str__(self) -> str:
        return f"{self.wall:.2f} s (CPU {self.cpu:.2f} s)"


def _serve(root: Path, seconds: int) -> str:
    server = ArchiveServer(root, WebSettings(port=0, requests_per_minute=10**9, connections_per_address=64))
    server.start()
    try:
        url = f"http://127.0.0.1:{server.port}/games/g0/index.html"
        if shutil.which("wrk"):
            cpu = time.process_time()
            done = subprocess.run(["wrk", "-t1", "-c8", f"-d{seconds}s", url], capture_output=True, text=True,
                                  check=True)
            cpu = time.process_time() - cpu
            line = next(ln for ln in done.stdout.splitlines() if ln.startswith("Requests/sec"))
            rate = float(line.split()[-1])
            return (f"wrk -t1 -c8: {rate:.0f} requests/s; the server's CPU "
                    f"{cpu / max(1.0, rate * seconds) * 1000:.2f} ms per request ({cpu:.1f} s in {seconds} s)")
        import http.client

        connection = http.client.HTTPConnection("127.0.0.1", server.port)
        count, ends = 0, time.perf_counter() + seconds
        while time.perf_counter() < ends:
            connection.request("GET", "/games/g0/index.html")
            connection.getresponse().read()
            count += 1
        return f"one Python keep-alive client: {count / seconds:.0f} requests/s"
    finally:
        server.stop()


def _registry(store: Store, archive: Archive, game_id: int, players: int) -> None:
    from benchmarks.registry_bench import populate

    populate(store, players, START)
    with store.sessions() as session, session.begin(), _Timer() as everything:
        written = write_players(session, archive.files, everything=True)[0]
    print(f"registered players' pages, every one written ({players} players): {everything}, {len(written)} files, "
          f"{len(list(archive.files.path('players/pages').iterdir())) + 1} index pages")
    with store.unit_of_work() as session:  # one player's game rated
        session.add(RatingEntry(seq=1, player="P00010", pool="press", game_id=game_id, game_name="g0",
                                result="draw", mu=27.0, sigma=7.0, rating=6.0, rated_at=START))
    with store.sessions() as session, session.begin(), _Timer() as one:
        written = write_players(session, archive.files)[0]
    assert sorted(written) == ["players/P00010.html", "ratings.html"], written
    with store.sessions() as session, session.begin(), _Timer() as idle:
        assert write_players(session, archive.files)[0] == []
    print(f"after one rating: {one}, files written: {', '.join(sorted(written))}; "
          f"nothing changed: {idle.wall * 1000:.0f} ms")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.web_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games in the index (default 10000)")
    parser.add_argument("--phases", type=int, default=20, help="phases of the measured game (default 20)")
    parser.add_argument("--seconds", type=int, default=5, help="seconds of serving (default 5)")
    parser.add_argument("--players", type=int, default=10_000, help="registered players (default 10000; 0: skip)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as scratch:
        store = Store(f"sqlite:///{scratch}/judge.db")
        upgrade(store.engine)
        repeat = 5
        phases = _phases(args.phases + repeat)
        game_id = _seed(store, phases, args.phases, args.games)
        root = Path(scratch) / "web"
        archive = Archive(store, root, "example.org")
        with _Timer() as whole:
            archive.rebuild()
        print(f"whole archive ({args.games + 1} games, {args.phases} phases drawn): {whole}")
        refresh, refresh_cpu = [], []
        for index in range(repeat):
            _add_phase(store, game_id, phases[args.phases + index], START + timedelta(days=args.phases + index))
            with _Timer() as timed:
                report = archive.refresh()
            refresh.append(timed.wall)
            refresh_cpu.append(timed.cpu)
            assert report.games == ["g0"] and report.index == ["index.html"], report
        print(f"a phase's pages (draw, game pages, feed, mbox, the index page listing it; {args.games + 1} games): "
              f"{_median_ms(refresh)}, CPU {_median_ms(refresh_cpu)}")
        folder = root / "games" / "g0"
        latest = sorted((folder / "img").glob("*.svg"), key=lambda p: p.stat().st_mtime)[-1]
        weight = {name: path.stat().st_size for name, path in (
            ("page", folder / "index.html"), ("picture", latest), ("css", root / "static" / "site.css"),
            ("js", root / "static" / "site.js"), ("icon", root / "static" / "favicon.svg"))}
        print(f"game page with its first picture: {sum(weight.values()) / 1000:.1f} kB ({weight})")
        with store.sessions() as session, _Timer() as index_time:
            written = write_index(session, archive.files, START, None)
        with _Timer() as poll_time:
            assert archive.refresh().games == []
        print(f"index of {args.games + 1} games from the store: {index_time}, {len(written)} pages, index.html "
              f"{(root / 'index.html').stat().st_size / 1e3:.0f} kB; the poll finding nothing changed: "
              f"{poll_time.wall * 1000:.0f} ms (CPU {poll_time.cpu * 1000:.0f} ms)")
        print(f"serving the cached game page: {_serve(root, args.seconds)}")
        if args.players:
            _registry(store, archive, game_id, args.players)
        store.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
