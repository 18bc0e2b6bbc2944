"""Dedication: a player's punctuality as one number, as njudge players know it (a score that
on-time turns raise and late, missed and abandoned ones lower), and the on-time ratio.

    dedication = on_time - 2 * late - 5 * missed - 20 * (games abandoned + civil disorders)

A newcomer has 0.  A steady player gains one point a turn; one late turn costs two
on-time turns, a missed one five, and leaving a game twenty (README "Dedication",
docs/ratings.md)."""

from __future__ import annotations

from judge.standing.facts import Punctuality

LATE_COST = 2
MISSED_COST = 5
ABANDON_COST = 20


def dedication(punctuality: Punctuality, left_games: int) -> int:
    """The score from turns and from games left (abandoned or dismissed in civil disorder)."""
    return (punctuality.on_time - LATE_COST * punctuality.late - MISSED_COST * punctuality.missed
            - ABANDON_COST * left_games)


def on_time_ratio(punctuality: Punctuality) -> float | None:
    """The share of turns with orders in by the deadline; None before any turn."""
    return punctuality.on_time / punctuality.turns if punctuality.turns else None
