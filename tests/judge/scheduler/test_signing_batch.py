"""A scheduler pass signs its broadcasts with one keyring (one gpg-agent), then stops it."""

from __future__ import annotations

import pytest

from judge.config import JudgeSettings
from judge.crypto.gpg import agent_pids
from judge.publish.signing import broadcast_mime, ensure_judge_key, home_of, judge_keyring, keyring_held

pytestmark = pytest.mark.gpg


def test_keyring_held_is_reused_and_its_agent_stopped(tmp_path):
    judge = JudgeSettings(data_dir=str(tmp_path), gnupg_home=str(tmp_path / "g"))
    ensure_judge_key(judge)
    with keyring_held(judge):
        with judge_keyring(judge) as first, judge_keyring(judge) as second:
            assert first is not None and first is second
        text, mime = broadcast_mime(judge, "results\n")
        assert mime is not None and mime.get_content_type() == "multipart/signed"
        with judge_keyring(judge) as again:
            assert again is first  # still open for the next broadcast
    assert agent_pids(home_of(judge)) == []
    with judge_keyring(judge) as alone:
        assert alone is not None and alone is not first


def test_without_a_key_nothing_is_held(tmp_path):
    judge = JudgeSettings(data_dir=str(tmp_path), gnupg_home=str(tmp_path / "g"))
    with keyring_held(judge):
        with judge_keyring(judge) as key:
            assert key is None
