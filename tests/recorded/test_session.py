"""The recorded mail session of a whole game is written word for word as recorded."""

from __future__ import annotations

import difflib
from pathlib import Path

from tests.recorded.session import play

RECORDED = Path(__file__).with_name("session.txt")


def test_a_whole_game_sends_the_recorded_mail(tmp_path):
    made = play(tmp_path)
    recorded = RECORDED.read_text(encoding="utf-8")
    difference = "".join(difflib.unified_diff(recorded.splitlines(True), made.splitlines(True),
                                              "recorded", "made", n=2))
    assert made == recorded, f"(python -m tests.recorded.session {RECORDED} writes a new record)\n{difference[:6000]}"
