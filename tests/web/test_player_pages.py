"""The archive's player and ratings pages (judge/web/players.py), from registrations and
games made by mail through the real worker: what each page shows is what WHOIS shows a
stranger, a gunboat game hides who plays whom, and a deleted registration leaves nothing
personal in any file.  The names' index is in pages, and a page (an index page, a
player's, the ratings) is written again only when what it shows changed."""

from __future__ import annotations

import html
import re
from pathlib import Path

from sqlalchemy import insert, select, update

from judge.store.models_registry import RegisteredAddress, RegisteredPlayer
from judge.web import paging
from judge.web.build import Archive
from tests.judge.commands.conftest import create_game, fill_game
from tests.judge.commands.harness import player
from tests.judge.registry.test_registry_rules import register
from tests.judge.standing.pure_games import solo_for_france, start

ANNA = "REALNAME Anna Kallio\nCOUNTRY Finland\nZONE Europe/Helsinki\nPUBLIC country record\nEND\n"
BORIS = "REALNAME Boris Hidden\nCOUNTRY Atlantis\nPUBLIC NONE\nEND\n"


def _all_text(root: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file())


def test_player_pages_show_what_whois_shows_and_deletion_clears_them(judge, tmp_path) -> None:
    register(judge, player(0), "Anna", lines=ANNA)
    register(judge, player(1), "Boris", lines=BORIS)
    judge.send("pending@example.net", "REGISTER Pending pw\n")  # never confirmed: nobody's yet
    create_game(judge)
    fill_game(judge)
    create_game(judge, "RULE GUNBOAT", name="g2")
    fill_game(judge, name="g2")
    root = tmp_path / "web"
    archive = Archive(judge.store, root, "judge.example.org")
    archive.rebuild()

    anna = (root / "players" / "Anna.html").read_text()
    whois = judge.send("stranger@example.net", "WHOIS Anna\n").reply.body
    for line in ("Player: Anna", "Country: Finland", "Games: 2 played, 2 running", "Dedication: "):
        assert line in whois and line in anna, line
    # The running gunboat game's power is not counted (nor named) on her page either.
    [powers] = [line for line in anna.splitlines() if line.startswith("Powers: ")]
    assert powers.count(" 1") == 1, powers
    assert "Anna Kallio" not in anna and "Helsinki" not in anna and "@" not in anna

    boris = (root / "players" / "Boris.html").read_text()
    assert "Player: Boris" in boris and "Games:" not in boris and "Country" not in boris
    listing = (root / "players" / "index.html").read_text()
    assert 'href="../players/Anna.html"' in listing and 'href="../players/Boris.html"' in listing
    assert "Pending" not in listing
    assert not (root / "players" / "Pending.html").exists()

    # The open game links its registered players; the gunboat game names nobody.
    assert 'href="../../players/Anna.html"' in (root / "games" / "g1" / "index.html").read_text()
    gunboat = (root / "games" / "g2" / "index.html").read_text()
    assert "players/" not in gunboat.split('aria-label="Site"')[1].split("</nav>")[1]
    assert "Press games" in (root / "ratings.html").read_text()
    everything = _all_text(root)
    for secret in ("Anna Kallio", "Helsinki", "Boris Hidden", "Atlantis", player(0), player(1), "pending@"):
        assert secret not in everything, secret

    # A deleted registration: its page and links go at the next refresh, and its data with them.
    judge.send(player(0), "REGISTER DELETE Anna pw\n")
    report = archive.refresh()
    assert "g1" in report.games and "players/index.html" in report.players
    assert not (root / "players" / "Anna.html").exists()
    assert "Anna.html" not in (root / "players" / "index.html").read_text()
    assert "players/Anna.html" not in (root / "games" / "g1" / "index.html").read_text()
    assert "Finland" not in _all_text(root)
    # Nothing changed: nothing written.
    assert archive.refresh().players == []


def test_a_rated_game_shows_on_the_ratings_page(judge, tmp_path) -> None:
    register(judge, player(0), "Anna", lines=ANNA)
    seats = start(judge, "solo")
    root = tmp_path / "web"
    archive = Archive(judge.store, root, "judge.example.org")
    archive.rebuild()
    assert "No rated game yet." in (root / "ratings.html").read_text().split("Gunboat games")[0]
    solo_for_france(judge, "solo", seats)
    assert "ratings.html" in archive.refresh().players  # the game's end rewrites the pages
    page = (root / "ratings.html").read_text()
    press = page.split("Press games")[1].split("Gunboat games")[0]
    mail = judge.send("stranger@example.net", "RATINGS PRESS 7\n").reply.body
    ranked = [line.split(None, 2)[2] for line in mail.splitlines() if re.match(r" *\d+\. ", line)]
    assert len(ranked) == 7
    cells = re.findall(r'<td>(?:<a href="[^"]*">([^<]*)</a>|<bdi>([^<]*)</bdi>)</td></tr>', press)
    assert [html.unescape(linked or plain) for linked, plain in cells] == ranked
    assert "Anna" in ranked and 'href="players/Anna.html"' in page
    assert "No rated game yet." in page.split("Gunboat games")[1]


def _registered(judge, names: list[str]) -> None:
    """Confirmed registrations stored at once (the mail's path is test_registry_rules')."""
    with judge.store.unit_of_work(now=judge.now) as session:
        session.execute(insert(RegisteredPlayer), [
            {"name": name, "name_key": name.lower(), "password_hash": "", "country": "Utopia",
             "public": "country", "registered_at": judge.now} for name in names])
        ids = dict(session.execute(select(RegisteredPlayer.name, RegisteredPlayer.id)).all())
        session.execute(insert(RegisteredAddress), [
            {"player_id": ids[name], "address": f"{name.lower()}@players.test", "linked_at": judge.now}
            for name in names])


def test_the_players_index_in_pages_and_only_changed_pages_written(judge, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(paging, "PAGE_ROWS", 2)
    _registered(judge, ["Ada", "Bo", "Cy", "Di", "Ed"])
    root = tmp_path / "web"
    archive = Archive(judge.store, root, "judge.example.org")
    written = archive.rebuild().players
    assert {"players/index.html", "players/pages/2.html", "players/pages/3.html", "players/Ed.html",
            "ratings.html"} <= set(written)
    second = (root / "players" / "pages" / "2.html").read_text()
    assert "Registered players (5), page 2 of 3" in second
    assert 'href="../../players/Cy.html"' in second and 'href="../../players/Di.html"' in second
    assert "Ada.html" not in second and '<span aria-current="page">2</span>' in second
    assert 'href="../../players/index.html">1</a>' in second and 'href="../../players/pages/3.html">3</a>' in second

    with judge.store.unit_of_work(now=judge.now) as session:  # one profile changed: its page alone
        session.execute(update(RegisteredPlayer).where(RegisteredPlayer.name == "Cy").values(country="Elsewhere"))
    assert archive.refresh().players == ["players/Cy.html"]
    assert "Country: Elsewhere" in (root / "players" / "Cy.html").read_text()
    assert archive.refresh().players == []

    with judge.store.unit_of_work(now=judge.now) as session:  # one gone: the pages after it shift
        session.execute(update(RegisteredPlayer).where(RegisteredPlayer.name == "Bo").values(deleted_at=judge.now))
    assert sorted(archive.refresh().players) == ["players/index.html", "players/pages/2.html"]
    assert not (root / "players" / "Bo.html").exists() and not (root / "players" / "pages" / "3.html").exists()
    assert "Registered players (4), page 2 of 2" in (root / "players" / "pages" / "2.html").read_text()
