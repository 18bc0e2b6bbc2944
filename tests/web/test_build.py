"""Building the archive from the store: what a refresh rewrites, what a change of the
game removes, and two judges writing one archive at once."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from sqlalchemy import select

from judge.config import Settings
from judge.lifecycle import ACTIVE, FORMING
from judge.store.engine import Store
from judge.store.models_game import Game, OrderSet, PhaseRecord
from judge.web.build import Archive
from judge.web import paging
from judge.web.files import ArchiveFiles
from tests.web.conftest import play


def _game(judge, name: str) -> Game:
    with judge.session() as session:
        return session.execute(select(Game).where(Game.name == name)).scalar_one()


def test_a_refresh_writes_only_what_changed(judge, tmp_path: Path) -> None:
    play(judge, "g1", phases=1)
    archive = Archive(judge.store, tmp_path / "web", "example.org")
    assert archive.rebuild().games == ["g1"]
    page = tmp_path / "web" / "games" / "g1" / "phase" / "S1901M.html"
    assert "Next" in page.read_text() and 'rel="next"' not in page.read_text()
    assert archive.refresh().games == []  # nothing changed: nothing written
    written = page.stat().st_mtime_ns
    assert _game(judge, "g1").phase == "F1901M"
    with judge.store.unit_of_work(now=judge.now) as session:  # everybody holds; the pass processes it
        game = session.execute(select(Game).where(Game.name == "g1")).scalar_one()
        for power, lines in game.position["units"].items():
            session.add(OrderSet(game_id=game.id, phase=game.phase, power=power, orders=[f"{u} H" for u in lines],
                                 submitted_at=judge.now))
    for _ in range(3):
        judge.advance(days=2)
        judge.tick()
    assert _game(judge, "g1").phase != "F1901M"
    report = archive.refresh()
    assert report.games == ["g1"] and report.index == ["index.html"]
    assert 'rel="next" href="F1901M.html"' in page.read_text()  # the predecessor gained its next link
    index = tmp_path / "web" / "index.html"
    assert "S1901M" not in index.read_text() and "F1901M" not in index.read_text()
    assert page.stat().st_mtime_ns != written
    assert (tmp_path / "web" / "games" / "g1" / "phase" / "F1901M.html").exists()


def test_a_rolled_back_phase_leaves_no_page_and_a_private_game_no_folder(judge, tmp_path: Path) -> None:
    play(judge, "g1", phases=2)
    archive = Archive(judge.store, tmp_path / "web", "example.org")
    archive.rebuild()
    folder = tmp_path / "web" / "games" / "g1"
    assert sorted(p.name for p in (folder / "phase").iterdir()) == ["F1901M.html", "S1901M.html"]
    with judge.store.unit_of_work(now=judge.now) as session:  # what ROLLBACK leaves: the later record gone
        game = session.execute(select(Game).where(Game.name == "g1")).scalar_one()
        session.delete(session.execute(select(PhaseRecord).where(
            PhaseRecord.game_id == game.id, PhaseRecord.phase == "F1901M")).scalar_one())
        game.description = "rolled back"
    archive.refresh()
    assert sorted(p.name for p in (folder / "phase").iterdir()) == ["S1901M.html"]
    assert len(list((folder / "img").iterdir())) == 1
    with judge.store.unit_of_work(now=judge.now) as session:
        session.execute(select(Game).where(Game.name == "g1")).scalar_one().private = True
    report = archive.refresh()
    assert report.removed == ["g1"] and not folder.exists()
    assert "g1" not in (tmp_path / "web" / "index.html").read_text()


def test_the_index_in_pages_rewrites_only_the_page_of_a_changed_game(judge, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(paging, "PAGE_ROWS", 2)
    with judge.store.unit_of_work(now=judge.now) as session:
        for number in range(5):
            session.add(Game(name=f"r{number}", master_password_hash="x", status=ACTIVE, phase="S1901M",
                             created_at=judge.now))
        session.add(Game(name="f0", master_password_hash="x", status=FORMING, created_at=judge.now))
    root = tmp_path / "web"
    archive = Archive(judge.store, root, "example.org")
    assert archive.rebuild().index == ["index.html", "index/running-2.html", "index/running-3.html"]
    first, second = (root / "index.html").read_text(), (root / "index" / "running-2.html").read_text()
    assert "Running (5), page 1 of 3" in first and "f0" in first and "r2" not in first
    assert 'href="../games/r2/index.html"' in second and 'href="../index.html#h-running"' in second
    with judge.store.unit_of_work(now=judge.now) as session:
        session.execute(select(Game).where(Game.name == "r3")).scalar_one().phase = "F1901M"
    report = archive.refresh()
    assert report.games == ["r3"] and report.index == ["index/running-2.html"]
    assert "F1901M" in (root / "index" / "running-2.html").read_text()
    with judge.store.unit_of_work(now=judge.now) as session:
        for game in session.scalars(select(Game).where(Game.name.in_(["r0", "r1"]))):
            game.private = True
    archive.refresh()
    assert sorted(p.name for p in (root / "index").iterdir()) == ["running-2.html"]


def _write_again(url: str, root: str, rounds: int) -> None:
    store = Store(url)
    try:
        archive = Archive(store, Path(root), "example.org")
        for _ in range(rounds):
            archive.rebuild()
    finally:
        store.dispose()


def test_two_judges_write_one_archive_without_tearing_it(judge, tmp_path: Path) -> None:
    play(judge, "g1", phases=1)
    root = tmp_path / "web"
    Archive(judge.store, root, "example.org").rebuild()
    expected = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()
                and p.name not in (".lock", ".built.json", ".index.json", "index.html")}
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_write_again, args=(judge.store.url, str(root), 4)) for _ in range(2)]
    for writer in writers:
        writer.start()
    seen = 0
    while any(writer.is_alive() for writer in writers):  # a reader meanwhile: every file whole, every time
        for relative, data in expected.items():
            if relative.suffix in (".html", ".atom", ".svg", ".mbox"):
                assert (root / relative).read_bytes() == data
                seen += 1
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert seen
    assert not [p for p in root.rglob(".partial-*")]
    assert ArchiveFiles(root).read_state()


def test_judge_web_build_writes_the_archive(judge, tmp_path: Path, monkeypatch) -> None:
    from judge.cli import main

    play(judge, "g1", phases=1)
    monkeypatch.setenv("JUDGE_STORE_URL", judge.store.url)
    monkeypatch.setenv("JUDGE_JUDGE_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("JUDGE_WEB_ROOT", raising=False)
    assert main(["web", "build"]) == 2  # no [web] root: said so
    monkeypatch.setenv("JUDGE_WEB_ROOT", "site")
    assert main(["web", "build"]) == 0
    assert (tmp_path / "site" / "games" / "g1" / "phase" / "S1901M.html").exists()
    assert Settings().web.host == "127.0.0.1"  # served on loopback unless told otherwise


def test_the_keeper_of_judge_serve_writes_a_phase_soon_after_it_is_processed(judge, tmp_path: Path) -> None:
    import time
    from urllib.request import urlopen

    from judge.config import WebSettings
    from judge.web.keeper import ArchiveKeeper

    root = tmp_path / "web"
    keeper = ArchiveKeeper(judge.store, Settings(web=WebSettings(root=str(root), port=0, poll_seconds=0.1)), root)
    keeper.start()
    try:
        play(judge, "g1", phases=1)  # while it runs, as judge serve's worker and scheduler would
        page = root / "games" / "g1" / "phase" / "S1901M.html"
        ends = time.monotonic() + 20
        while not page.exists() and time.monotonic() < ends:
            time.sleep(0.1)
        assert keeper.server is not None
        with urlopen(f"http://127.0.0.1:{keeper.server.port}/games/g1/phase/S1901M.html", timeout=5) as answer:
            assert b"A PAR - BUR" in answer.read()
    finally:
        keeper.stop()
