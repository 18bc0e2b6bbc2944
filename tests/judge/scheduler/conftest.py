"""Fixtures for the scheduler tests: the commands' harness plus scheduler passes."""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.judge.commands.conftest import Seat, create_game, fill_game  # noqa: F401
from tests.judge.scheduler.driver import TurnHarness


@pytest.fixture
def judge(tmp_path) -> Iterator[TurnHarness]:
    harness = TurnHarness(tmp_path)
    yield harness
    harness.close()
