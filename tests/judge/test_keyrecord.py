"""One judge key for several hosts: the database records it, another key is refused,
`judge key export --secret` / `judge key import` copy it, and `judge serve` listens only
once its key is settled (issue 18.4)."""

from __future__ import annotations

import socket
import time

import pytest
from sqlalchemy import select

from judge.cli import main
from judge.config import load_settings
from judge.daemon.keyrecord import JudgeKeyRefused, recorded_key, settle_judge_key
from judge.store.models_hosts import JudgeKeyRecord
from tests.fixtures.gpg import remove_home, short_home
from tests.judge.storage import migrated_store

pytestmark = pytest.mark.gpg


@pytest.fixture
def two_hosts(tmp_path, monkeypatch):
    """One database; two GnuPG homes standing for two hosts' data directories."""
    store = migrated_store(tmp_path)
    homes = [short_home("ha"), short_home("hb")]
    monkeypatch.setenv("JUDGE_STORE_URL", f"sqlite:///{tmp_path / 'judge.db'}")
    yield store, homes
    store.dispose()
    for home in homes:
        remove_home(home)


def on_host(home, monkeypatch):
    monkeypatch.setenv("JUDGE_JUDGE_GNUPG_HOME", str(home))
    monkeypatch.setenv("JUDGE_JUDGE_DATA_DIR", str(home))
    return load_settings()


def test_the_second_host_needs_the_first_hosts_key(two_hosts, monkeypatch, tmp_path, capsys):
    store, (first_home, second_home) = two_hosts
    first = settle_judge_key(on_host(first_home, monkeypatch), store)
    assert first is not None and recorded_key(store).fingerprint == first
    assert "BEGIN PGP PUBLIC KEY BLOCK" in recorded_key(store).public_key
    assert settle_judge_key(on_host(first_home, monkeypatch), store) == first  # a restart: same key

    second = on_host(second_home, monkeypatch)
    with pytest.raises(JudgeKeyRefused, match=f"signs with {first}.*holds no secret key.*judge key import"):
        settle_judge_key(second, store)

    on_host(first_home, monkeypatch)
    exported = tmp_path / "judge-key.asc"
    assert main(["key", "export", "--secret", "--output", str(exported)]) == 0
    assert exported.stat().st_mode & 0o077 == 0 and "PRIVATE KEY BLOCK" in exported.read_text()
    assert main(["key", "export"]) == 0
    assert "PUBLIC KEY BLOCK" in capsys.readouterr().out

    on_host(second_home, monkeypatch)
    assert main(["key", "import", str(exported)]) == 0
    assert f"judge key {first} imported" in capsys.readouterr().out
    assert settle_judge_key(on_host(second_home, monkeypatch), store) == first


def test_a_host_with_its_own_key_is_refused_and_cannot_import_another(two_hosts, monkeypatch, tmp_path, capsys):
    store, (first_home, second_home) = two_hosts
    first = settle_judge_key(on_host(first_home, monkeypatch), store)
    # The second host made a key of its own before it was pointed at this database.
    from judge.publish.signing import ensure_judge_key

    own = ensure_judge_key(on_host(second_home, monkeypatch).judge)
    assert own != first
    with pytest.raises(JudgeKeyRefused, match=f"signs with {first}.*it holds {own}"):
        settle_judge_key(on_host(second_home, monkeypatch), store)
    # Its own key exported and offered to the first host is refused: not the judge's.
    assert main(["key", "export", "--secret", "--output", str(tmp_path / "own.asc")]) == 1  # the recorded key is not here
    assert "no secret key" in capsys.readouterr().err
    import subprocess

    own_block = subprocess.run(["gpg", "--homedir", str(second_home), "--batch", "--pinentry-mode", "loopback",
                                "--passphrase", "", "--armor", "--export-secret-keys", own],
                               capture_output=True, text=True, check=True).stdout
    (tmp_path / "own.asc").write_text(own_block)
    on_host(first_home, monkeypatch)
    assert main(["key", "import", str(tmp_path / "own.asc")]) == 1
    assert f"expected the judge key {first} this database records" in capsys.readouterr().err
    with store.unit_of_work() as session:
        assert session.execute(select(JudgeKeyRecord.fingerprint)).scalars().all() == [first]


def test_serve_refuses_a_different_key_and_listens_only_with_its_key(two_hosts, judge_runner, tmp_path):
    store, (first_home, second_home) = two_hosts
    env = {"JUDGE_STORE_URL": f"sqlite:///{tmp_path / 'judge.db'}", "JUDGE_JUDGE_DATA_DIR": str(tmp_path)}
    judge = judge_runner.start(tmp_path, {**env, "JUDGE_JUDGE_GNUPG_HOME": str(first_home)}, wait=False)
    # The first moment the port answers, the key already exists and is recorded.
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline and judge.process.poll() is None, judge.log
        try:
            socket.create_connection(("127.0.0.1", judge.smtp_port), timeout=0.05).close()
            break
        except OSError:
            time.sleep(0.005)
    record = recorded_key(store)
    assert record is not None, "SMTP answered before the judge's key was recorded"
    assert judge.terminate() == 0

    other = judge_runner.start(tmp_path, {**env, "JUDGE_JUDGE_GNUPG_HOME": str(second_home)}, wait=False)
    assert other.process.wait(timeout=60) == 2
    other.terminate()
    assert f"this database's judge signs with {record.fingerprint}" in other.log
    assert "judge key import" in other.log


def test_tick_on_a_host_without_the_key_refuses_to_sign_with_another(two_hosts, monkeypatch, capsys):
    store, (first_home, second_home) = two_hosts
    first = settle_judge_key(on_host(first_home, monkeypatch), store)
    on_host(second_home, monkeypatch)
    assert main(["tick"]) == 2
    assert f"this database's judge signs with {first}" in capsys.readouterr().err
    on_host(first_home, monkeypatch)
    assert main(["tick"]) == 0
