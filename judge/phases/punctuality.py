"""Each power's punctuality in the phase being processed, stored for the standings
(judge/standing: records and dedication): the phases that waited for a power's orders,
and whether its player's came in by the deadline, after it, or not at all."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from adjudicator.types import Position, Variant
from judge.phases.turnstate import active_powers
from judge.standing.keeping import TurnVerdict, record_turns, verdict_of
from judge.store.models_game import MEMBER_ACTIVE, Game, OrderSet
from judge.store.queries import players
from judge.store.times import as_utc


def record_punctuality(session: Session, game: Game, variant: Variant, before: Position,
                       ordered: frozenset[str]) -> None:
    """Called before the phase's orders are cleared; powers without a player (dummies,
    vacant seats) are nobody's record."""
    seats = {m.power: m for m in players(session, game) if m.status == MEMBER_ACTIVE and m.power}
    waited = sorted(active_powers(variant, before) & set(seats))
    if not waited:
        return
    sent = dict(session.execute(
        select(OrderSet.power, OrderSet.submitted_at).where(OrderSet.game_id == game.id,
                                                            OrderSet.phase == str(before.phase))
    ).all())
    deadline = as_utc(game.deadline) if game.deadline is not None else None
    record_turns(session, game.id, str(before.phase), [
        TurnVerdict(power, seats[power].id, seats[power].address,
                    verdict_of(power in ordered, as_utc(sent[power]) if power in sent else None, deadline))
        for power in waited
    ])
