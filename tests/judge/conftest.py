"""Fixtures for the daemon's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from judge.store.engine import Store
from tests.judge.commands.harness import JudgeHarness
from tests.judge.storage import migrated_store


@pytest.fixture
def judge(tmp_path: Path) -> Iterator[JudgeHarness]:
    """A judge on a SQLite file driven mail by mail through the real worker."""
    harness = JudgeHarness(tmp_path)
    yield harness
    harness.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A migrated SQLite store in the test's temporary directory, disposed afterwards."""
    store = migrated_store(tmp_path)
    yield store
    store.dispose()
