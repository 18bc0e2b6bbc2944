"""The search budget as command-line options, the same in ``judge bot`` and the arenas:
``--seconds S`` (wall time per movement phase; the bot's default, 4 s, keeps a power
within 5 s a phase on 2 cores) and ``--iterations N`` (candidate evaluations; given
alone, the budget is deterministic for a seed and has no time limit)."""

from __future__ import annotations

import argparse

from bot.player import Budget

DEFAULT_SECONDS = Budget().seconds  # the bot's own default (bot.search.DEFAULT_BUDGET)


def add_budget_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=None,
                        help=f"search time per movement phase (default {DEFAULT_SECONDS:g}; none when --iterations "
                             "is given alone)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="search evaluations per movement phase (default none: the time decides); "
                             "alone, a deterministic budget")


def budget_from(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Budget:
    """The budget the options ask for; a bad value ends the program through ``parser.error``
    with the option quoted."""
    if args.seconds is not None and args.seconds <= 0:
        parser.error(f"--seconds {args.seconds:g}: expected a number of seconds above 0")
    if args.iterations is not None and args.iterations < 1:
        parser.error(f"--iterations {args.iterations}: expected 1 or more")
    seconds = args.seconds if args.seconds is not None or args.iterations is not None else DEFAULT_SECONDS
    return Budget(iterations=args.iterations, seconds=seconds)


def budget_text(budget: Budget) -> str:
    """``"4 s per movement phase"``, ``"500 evaluations per movement phase"``, or both."""
    parts = ([f"{budget.iterations} evaluations"] if budget.iterations is not None else []) + \
            ([f"{budget.seconds:g} s"] if budget.seconds is not None else [])
    return " and at most ".join(parts) + " per movement phase"
