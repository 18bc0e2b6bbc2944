"""Fixtures every test package may use (see tests/fixtures/ for what each one does), and
the ``gpg`` marker on every test module that uses GnuPG (``-m "not gpg"`` leaves them out)."""

import atexit
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import pytest

from tests.fixtures.dns_server import _loopback_dns, dns_zone  # noqa: F401
from tests.fixtures.dovecot import dovecot_server, imap_account  # noqa: F401
from tests.fixtures.judge_process import judge_runner  # noqa: F401
from tests.fixtures.postfix import postfix  # noqa: F401
from tests.fixtures.postgres import postgres_server, postgres_url  # noqa: F401
from tests.fixtures.smtp_sink import smtp_sink  # noqa: F401
from tests.fixtures.gpg import _judge_template, gpg_home, judge_keyring, keyring, seven_players  # noqa: F401


def _let_subprocesses_keep_bytecode() -> None:
    """Where the environment forbids writing bytecode (PYTHONDONTWRITEBYTECODE), every
    ``judge`` subprocess and xdist worker would compile the whole project from source again
    (about half a second of CPU each, hundreds of times): they share one compiled copy in a
    folder of this run instead (PYTHONPYCACHEPREFIX; inherited by the workers, which then
    leave it as it is).  The checkout gets no __pycache__, and what runs is the same code."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    folder = tempfile.mkdtemp(prefix="dipjudge-pyc-")
    atexit.register(shutil.rmtree, folder, True)
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = folder


_let_subprocesses_keep_bytecode()

_GPG_WORDS = ("gpg", "gnupg", "Keyring", "judge_keyring", "seven_players")


@lru_cache(maxsize=None)
def _uses_gpg(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return any(word in text for word in _GPG_WORDS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _uses_gpg(Path(item.path)):
            item.add_marker(pytest.mark.gpg)


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge's default data folder ($XDG_DATA_HOME/dipjudge) is a temporary one: no test
    writes into the real user's ~/.local/share."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


#: scrypt's cost in tests run in this process: real scrypt, 64 times cheaper than the judge's
#: (hashes record their cost, so they verify either way).  Daemons started as subprocesses
#: keep the production cost, and tests/judge/test_passwords.py checks it once.
TEST_SCRYPT_N = 2**8


@pytest.fixture(scope="session", autouse=True)
def _cheap_scrypt() -> Iterator[None]:
    """Every CREATE, JOIN and REGISTER in process hashes a password: at production strength
    that is about 0.1 s of CPU each, which adds up to minutes over the suite.  Session-wide,
    so that module- and session-scoped fixtures hash cheaply too."""
    from judge.store import passwords

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(passwords, "_N", TEST_SCRYPT_N)
        yield
