"""Password hashes and the in-memory cache of verified passwords (judge/store/passwords.py)."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from judge.store import passwords
from judge.store.passwords import VerifiedPasswords, hash_password, verify_password


@pytest.fixture
def scrypt_calls(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Real scrypt at the suite's low cost (tests/conftest.py), with every call's salt recorded."""
    calls: list[bytes] = []
    real = hashlib.scrypt

    def counting(password: bytes, **kwargs: object) -> bytes:
        calls.append(kwargs["salt"])  # type: ignore[arg-type]
        return real(password, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(passwords.hashlib, "scrypt", counting)
    return calls


def test_a_new_cache_checks_with_scrypt_then_remembers(scrypt_calls: list[bytes]) -> None:
    stored = hash_password("geheim", cache=VerifiedPasswords())
    cache = VerifiedPasswords()  # another process: knows nothing yet
    scrypt_calls.clear()
    assert verify_password("geheim", stored, cache=cache)
    assert len(scrypt_calls) == 1
    assert verify_password("geheim", stored, cache=cache)
    assert verify_password("geheim", stored, cache=cache)
    assert len(scrypt_calls) == 1


def test_a_wrong_password_always_costs_scrypt_and_never_matches(scrypt_calls: list[bytes]) -> None:
    cache = VerifiedPasswords()
    stored = hash_password("geheim", cache=cache)
    scrypt_calls.clear()
    assert not verify_password("Geheim", stored, cache=cache)
    assert not verify_password("Geheim", stored, cache=cache)
    assert len(scrypt_calls) == 2
    assert verify_password("geheim", stored, cache=cache)  # still the right one


def test_a_remembered_password_does_not_open_another_stored_hash(scrypt_calls: list[bytes]) -> None:
    cache = VerifiedPasswords()
    mine = hash_password("same", cache=cache)
    other = hash_password("other", cache=VerifiedPasswords())
    changed = hash_password("same", cache=VerifiedPasswords())  # same password, new salt
    assert not verify_password("same", other, cache=cache)
    scrypt_calls.clear()
    assert verify_password("same", changed, cache=cache)  # correct, but checked by scrypt
    assert len(scrypt_calls) == 1
    assert verify_password("same", mine, cache=cache)


def test_the_cache_is_bounded_and_forgets_the_least_recently_used(scrypt_calls: list[bytes]) -> None:
    cache = VerifiedPasswords(max_entries=2)
    first, second = hash_password("one", cache=cache), hash_password("two", cache=cache)
    assert verify_password("one", first, cache=cache)  # "one" is now the most recent
    third = hash_password("three", cache=cache)
    assert len(cache) == 2
    scrypt_calls.clear()
    assert verify_password("one", first, cache=cache) and verify_password("three", third, cache=cache)
    assert scrypt_calls == []
    assert verify_password("two", second, cache=cache)  # forgotten: scrypt again
    assert len(scrypt_calls) == 1


def test_the_cache_holds_no_password_and_nothing_else_changes_at_rest(scrypt_calls: list[bytes]) -> None:
    cache = VerifiedPasswords()
    stored = hash_password("geheim", cache=cache)
    assert stored.startswith("scrypt$256$8$1$") and "geheim" not in stored
    remembered = list(cache._entries.values())
    assert len(remembered) == 1 and b"geheim" not in remembered[0]
    assert not verify_password("geheim", "scrypt$broken", cache=cache)


def test_the_judge_hashes_at_production_strength_and_such_hashes_verify() -> None:
    """In-process tests hash cheaply (tests/conftest.py); a fresh process has the real cost."""
    made = subprocess.run([sys.executable, "-c", "from judge.store.passwords import hash_password; "
                           "print(hash_password('geheim'))"], capture_output=True, text=True, timeout=60, check=True)
    stored = made.stdout.strip()
    assert stored.startswith("scrypt$16384$8$1$")
    cache = VerifiedPasswords()
    assert verify_password("geheim", stored, cache=cache) and not verify_password("Geheim", stored, cache=cache)
