"""Real GnuPG keys for tests: short temporary homes, quick ed25519/cv25519 keys without a
passphrase, and agents stopped afterwards.

Use the fixtures by importing them into a conftest.py::

    from tests.gpgkeys import gpg_home, keyring, judge_keyring, seven_players  # noqa: F401

``gpg_home``      a fresh short GNUPGHOME path (agents stopped, directory removed after)
``keyring``       a ``Keyring`` on a fresh home with no keys
``seven_players`` (session) seven ``PlayerKey``s named after the standard powers, each with
                  its own home holding its secret key and all seven public keys
``judge_keyring`` a ``Keyring`` on a fresh home with the judge's own key pair
                  (``judge_keyring.judge_fingerprint``) and the seven players' public keys
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import pytest

from judge.crypto.gpg import Keyring, agent_pids, stop_agents

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


@dataclass(frozen=True)
class PlayerKey:
    name: str
    email: str
    fingerprint: str
    public_key: str  # armored
    home: Path  # the player's own GNUPGHOME (secret key + everybody's public keys)

    def keyring(self) -> Keyring:
        return Keyring(self.home)


def short_home(prefix: str = "g") -> Path:
    """A new GnuPG home under /tmp: short enough for gpg-agent's socket path."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))


def remove_home(home: Path) -> None:
    stop_agents(home)
    leftover = agent_pids(home)
    shutil.rmtree(home, ignore_errors=True)
    if leftover:
        raise AssertionError(f"gpg daemons {leftover} for {home} survived 'gpgconf --kill all'")


def make_players(names: Sequence[str], domain: str = "players.test") -> list[PlayerKey]:
    """One key pair per name, each in its own home; every home then gets every public key."""
    players: list[PlayerKey] = []
    for name in names:
        home = short_home("p")
        ring = Keyring(home)
        email = f"{name.lower()}@{domain}"
        fingerprint = ring.generate_key(name, email)
        players.append(PlayerKey(name, email, fingerprint, ring.export_public_key(fingerprint), home))
    everyone = "".join(p.public_key for p in players)
    for player in players:
        with player.keyring() as ring:
            ring.import_key_bundle(everyone)  # one gpg call for all seven keys
    return players


@pytest.fixture
def gpg_home() -> Iterator[Path]:
    home = short_home()
    yield home
    remove_home(home)


@pytest.fixture
def keyring(gpg_home: Path) -> Iterator[Keyring]:
    ring = Keyring(gpg_home)
    yield ring
    ring.close()


@pytest.fixture(scope="session")
def seven_players() -> Iterator[tuple[PlayerKey, ...]]:
    players = tuple(make_players(POWERS))
    yield players
    for player in players:
        remove_home(player.home)


class JudgeKeyring(Keyring):
    judge_fingerprint: str


@pytest.fixture(scope="session")
def _judge_template(seven_players: tuple[PlayerKey, ...]) -> Iterator[tuple[Path, str]]:
    """Built once: a home with the judge's key pair and the seven public keys."""
    home = short_home("j")
    with Keyring(home) as ring:
        fingerprint = ring.generate_key("Test Judge", "judge@judge.test")
        for player in seven_players:
            ring.import_public_key(player.public_key)
    yield home, fingerprint
    remove_home(home)


@pytest.fixture
def judge_keyring(_judge_template: tuple[Path, str]) -> Iterator[JudgeKeyring]:
    template, fingerprint = _judge_template
    home = short_home("j")
    shutil.copytree(template, home, dirs_exist_ok=True, ignore=shutil.ignore_patterns("S.*"))
    ring = JudgeKeyring(home)
    ring.judge_fingerprint = fingerprint
    yield ring
    ring.close()
    remove_home(home)
