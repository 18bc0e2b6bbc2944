"""Fair random numbers by commit-reveal (reference 002).

The judge announces N and which numbers win for whom (a :class:`~judge.fair.assignment.Contest`).
Every participant commits to a number 0..N-1; when all commitments are in they are
published; then the numbers are revealed and their sum mod N is the result.  Anyone who
does not reveal by the deadline counts as 0, and the outcome says who that was.

Checking a reveal against its signed commitment is the crypto layer's job; this value only
takes numbers that were already verified.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Sequence


class LotteryError(ValueError):
    """A step the lottery cannot take; the message quotes the offending input."""


def check_number(number: int, outcomes: int) -> int:
    """``number`` if it lies in 0..outcomes-1, else a :class:`LotteryError` quoting it."""
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < outcomes:
        raise LotteryError(f"number {number!r} is outside 0..{outcomes - 1}: give a whole number from 0 to {outcomes - 1}")
    return number


def parse_number(text: str, outcomes: int) -> int:
    """A revealed number as written by a player (``" 4 "``), checked against 0..outcomes-1."""
    stripped = text.strip()
    if not stripped.isdigit() or not stripped.isascii():
        raise LotteryError(f"{text!r} is not a number: give a whole number from 0 to {outcomes - 1}")
    return check_number(int(stripped), outcomes)


class Stage(enum.Enum):
    COMMITTING = "committing"  # commitments are being collected, none shown yet
    REVEALING = "revealing"  # commitments published; reveals are being collected
    CLOSED = "closed"  # everyone revealed or the deadline passed


@dataclass(frozen=True)
class LotteryOutcome:
    """The sum of the counted numbers, the result (sum mod N), and who counted as 0."""

    outcomes: int
    counted: tuple[tuple[str, int], ...]
    defaulted: tuple[str, ...]

    @property
    def total(self) -> int:
        return sum(number for _, number in self.counted)

    @property
    def number(self) -> int:
        return self.total % self.outcomes


@dataclass(frozen=True)
class Lottery:
    """One draw of a number 0..``outcomes``-1 among ``participants``."""

    outcomes: int
    participants: tuple[str, ...]
    committed: frozenset[str] = frozenset()
    reveals: tuple[tuple[str, int], ...] = ()
    stage: Stage = Stage.COMMITTING

    def __post_init__(self) -> None:
        if self.outcomes < 1:
            raise LotteryError(f"a lottery needs at least one outcome, not {self.outcomes!r}")
        if not self.participants or len(set(self.participants)) != len(self.participants):
            raise LotteryError(f"participants must be named once each: {list(self.participants)!r}")

    @classmethod
    def announce(cls, outcomes: int, participants: Sequence[str]) -> "Lottery":
        return cls(outcomes, tuple(participants))

    @property
    def revealed(self) -> dict[str, int]:
        """participant -> revealed number."""
        return dict(self.reveals)

    def _participant(self, player: str) -> str:
        if player not in self.participants:
            raise LotteryError(f"{player!r} does not take part in this lottery")
        return player

    @property
    def missing_commitments(self) -> tuple[str, ...]:
        return tuple(p for p in self.participants if p not in self.committed)

    @property
    def missing_reveals(self) -> tuple[str, ...]:
        return tuple(p for p in self.participants if p in self.committed and p not in self.revealed)

    def commit(self, player: str) -> "Lottery":
        """Record that ``player`` sent a (verified) commitment; a new one replaces the old
        while the commitments are still sealed."""
        self._participant(player)
        if self.stage is not Stage.COMMITTING:
            raise LotteryError(f"{player!r} cannot commit now: the commitments were already published")
        return replace(self, committed=self.committed | {player})

    def publish_commitments(self, deadline_passed: bool = False) -> "Lottery":
        """Open the reveals once all have committed (or, after the deadline, with those who did)."""
        if self.stage is not Stage.COMMITTING:
            raise LotteryError("the commitments were already published")
        if self.missing_commitments and not deadline_passed:
            raise LotteryError(f"commitments missing from {', '.join(self.missing_commitments)}")
        return replace(self, stage=Stage.REVEALING)

    def reveal(self, player: str, number: int) -> "Lottery":
        """Record a revealed number (already checked against its commitment)."""
        self._participant(player)
        if self.stage is Stage.COMMITTING:
            raise LotteryError(f"{player!r} cannot reveal yet: the commitments are not published")
        if self.stage is Stage.CLOSED:
            raise LotteryError(f"{player!r} cannot reveal: the lottery is closed")
        if player not in self.committed:
            raise LotteryError(f"{player!r} cannot reveal: no commitment was made in time")
        check_number(number, self.outcomes)
        earlier = self.revealed.get(player)
        if earlier is not None:
            if earlier != number:
                raise LotteryError(f"{player!r} already revealed {earlier}, not {number}")
            return self
        after = replace(self, reveals=self.reveals + ((player, number),))
        return replace(after, stage=Stage.CLOSED) if not after.missing_reveals else after

    def close(self) -> "Lottery":
        """The reveal deadline passed: whoever has not revealed counts as 0."""
        if self.stage is Stage.COMMITTING:
            raise LotteryError("the lottery cannot close before the commitments are published")
        return replace(self, stage=Stage.CLOSED)

    def outcome(self) -> LotteryOutcome:
        if self.stage is not Stage.CLOSED:
            raise LotteryError("no outcome yet: reveals are still awaited")
        revealed = self.revealed
        counted = tuple((p, revealed.get(p, 0)) for p in self.participants)
        defaulted = tuple(p for p in self.participants if p not in revealed)
        return LotteryOutcome(self.outcomes, counted, defaulted)
