"""``judge backup FILE`` on a real SQLite store and a real GnuPG key: the archive opens,
holds the data and the key, and every copy is consistent while a worker keeps writing
(each processed mail and its reply are committed together, so a copy never has one
without the other)."""

from __future__ import annotations

import sqlite3
import tarfile
import threading
from datetime import datetime, timezone

import pytest

from judge.cli import main
from judge.config import JudgeSettings, load_settings
from judge.daemon.keyrecord import recorded_key, settle_judge_key
from judge.store.inbound import store_inbound
from judge.daemon.worker import Worker
from tests.fixtures.gpg import remove_home, short_home
from tests.judge.handlers import echo
from tests.judge.storage import make_mail, migrated_store

pytestmark = pytest.mark.gpg
NOW = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")


@pytest.fixture
def judge_home(tmp_path, monkeypatch):
    home = short_home("bk")
    monkeypatch.setenv("JUDGE_STORE_URL", f"sqlite:///{tmp_path / 'judge.db'}")
    monkeypatch.setenv("JUDGE_JUDGE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("JUDGE_JUDGE_GNUPG_HOME", str(home))
    yield home
    remove_home(home)


def one_mail(store, n: int) -> None:
    store_inbound(store, make_mail(subject=f"mail {n}", message_id=f"<m{n}@example.net>"),
                  mail_from="anna@example.net", rcpt_to=[], source="smtp", now=NOW)


def unpack(path, into):
    with tarfile.open(path) as archive:
        archive.extractall(into, filter="data")
    return into


def consistent_counts(database) -> tuple[int, int]:
    """(processed mails, replies) of a copy, after checking each processed mail has its reply."""
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        processed = {row[0] for row in db.execute("SELECT id FROM inbound_message WHERE status = 'processed'")}
        replied = {row[0] for row in db.execute("SELECT inbound_id FROM outbox WHERE inbound_id IS NOT NULL")}
    assert processed == replied
    return len(processed), len(replied)


def test_backup_holds_a_consistent_store_and_the_key_while_the_judge_writes(tmp_path, judge_home, capsys, monkeypatch):
    store = migrated_store(tmp_path)
    fingerprint = settle_judge_key(load_settings(), store)
    assert fingerprint is not None and recorded_key(store).fingerprint == fingerprint
    for n in range(20):
        one_mail(store, n)
    worker = Worker(store, JUDGE, echo, clock=lambda: NOW)
    assert worker.process_pending() == 20

    stop = threading.Event()

    def keep_writing() -> None:
        n = 1000
        while not stop.is_set():
            one_mail(store, n)
            worker.process_pending()
            n += 1

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        archives = []
        for i in range(3):
            archive = tmp_path / f"judge-backup-{i}.tar.gz"
            assert main(["backup", str(archive)]) == 0
            archives.append(archive)
    finally:
        stop.set()
        writer.join()
    said = capsys.readouterr().out
    assert f"holds the SQLite store (sqlite:///{tmp_path / 'judge.db'}) and the judge's key {fingerprint}" in said

    for i, archive in enumerate(archives):
        assert archive.stat().st_mode & 0o777 == 0o600  # it holds the secret key
        files = unpack(archive, tmp_path / f"unpacked-{i}")
        processed, _ = consistent_counts(files / "judge.db")
        assert processed >= 20  # the data written before the backup is in it
        key = (files / "judge-key.asc").read_text()
        assert "BEGIN PGP PRIVATE KEY BLOCK" in key
        manifest = (files / "backup.json").read_text()
        assert fingerprint in manifest and '"schema_revision"' in manifest

    store.dispose()
    # The copy opens as a judge's store at the current schema.
    monkeypatch.setenv("JUDGE_STORE_URL", f"sqlite:///{tmp_path / 'unpacked-0' / 'judge.db'}")
    assert main(["db", "status"]) == 0
    assert "unpacked-0" in capsys.readouterr().out


def test_backup_refuses_a_folder_that_does_not_exist(tmp_path, judge_home, capsys):
    migrated_store(tmp_path).dispose()
    assert main(["backup", str(tmp_path / "missing" / "x.tar")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_on_postgresql_the_archive_says_to_use_pg_dump(tmp_path, postgres_url, monkeypatch, capsys):
    monkeypatch.setenv("JUDGE_STORE_URL", postgres_url)
    monkeypatch.setenv("JUDGE_JUDGE_DATA_DIR", str(tmp_path))
    assert main(["db", "upgrade"]) == 0
    capsys.readouterr()
    archive = tmp_path / "pg.tar"
    assert main(["backup", "--no-key", str(archive)]) == 0
    assert "dump it with pg_dump" in capsys.readouterr().err
    with tarfile.open(archive) as packed:
        assert packed.getnames() == ["backup.json"]
