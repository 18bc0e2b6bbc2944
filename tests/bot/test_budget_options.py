"""The search budget's options, shared by ``judge bot`` and the arenas."""

from __future__ import annotations

import argparse

import pytest

from bot.budget_options import add_budget_options, budget_from, budget_text
from bot.player import DEFAULT_EVALUATIONS, SAFETY_SECONDS, Budget
from bot.search import DEFAULT_BUDGET


def _budget(*argv: str) -> Budget:
    parser = argparse.ArgumentParser(prog="arena")
    add_budget_options(parser)
    return budget_from(parser, parser.parse_args(list(argv)))


def test_the_default_counts_evaluations_with_a_wall_time_cap() -> None:
    assert _budget() == DEFAULT_BUDGET == Budget(iterations=DEFAULT_EVALUATIONS, seconds=SAFETY_SECONDS)
    assert budget_text(_budget()) == f"{DEFAULT_EVALUATIONS} evaluations and at most {SAFETY_SECONDS:g} s per movement phase"


def test_seconds_alone_are_a_time_budget_without_a_count() -> None:
    assert _budget("--seconds", "4") == Budget(iterations=None, seconds=4.0)
    assert budget_text(_budget("--seconds", "4")) == "4 s per movement phase"


def test_iterations_alone_are_deterministic_and_both_cap_each_other() -> None:
    assert _budget("--iterations", "500") == Budget(iterations=500, seconds=None)
    assert _budget("--iterations", "500", "--seconds", "2") == Budget(iterations=500, seconds=2.0)
    assert budget_text(_budget("--iterations", "500", "--seconds", "2")) == \
        "500 evaluations and at most 2 s per movement phase"


@pytest.mark.parametrize("argv, quoted", [(("--seconds", "0"), "--seconds 0"), (("--iterations", "-3"), "--iterations -3")])
def test_a_bad_budget_is_refused_quoting_the_option(argv: tuple[str, ...], quoted: str, capsys) -> None:
    with pytest.raises(SystemExit) as ended:
        _budget(*argv)
    assert ended.value.code == 2
    assert quoted in capsys.readouterr().err
