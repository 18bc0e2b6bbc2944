"""The picture of a phase drawn before the game's write transaction (judge/phases/pictures.py).

The scheduler pass calls ``draw_ahead`` for each due game just before claiming it, in a
session of its own that writes nothing.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.phases.bot_moves import BotMovesPending
from judge.phases.pictures import phase_picture
from judge.phases.processing import adjudicate_current
from judge.phases.sealed_flow import is_sealed
from judge.phases.turnstate import progress_of, turn_state_and_seats
from judge.lifecycle import ACTIVE
from judge.store.models_game import Game
from judge.turns import Action, decide

__all__ = ["draw_ahead"]


def draw_ahead(session: Session, game_id: int, now: datetime) -> bool:
    """Draw the picture of a due game's phase if this scheduler pass is about to process it.

    Read-only (nothing is flushed; the session's transaction ends before drawing): the same decision
    and the same adjudication as the pass's transaction, whose ``phase_picture`` then finds
    the drawing made.  Sealed games are left to the transaction (their orders come from
    reveals checked there).  Returns whether a picture was drawn."""
    game = session.get(Game, game_id)
    if game is None or game.status != ACTIVE or game.position is None or game.deadline is None or is_sealed(game):
        return False
    with session.no_autoflush:
        state, _ = turn_state_and_seats(session, game, now, progress=progress_of(session, game))
        if decide(state).action is not Action.PROCESS:
            return False
        try:
            done = adjudicate_current(session, game)
        except BotMovesPending:  # the pass waits for the bot: nothing to draw yet
            session.rollback()
            return False
    name = game.name
    session.rollback()  # end the read before drawing: a reader can hold up SQLite writers
    phase_picture(name, done.variant, str(done.before.phase), done.after, done.results)
    return True
