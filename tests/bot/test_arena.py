"""The arena: a short game completes and the figures add up (the full runs are benchmarks)."""

from __future__ import annotations

import math

from benchmarks.arena import main, run_field, wilson
from bot.player import Budget
from bot.search import StrategicBot


def test_wilson_interval_brackets_the_rate():
    low, high = wilson(7, 10)
    assert low < 0.7 < high
    assert math.isclose(low, 0.3968, abs_tol=1e-3) and math.isclose(high, 0.8922, abs_tol=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_a_short_arena_field_completes(standard):
    result = run_field(standard, lambda seed: StrategicBot(seed, Budget(iterations=20, seconds=None)), "random",
                       [1], last_year=1902)
    assert result.games == 7  # one game per seat
    assert result.illegal_orders == 0
    assert 0 <= result.solos <= result.games
    assert result.mean_centres >= 3.0  # nobody loses a centre to random play in two years


def test_the_command_prints_a_table(capsys):
    assert main(["--seeds", "1", "--last-year", "1901", "--iterations", "5", "--opponents", "dumbbot", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "| StrategicBot | 6 x dumbbot | 7 |" in out
    assert "5 evaluations per movement phase" in out


def test_the_daide_arena_summary_counts_solos_and_seats():
    from benchmarks.daide_arena import POWERS, summary

    games = [(1, "AUSTRIA", {**dict.fromkeys(POWERS, 2), "AUSTRIA": 18}),
             (2, "ENGLAND", {**dict.fromkeys(POWERS, 5), "ENGLAND": 0}),
             (8, "AUSTRIA", {**dict.fromkeys(POWERS, 4), "AUSTRIA": 10})]
    first, second = summary("ours", games).splitlines()
    assert first.startswith("| ours | 3 | 1 | 33% (")
    assert "| 9.33 | " in first and first.endswith("| 67% |")  # 18, 0 and 10; the seat died once
    assert second == "| ours, by seat (AUS ENG FRA GER ITA RUS TUR) | 14.0 | 0.0 | - | - | - | - | - |"


def test_a_daide_game_counts_the_centres_at_each_horizon():
    """One game over real TCP, seven of our bots (no DumbBot needed), to Winter 1901: the
    centres at a checkpoint before the first phase (the start) and at the end, by year."""
    import asyncio
    from pathlib import Path

    from benchmarks.daide_arena import POWERS, one_game, searches_text

    reports: list = []
    budget = Budget(iterations=3, seconds=None)
    found = asyncio.run(one_game(frozenset(POWERS), budget, 1, 1901,
                                 Path("/nonexistent"), checkpoints=[1900, 1905], reports=reports))
    # seven bots, at least the two movement phases of 1901, none cut short
    assert len(reports) >= 14 and {r.iterations for r in reports} == {3}
    assert searches_text(budget, reports).startswith(f"{len(reports)} searches, median 3 evaluations in ")
    assert searches_text(Budget(iterations=4, seconds=9), reports).endswith(
        f"{len(reports)} cut short by the wall-time cap")
    assert sorted(found) == [1900, 1901]  # a checkpoint past the end is not a horizon of the game
    assert found[1900] == {p: 3 for p in POWERS} | {"RUSSIA": 4}  # the home centres
    assert sorted(found[1901]) == sorted(POWERS)
    assert 22 < sum(found[1901].values()) <= 34  # neutral centres were taken in 1901
