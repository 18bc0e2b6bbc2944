"""The judge's key pair: generated on first start, found again afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.crypto.gpg import GpgError
from judge.crypto.judgekey import judge_home, open_judge_keyring


def test_first_start_generates_then_reuses(gpg_home: Path) -> None:
    ring, first = open_judge_keyring(gpg_home, name="Diplomacy Judge", address="judge@judge.test")
    try:
        assert ring.user_id(first) == "Diplomacy Judge <judge@judge.test>"
        assert "BEGIN PGP PUBLIC KEY BLOCK" in ring.export_public_key(first)  # GET KEY
    finally:
        ring.close()
    ring, again = open_judge_keyring(gpg_home, name="Other", address="other@judge.test")
    ring.close()
    assert again == first
    ring, configured = open_judge_keyring(gpg_home, name="x", address="x@y", fingerprint=first.lower())
    ring.close()
    assert configured == first


def test_configured_key_must_exist(gpg_home: Path) -> None:
    with pytest.raises(GpgError, match="has no secret key"):
        open_judge_keyring(gpg_home, name="J", address="j@judge.test", fingerprint="AB" * 20)


def test_two_secret_keys_need_configuration(keyring) -> None:
    keyring.generate_key("One", "one@judge.test")
    keyring.generate_key("Two", "two@judge.test")
    with pytest.raises(GpgError, match="holds 2 secret keys"):
        open_judge_keyring(keyring.home, name="J", address="j@judge.test")


def test_home_defaults_under_data_dir() -> None:
    assert judge_home("/srv/judge") == Path("/srv/judge/gnupg")
    assert judge_home("/srv/judge", "/var/lib/jg") == Path("/var/lib/jg")
