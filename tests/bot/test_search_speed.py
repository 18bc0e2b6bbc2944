"""benchmarks.search_speed's choice of phases (the searching itself is the benchmark's)."""

from __future__ import annotations

import argparse

import pytest

from benchmarks.search_speed import _years, movement_documents


def test_years_pick_the_midgame_movement_phases_spread_over_the_corpus() -> None:
    phases = [d["phase"] for d in movement_documents(7, 20, years=(1903, 1908))]
    assert len(phases) == 20
    assert all(p.endswith("M") and 1903 <= int(p[1:5]) <= 1908 for p in phases)
    assert len(set(phases)) > 10  # every 7th: spread over the years and seasons, not one game's run
    assert [d["phase"] for d in movement_documents(1, 2)] == ["S1901M", "F1901M"]


def test_a_year_range_is_read_or_refused_quoting_it() -> None:
    assert _years("1903-1908") == (1903, 1908) and _years("1905") == (1905, 1905)
    with pytest.raises(argparse.ArgumentTypeError, match="'19o3'"):
        _years("19o3")
