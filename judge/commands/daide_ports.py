"""Where a game with RULE MACHINES takes its machine players: its DAIDE port (given by the
DAIDE edge, judge/edge/daide, when it first sees the game), for the FORM reply and LIST."""

from __future__ import annotations

from sqlalchemy.orm import Session

from judge.store.models_daide import DaidePort
from judge.store.models_game import Game


def daide_port(session: Session, game: Game) -> int | None:
    row = session.get(DaidePort, game.id)
    return row.port if row is not None else None


def daide_text(session: Session, game: Game) -> str | None:
    """``"port 16713 of the judge's host"`` for a machine game, None for any other."""
    if "MACHINES" not in {str(rule).split()[0].upper() for rule in (game.rules or [])}:
        return None
    port = daide_port(session, game)
    if port is None:
        return "a port the judge opens within a second of the game's creation (LIST shows it)"
    return f"port {port} of the judge's host (e.g. dumbbot -i<host> -p{port})"
