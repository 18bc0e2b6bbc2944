"""benchmarks.bot_bench on a tiny load: a real judge serve, every LIST answered, the
PROCESS mails sent, the figures written."""

from __future__ import annotations

import json

import pytest

from benchmarks import bot_bench

pytestmark = pytest.mark.slow


def test_a_tiny_run_answers_every_mail_and_writes_its_figures(tmp_path) -> None:
    out = tmp_path / "bot.json"
    assert bot_bench.main(["--games", "2", "--per-mail", "2", "--seconds", "4", "--rate", "1",
                           "--drain-seconds", "60", "--json", str(out)]) == 0
    [run] = json.loads(out.read_text())["runs"]
    assert run["list_mails"] == 4 and run["unanswered"] == 0 and run["process_mails"] == 1
    assert run["reply_ms"]["p99"] >= run["reply_ms"]["p50"] > 0
    assert run["stopped_with"] == 0
