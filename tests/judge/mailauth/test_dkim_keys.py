"""The DKIM keys: made once, kept in the database, shared by every process; `judge dns`
prints their records; `judge backup` carries them."""

from __future__ import annotations

import json
import tarfile
import threading

import pytest

from judge.cli import main
from judge.config import ConfigError, DkimSettings, load_settings
from judge.mailauth.dkim_keys import ED25519, RSA
from judge.mailauth.dns_records import MAX_STRING, quoted_strings
from judge.mailauth.keystore import DkimKeyRefused, recorded_keys, settle_dkim_keys
from judge.store.engine import Store


def test_made_once_and_the_same_for_every_process(store: Store) -> None:
    settings = DkimSettings()
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(settle_dkim_keys(store, settings))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and all(r == results[0] for r in results)  # one pair of keys, whoever raced
    first = settle_dkim_keys(store, settings)
    assert first == results[0]
    assert [(k.selector, k.algorithm) for k in first] == [("judge-rsa", RSA), ("judge-ed25519", ED25519)]
    assert "BEGIN RSA PRIVATE KEY" in first[0].private_key and "PRIVATE" not in repr(first[0])


def test_a_selector_recorded_with_another_key_type_is_refused(store: Store) -> None:
    settle_dkim_keys(store, DkimSettings())
    swapped = DkimSettings(rsa_selector="judge-ed25519", ed25519_selector="judge-rsa")
    with pytest.raises(DkimKeyRefused, match="name a new selector"):
        settle_dkim_keys(store, swapped)
    rotated = settle_dkim_keys(store, DkimSettings(rsa_selector="rsa2027"))  # a new selector: a new key
    assert rotated[0].selector == "rsa2027" and set(recorded_keys(store)) == {"judge-rsa", "judge-ed25519", "rsa2027"}


def test_selectors_must_be_dns_labels() -> None:
    with pytest.raises(ConfigError, match=r"\[dkim\] rsa_selector = 'a.b' is not a DNS label"):
        load_settings(None, environ={"JUDGE_DKIM_RSA_SELECTOR": "a.b"})


def test_quoted_strings_split_at_255() -> None:
    value = "v=DKIM1; k=rsa; p=" + "A" * 500
    text = quoted_strings(value)
    pieces = [p for p in text.split('"') if p.strip()]
    assert "".join(pieces) == value and max(map(len, pieces)) == MAX_STRING


def test_judge_dns_prints_the_zone_lines(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("JUDGE_JUDGE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("JUDGE_JUDGE_ADDRESS", "judge@example.org")
    monkeypatch.setenv("JUDGE_OUTBOUND_RELAY_HOST", "192.0.2.25")
    assert main(["dns"]) == 0
    lines = capsys.readouterr().out.splitlines()
    records = [line for line in lines if not line.startswith(";")]
    rsa, ed, spf, dmarc = records
    assert rsa.startswith('judge-rsa._domainkey.example.org. IN TXT "v=DKIM1; k=rsa; p=MIIB')
    assert all(len(piece) <= MAX_STRING for piece in rsa.split('"')[1::2]) and rsa.count('" "') == 1
    assert ed.startswith('judge-ed25519._domainkey.example.org. IN TXT "v=DKIM1; k=ed25519; p=')
    assert spf == 'example.org. IN TXT "v=spf1 mx ip4:192.0.2.25 ~all"'
    assert dmarc.startswith('_dmarc.example.org. IN TXT "v=DMARC1; p=quarantine;')
    # The keys printed are those the judge signs with: a second run prints the same.
    assert main(["dns"]) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if not line.startswith(";")] == records


def test_backup_carries_the_dkim_keys(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("JUDGE_JUDGE_DATA_DIR", str(tmp_path))
    assert main(["dns"]) == 0
    store = Store(f"sqlite:///{tmp_path / 'judge.db'}")
    keys = recorded_keys(store)
    store.dispose()
    archive = tmp_path / "b.tar"
    assert main(["backup", str(archive)]) == 0
    assert "and the DKIM keys (judge-ed25519, judge-rsa)" in capsys.readouterr().out
    with tarfile.open(archive) as tar:
        carried = json.loads(tar.extractfile("dkim-keys.json").read())  # type: ignore[union-attr]
        manifest = json.loads(tar.extractfile("backup.json").read())  # type: ignore[union-attr]
    assert {k["selector"]: k["private_key"] for k in carried} == {s: k.private_key for s, k in keys.items()}
    assert sorted(manifest["dkim_selectors"]) == ["judge-ed25519", "judge-rsa"]
    assert main(["backup", "--no-key", str(tmp_path / "c.tar")]) == 0
    with tarfile.open(tmp_path / "c.tar") as tar:
        assert "dkim-keys.json" not in tar.getnames()
