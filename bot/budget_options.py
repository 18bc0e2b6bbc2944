"""The search budget as command-line options, the same in ``judge bot`` and the arenas.
By default a search runs ``DEFAULT_EVALUATIONS`` candidate evaluations per movement phase
(about what 4 s bought on a quiet machine: the same play for a seed however loaded the
machine is), capped at ``SAFETY_SECONDS`` of wall time.  ``--iterations N`` sets the count
(alone: no time limit); ``--seconds S`` sets the wall time (alone: the time decides, as the
bot did before its budget counted evaluations); both: whichever comes first."""

from __future__ import annotations

import argparse

from bot.player import DEFAULT_EVALUATIONS, SAFETY_SECONDS, Budget


def add_budget_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=None,
                        help=f"wall time per movement phase (default: a cap of {SAFETY_SECONDS:g} beside the default "
                             "evaluations; given alone, the time decides and there is no count)")
    parser.add_argument("--iterations", type=int, default=None,
                        help=f"search evaluations per movement phase (default {DEFAULT_EVALUATIONS}, about what 4 s "
                             "buys on a quiet machine: the same play for a seed however loaded the machine is); "
                             "given alone, no time limit")


def budget_from(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Budget:
    """The budget the options ask for; a bad value ends the program through ``parser.error``
    with the option quoted."""
    if args.seconds is not None and args.seconds <= 0:
        parser.error(f"--seconds {args.seconds:g}: expected a number of seconds above 0")
    if args.iterations is not None and args.iterations < 1:
        parser.error(f"--iterations {args.iterations}: expected 1 or more")
    if args.seconds is None and args.iterations is None:
        return Budget()
    return Budget(iterations=args.iterations, seconds=args.seconds)


def budget_text(budget: Budget) -> str:
    """``"30000 evaluations and at most 15 s per movement phase"``, ``"4 s per movement
    phase"``, or ``"500 evaluations per movement phase"``."""
    parts = ([f"{budget.iterations} evaluations"] if budget.iterations is not None else []) + \
            ([f"{budget.seconds:g} s"] if budget.seconds is not None else [])
    return " and at most ".join(parts) + " per movement phase"
