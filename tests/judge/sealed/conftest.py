"""Fixtures for the sealed-orders tests: a judge with its own short GnuPG home (its
gpg-agent checked gone afterwards) and a started RULE SEALED game."""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.fixtures.gpg import remove_home, short_home
from tests.judge.sealed.harness import SealedGame, SealedJudge


@pytest.fixture
def sealed_judge(tmp_path) -> Iterator[SealedJudge]:
    home = short_home("sj")
    judge = SealedJudge(tmp_path, home)
    yield judge
    judge.close()
    remove_home(home)  # fails the test if a gpg-agent of the judge's home survived


@pytest.fixture
def game(sealed_judge: SealedJudge, seven_players) -> SealedGame:
    return SealedGame.start(sealed_judge, seven_players)
