"""Nothing leaks into the public archive, and hostile text arrives escaped and bounded.

Games played by mail through the real worker and scheduler hold every kind of secret: the
players' and master's addresses and passwords, private press, a gunboat game's players, a
private game, orders of a phase not yet processed.  Every file the archive holds is read
(each mbox message decoded part by part, so an encoding hides nothing) and none may hold
any of them.  (Sealed orders not yet revealed: tests/web/test_audit_mbox.py.)
"""

from __future__ import annotations

import mailbox
from pathlib import Path
from typing import Iterator

import pytest
from sqlalchemy import select

from judge.store.models_game import Game, Membership, OrderSet, PressLog
from judge.web.build import Archive
from tests.judge.commands.conftest import MASTER
from tests.judge.commands.harness import player
from tests.judge.registry.test_registry_rules import register
from tests.web.conftest import password, play

HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>\u202etxt.exe"
LONG_LINE = "A" * 100_000
REAL_NAME = "Rhiannon Xyzzyson"
COUNTRY = "Xyzzyland"
GUNBOAT_NAMES = tuple(f"Gunboat Hidden {index}" for index in range(7))


def _texts(root: Path) -> Iterator[tuple[Path, str]]:
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.suffix == ".mbox":
            box = mailbox.mbox(str(path), create=False)
            for message in box:
                yield path, str(message.items())
                for part in message.walk():
                    payload = part.get_payload(decode=True)
                    if isinstance(payload, bytes):
                        yield path, payload.decode("utf-8", "replace")
            box.close()
        else:
            yield path, path.read_bytes().decode("utf-8", "replace")


@pytest.fixture(scope="module")
def archive(tmp_path_factory, request) -> Iterator[tuple[Path, list[str]]]:
    from tests.judge.scheduler.driver import TurnHarness

    directory = tmp_path_factory.mktemp("leaks")
    judge = TurnHarness(directory)
    try:
        # Registered players: one shows the record only, one nothing; their private fields stay private.
        register(judge, player(1), "Rhiannon", lines=f"REALNAME {REAL_NAME}\nCOUNTRY {COUNTRY}\nPUBLIC record\nEND\n")
        register(judge, player(2), "Quiet", lines=f"REALNAME Quiet {REAL_NAME}\nPUBLIC NONE\nEND\n")
        play(judge, "open1", phases=1, names=("Anna Open", HOSTILE, "carl@example.net", "Dora " + LONG_LINE))
        judge.send(MASTER, f"SIGNON master@open1 masterpw\nDESC {HOSTILE} {LONG_LINE}\n")
        france = player(next(i for i in range(7) if _power_of(judge, "open1", i) == "FRANCE"))
        signon = f"SIGNON france@open1 {password(int(france[len('player')]))}"
        judge.send(france, f"{signon}\nPRESS TO ENGLAND\nprivate-plan-xyzzy\nENDPRESS\n")
        judge.send(france, f"{signon}\nBROADCAST\n{HOSTILE}\n{LONG_LINE}\nENDPRESS\n")
        judge.send(france, f"{signon}\nA BUR - PIC\n")  # this phase's orders: not processed yet
        play(judge, "gun1", rules=("GUNBOAT",), phases=1, names=GUNBOAT_NAMES)
        judge.send(MASTER, "CREATE priv1 masterpw\nPRIVATE keyword-xyzzy\nDESC private-desc-xyzzy\nFORM\n")
        with judge.session() as session:
            addresses = sorted({m.address for m in session.scalars(select(Membership))})
            # The secrets are really in the store (else the test below proves nothing).
            names = set(session.scalars(select(Membership.name)))
            assert set(GUNBOAT_NAMES) <= names and "carl@example.net" in names
            assert "private-plan-xyzzy" in " ".join(session.scalars(select(PressLog.body)))
            assert session.scalars(select(OrderSet.orders).where(OrderSet.power == "FRANCE")).all()
            assert "private-desc-xyzzy" in session.scalars(select(Game.description)).all()
        root = directory / "web"
        Archive(judge.store, root, "judge.example.org").rebuild()
        yield root, addresses
    finally:
        judge.close()


def _power_of(judge, game: str, index: int) -> str | None:
    with judge.session() as session:
        game_id = session.scalars(select(Game.id).where(Game.name == game)).one()
        return session.scalars(select(Membership.power).where(
            Membership.game_id == game_id, Membership.address == player(index))).one()


def test_the_games_are_there(archive) -> None:
    root, _ = archive
    assert (root / "games" / "open1" / "phase" / "S1901M.html").exists()
    assert (root / "games" / "gun1" / "index.html").exists()
    assert "Anna Open" in (root / "games" / "open1" / "index.html").read_text()
    assert "Games: 2 played" in (root / "players" / "Rhiannon.html").read_text()  # the record is public
    assert (root / "players" / "Quiet.html").exists()
    assert "Rhiannon" not in (root / "games" / "gun1" / "index.html").read_text()  # gunboat: nobody named


def test_no_address_password_or_secret_anywhere(archive) -> None:
    root, addresses = archive
    assert len(addresses) >= 8
    secrets = [*addresses, "masterpw", *(password(i) for i in range(7)), "private-plan-xyzzy",
               "priv1", "private-desc-xyzzy", "keyword-xyzzy", "BUR - PIC", *GUNBOAT_NAMES,
               REAL_NAME, COUNTRY]
    found = [(str(path.relative_to(root)), secret) for path, text in _texts(root)
             for secret in secrets if secret in text]
    assert found == []


def test_hostile_text_is_escaped_and_bounded(archive) -> None:
    root, _ = archive
    pages = [p for p in root.rglob("*") if p.suffix in (".html", ".atom")]
    assert pages
    for page in pages:
        text = page.read_text("utf-8")
        assert "<script>alert" not in text and "<img src=x" not in text, page
        assert "\u202e" not in text, page
        assert "A" * 1000 not in text, page
        assert len(text) < 200_000, page
    game_page = (root / "games" / "open1" / "index.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in game_page  # the hostile name, shown as text
    listing = (root / "games" / "open1" / "list.html").read_text()
    assert "&lt;img src=x onerror=alert(2)&gt;" in listing and "[...]" in listing
