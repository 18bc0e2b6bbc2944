"""The archive's list.mbox replays the game in ``judge audit``; a sealed order not yet
revealed is nowhere in the archive.

A sealed game played through the real worker and gpg (the judge's PGP/MIME signatures,
the players' signed commitments): Spring 1901 committed, revealed and processed, then
France commits its Fall orders and has not revealed them when the archive is built.
"""

from __future__ import annotations

import mailbox

import pytest

from judge.audit import audit_archive
from judge.config import Settings
from judge.cli.key import export_judge_key
from judge.daemon.keyrecord import record_key
from judge.web.build import Archive
from tests.fixtures.gpg import remove_home, short_home
from tests.judge.sealed.harness import SealedGame, SealedJudge
from tests.judge.sealed.orders import SPRING, orders_file

SECRET_FALL = ["A BUR - PIC", "A SPA - GAS", "F MAO - IRI"]


@pytest.fixture(scope="module")
def built(tmp_path_factory, seven_players):
    directory = tmp_path_factory.mktemp("audit-web")
    home = short_home("wa")
    judge = SealedJudge(directory, home)
    try:
        game = SealedGame.start(judge, seven_players)
        for power, lines in SPRING.items():
            assert "ERROR" not in game.commit(power, orders_file(power, "S1901M", lines)).reply.body
        for power, lines in SPRING.items():
            game.reveal(power, orders_file(power, "S1901M", lines))
        assert "ERROR" not in game.commit("FRANCE", orders_file("FRANCE", "F1901M", SECRET_FALL)).reply.body
        root = directory / "web"
        Archive(judge.store, root, "example.org").rebuild()
        assert not (root / "judge-key.asc").exists()  # no key recorded yet: none published
        # What the first `judge serve` on the database does; the next refresh publishes it.
        fingerprint, key = export_judge_key(Settings(judge=judge.settings), judge.store, secret=False)
        record_key(judge.store, fingerprint, key)
        Archive(judge.store, root, "example.org").refresh()
        yield root, fingerprint
    finally:
        judge.close()
        remove_home(home)


def test_the_mbox_replays_the_game_in_judge_audit_with_the_published_key(built) -> None:
    root, fingerprint = built
    key_file = root / "judge-key.asc"
    assert key_file.read_text().startswith("-----BEGIN PGP PUBLIC KEY BLOCK-----")
    shown = " ".join(fingerprint[i:i + 4] for i in range(0, len(fingerprint), 4))
    for page in (root / "index.html", root / "games" / "g1" / "index.html"):  # written again for the key
        text = page.read_text()
        assert shown in text and 'judge-key.asc"' in text, page
    mbox = root / "games" / "g1" / "list.mbox"
    box = mailbox.mbox(str(mbox), create=False)
    subjects = [str(message["Subject"]) for message in box]
    box.close()
    assert any("S1901M results" in subject for subject in subjects)
    report = audit_archive(mbox, key_file)
    assert report.passed, report.text()
    assert report.phases == 1
    assert "g1 S1901M: results re-adjudicated: same" in report.text()


def test_an_unrevealed_sealed_order_is_nowhere(built) -> None:
    root, _ = built
    assert (root / "games" / "g1" / "phase" / "S1901M.html").exists()
    for path in (p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        for line in SECRET_FALL[1:]:  # A BUR - PIC could be a spring order's text too
            assert line.encode() not in data, path
