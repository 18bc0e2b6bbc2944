"""The phases a game has played, read back from their ``PhaseRecord`` rows as the engine's
values (positions and results), for the doors that replay them to a program (the DAIDE
edge's ORD, SCO and NOW after each phase, HST)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from adjudicator.jsonio import position_from_json
from adjudicator.results import OrderResult
from adjudicator.types import Position
from judge.store.models_game import Game, PhaseRecord
from judge.store.queries import variant_of


@dataclass(frozen=True)
class Played:
    """A processed phase as the engine sees it: the positions before and after, the results."""

    phase: str
    before: Position
    after: Position
    results: tuple[OrderResult, ...]


def phases_since(session: Session, game: Game, seen: int) -> list[tuple[int, Played]]:
    """Processed phases with a record id above ``seen``, oldest first."""
    rows = session.scalars(select(PhaseRecord).where(PhaseRecord.game_id == game.id, PhaseRecord.id > seen)
                           .order_by(PhaseRecord.id)).all()
    return [(row.id, played_of(game, row)) for row in rows]


def played_of(game: Game, row: PhaseRecord) -> Played:
    variant = variant_of(game)
    results = tuple(OrderResult(r["power"], r["order"], r["result"], r.get("reason")) for r in row.results)
    return Played(row.phase, position_from_json(variant, row.position_before),
                  position_from_json(variant, row.position_after), results)


def last_record_id(session: Session, game: Game) -> int:
    """The id of the game's latest phase record (0 before any): where a reader of
    ``phases_since`` starts."""
    return int(session.scalar(select(func.max(PhaseRecord.id)).where(PhaseRecord.game_id == game.id)) or 0)


def record_of(session: Session, game: Game, phase: str) -> Played | None:
    """The phase named ``phase`` (``S1901M``), if it has been processed."""
    row = session.scalar(select(PhaseRecord).where(PhaseRecord.game_id == game.id, PhaseRecord.phase == phase))
    return played_of(game, row) if row is not None else None
