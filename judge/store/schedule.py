"""The unit of work's last step: the scheduler looks again at every game a transaction
touched.

A change that can make a game ready, or change its reminders and deadline (the game's
own row, a power's orders, a membership: WAIT flags, seats, dismissals), marks the game;
when the transaction commits, each marked game that is active becomes due at once
(``next_due_at = now`` unless it is already due earlier) and every other game leaves the
scheduler's index.  The pass then works out the exact next time (judge.turns.next_due).
A transaction that computed a game's next due time itself (the scheduler pass, phase
processing) keeps that value.  ``now`` is the transaction's clock, given by the owner of
the unit of work (``Store.unit_of_work(now=...)`` or ``session.info[NOW]``); without one,
nothing is rescheduled.
"""

from __future__ import annotations

from datetime import datetime
from itertools import chain
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.attributes import PASSIVE_NO_INITIALIZE, get_history
from sqlalchemy.orm.util import identity_key

from judge.lifecycle import ACTIVE
from judge.store.models_game import Game, Membership, OrderSet
from judge.store.times import as_utc

NOW = "now"  # the key Store.unit_of_work(now=...) sets
#: Ids of games whose phase a mail made ready to process at once (judge.phases.turnstate):
#: the worker runs the scheduler's pass for them right after the mail's transaction commits.
PROCESS_AFTER_COMMIT = "process_after_commit"
_TOUCHED = "touched_games"
_TOUCHED_IDS = "touched_game_ids"
_SCHEDULED = "scheduled_games"
#: Columns whose change alone does not touch a game (the scheduler's own bookkeeping).
_BOOKKEEPING = frozenset({"next_due_at", "version"})


def watch(factory: sessionmaker[Session]) -> None:
    """Reschedule touched games in every transaction of sessions from ``factory``."""
    event.listen(factory, "before_flush", _collect)
    event.listen(factory, "before_commit", _reschedule)


def touch_schedule(game: Game, now: datetime) -> None:
    """An active game becomes due at ``now`` (or stays due earlier); any other leaves the index."""
    # Set only when it changes: an attribute set to its own value still makes the row
    # dirty, and the commit's flush then works through the game for nothing.
    if game.status == ACTIVE:
        current = game.next_due_at
        if current is None or as_utc(current) > now:
            game.next_due_at = now
    elif game.next_due_at is not None:
        game.next_due_at = None


def _collect(session: Session, flush_context: Any, instances: Any) -> None:
    touched: list[Game] = session.info.setdefault(_TOUCHED, [])
    touched_ids: set[int] = session.info.setdefault(_TOUCHED_IDS, set())
    scheduled: set[int] = session.info.setdefault(_SCHEDULED, set())
    for row in chain(session.new, session.dirty, session.deleted):
        if isinstance(row, Game):
            state = inspect(row)
            # Only the attributes set since the last flush can have changed.
            changed = {key for key in state.committed_state
                       if get_history(row, key, PASSIVE_NO_INITIALIZE).has_changes()}
            if "next_due_at" in changed:
                scheduled.add(id(row))
            if row in session.new or changed - _BOOKKEEPING:
                if all(game is not row for game in touched):
                    touched.append(row)
        elif isinstance(row, (OrderSet, Membership)) and row.game_id is not None:
            # The game itself when the session holds it: by commit time nothing else may
            # (the identity map keeps no one alive), and loading it again costs a SELECT.
            game = session.identity_map.get(identity_key(Game, row.game_id))
            if game is None:
                touched_ids.add(row.game_id)
            elif all(known is not game for known in touched):
                touched.append(game)


def _reschedule(session: Session) -> None:
    now = session.info.get(NOW)
    if now is None or session.in_nested_transaction():
        # A savepoint's changes are rescheduled with its whole transaction: once per
        # transaction, not at each command's savepoint (a flush and a game row more each).
        return
    session.flush()  # before_commit comes before the commit's own flush: collect what is pending
    scheduled: set[int] = session.info.get(_SCHEDULED, set())
    games = list(session.info.get(_TOUCHED, ()))
    for game_id in sorted(session.info.get(_TOUCHED_IDS, ())):
        game = session.get(Game, game_id)
        if game is not None and all(game is not known for known in games):
            games.append(game)
    for game in games:
        if id(game) not in scheduled and not inspect(game).deleted:
            touch_schedule(game, now)
    session.info.pop(_TOUCHED, None)
    session.info.pop(_TOUCHED_IDS, None)
