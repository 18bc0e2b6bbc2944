"""Draw and concession ballots in the store: one JSON value on each player's membership.

A ballot stands until the player withdraws it (SET NO DRAW, SET NO CONCEDE; a bot's
NOT (DRW)) or the game is rolled back, as the DPjudge keeps votes.  After each processed
phase the standing ballots are counted again among the new survivors (``standing_outcome``):
an elimination can make a draw pass that nobody voted for again.
"""

from __future__ import annotations

from typing import Any, Mapping

from sqlalchemy.orm import Session

from judge.store.models_game import Game
from judge.store.queries import players, rules_of
from judge.turns import Ballot, DrawError, tally
from judge.turns.draws import Outcome, carried_over

__all__ = ["ballot_from_json", "ballot_to_json", "ballots_of", "standing_outcome", "vote_text"]


def ballot_to_json(ballot: Ballot) -> dict[str, Any] | None:
    if ballot == Ballot():
        return None
    return {
        "draw": ballot.draw,
        "draw_powers": sorted(ballot.draw_powers) if ballot.draw_powers is not None else None,
        "concede_to": ballot.concede_to,
    }


def ballot_from_json(stored: Mapping[str, Any] | None) -> Ballot:
    if not stored:
        return Ballot()
    listed = stored.get("draw_powers")
    return Ballot(stored.get("draw"), frozenset(listed) if listed is not None else None, stored.get("concede_to"))


def ballots_of(session: Session, game: Game) -> dict[str, Ballot]:
    """Every current player's ballot, by power."""
    return {m.power: ballot_from_json(m.draw_vote) for m in players(session, game) if m.power}


def vote_text(ballot: Ballot) -> str:
    """How a power voted, for the end-of-game mail."""
    parts = []
    if ballot.draw is True:
        parts.append("draw " + ("with all survivors" if ballot.draw_powers is None else ", ".join(sorted(ballot.draw_powers))))
    elif ballot.draw is False:
        parts.append("no draw")
    if ballot.concede_to:
        parts.append(f"concede to {ballot.concede_to}")
    return "; ".join(parts) or "no vote"


def standing_outcome(session: Session, game: Game, alive: frozenset[str]) -> tuple[Outcome | None, dict[str, Ballot]]:
    """Carry every stored ballot over to a new phase whose survivors are ``alive`` (stored
    back, eliminated powers dropped from it) and count them: (the outcome, or None while
    the game goes on; the ballots of the survivors)."""
    ballots: dict[str, Ballot] = {}
    for member in players(session, game):
        if not member.power or not member.draw_vote:
            continue
        kept = carried_over(ballot_from_json(member.draw_vote), alive)
        member.draw_vote = ballot_to_json(kept)
        if member.power in alive:
            ballots[member.power] = kept
    rules = frozenset(rule.split()[0].upper() for rule in rules_of(game))
    try:
        return tally(alive, ballots, rules), ballots
    except DrawError:  # a ballot the rules no longer allow counts for nothing
        return None, ballots
