"""Draw and concession votes by mail, and whether they end the game.

* ``SET DRAW`` / ``SET NO DRAW``: by default a draw includes all survivors (DIAS) and passes
  when every survivor has voted ``SET DRAW``.
* With ``RULE NO_DIAS`` a vote lists the powers (``SET DRAW AEF``, the map's power letters).
  A vote for S accepts every draw among a subset of S that still includes the voter when the
  voter listed itself (listing oneself means "a draw with me in it").  The largest draw every
  survivor accepts is the intersection I of all lists; it passes when every survivor has
  voted for a draw, I has at least two powers, and every voter who listed itself is in I.
  ``SET DRAW`` without letters in a NO_DIAS game is a vote for all survivors.
* ``SET CONCEDE power``: the game is conceded to a surviving power when every other survivor
  has voted to concede to it.  A passing concession wins over a passing draw.

Secrecy and lifetime (the caller's duty): votes are never shown to other players while the
game runs (only "NVR", who has not voted, may be shown); a ballot stands from phase to phase
until withdrawn (as the DPjudge keeps it), carried over by ``carried_over`` and counted
again after each phase; when the game ends the votes may be revealed.  Only survivors vote:
ballots of eliminated powers are ignored.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Mapping

__all__ = ["Ballot", "DrawError", "Outcome", "OutcomeKind", "carried_over", "missing_votes", "parse_draw_powers", "tally", "NO_DIAS"]

NO_DIAS = "NO_DIAS"


class DrawError(ValueError):
    """A draw or concession vote that cannot be accepted; the message quotes it."""


@dataclass(frozen=True, slots=True)
class Ballot:
    """One power's current votes.  ``draw``: True (SET DRAW), False (SET NO DRAW), None (none)."""

    draw: bool | None = None
    draw_powers: frozenset[str] | None = None  # NO_DIAS: the listed powers; None: all survivors
    concede_to: str | None = None

    def __post_init__(self) -> None:
        if self.draw_powers is not None and self.draw is not True:
            raise DrawError("a list of powers belongs to SET DRAW, not to SET NO DRAW")


class OutcomeKind(enum.Enum):
    DRAW = "draw"
    CONCESSION = "concession"


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: OutcomeKind
    powers: frozenset[str]  # the powers sharing the draw, or the one conceded to


def parse_draw_powers(text: str, letters: Mapping[str, str]) -> frozenset[str]:
    """``"AEF"`` (or ``"A E F"``, ``"A,E,F"``) -> power names, via the map's ``letters``
    (letter -> power name).  Raises DrawError quoting the text on an unknown or repeated letter.
    """
    table = {k.upper(): v for k, v in letters.items()}
    chars = [c.upper() for c in text if not c.isspace() and c != ","]
    if not chars:
        raise DrawError(f"SET DRAW {text!r}: no powers listed (expected letters such as AEF)")
    unknown = [c for c in chars if c not in table]
    if unknown:
        known = "".join(sorted(table))
        raise DrawError(f"SET DRAW {text!r}: unknown power letter {unknown[0]!r} (expected letters from {known})")
    if len(set(chars)) != len(chars):
        raise DrawError(f"SET DRAW {text!r}: a power is listed twice")
    return frozenset(table[c] for c in chars)


def _check(survivors: frozenset[str], ballots: Mapping[str, Ballot], rules: frozenset[str]) -> None:
    for power, ballot in ballots.items():
        if power not in survivors:
            continue
        if ballot.draw_powers is not None:
            if NO_DIAS not in rules and ballot.draw_powers != survivors:
                raise DrawError(
                    f"{power}: this game draws only among all survivors (DIAS); "
                    "send SET DRAW without letters (a list needs RULE NO_DIAS)"
                )
            outside = ballot.draw_powers - survivors
            if outside:
                raise DrawError(f"{power}: a draw can only include survivors, not {', '.join(sorted(outside))}")
            if len(ballot.draw_powers) < 2:
                raise DrawError(f"{power}: a draw needs at least two powers (use SET CONCEDE for one)")
        if ballot.concede_to is not None and ballot.concede_to not in survivors:
            raise DrawError(f"{power}: cannot concede to {ballot.concede_to}, which is not a survivor")


def tally(survivors: frozenset[str], ballots: Mapping[str, Ballot], rules: frozenset[str] = frozenset()) -> Outcome | None:
    """The outcome the current ballots bring about, or None while the game goes on.

    Raises DrawError for a ballot the game's rules do not allow (the draw command should
    have refused it with the same message).
    """
    _check(survivors, ballots, rules)
    voting = {p: b for p, b in ballots.items() if p in survivors}

    for candidate in sorted({b.concede_to for b in voting.values() if b.concede_to is not None}):
        others = survivors - {candidate}
        if others and all(voting.get(p, Ballot()).concede_to == candidate for p in others):
            return Outcome(OutcomeKind.CONCESSION, frozenset({candidate}))

    if len(survivors) < 2 or not all(voting.get(p, Ballot()).draw is True for p in survivors):
        return None
    if NO_DIAS not in rules:
        return Outcome(OutcomeKind.DRAW, survivors)
    lists = {p: voting[p].draw_powers or survivors for p in survivors}
    shared = frozenset.intersection(*lists.values())
    self_listed = {p for p, listed in lists.items() if p in listed}
    if len(shared) >= 2 and self_listed <= shared:
        return Outcome(OutcomeKind.DRAW, shared)
    return None


def missing_votes(survivors: frozenset[str], ballots: Mapping[str, Ballot]) -> frozenset[str]:
    """Survivors who have cast no draw vote (shown as NVR; never reveals how others voted)."""
    return frozenset(p for p in survivors if ballots.get(p, Ballot()).draw is None)


def carried_over(ballot: Ballot, survivors: frozenset[str]) -> Ballot:
    """``ballot`` as it stands in a phase whose survivors are ``survivors``.

    A NO_DIAS list accepts every draw among a subset of it, so eliminated powers are simply
    dropped from it; a list left with fewer than two powers, or a concession to an
    eliminated power, can no longer pass and lapses (the other half of the ballot stays).
    """
    draw, listed, concede_to = ballot.draw, ballot.draw_powers, ballot.concede_to
    if listed is not None:
        listed = listed & survivors
        if len(listed) < 2:
            draw, listed = None, None
    if concede_to is not None and concede_to not in survivors:
        concede_to = None
    return Ballot(draw, listed, concede_to)
