"""Reading a game's stored state as the engine's and the turn logic's values.

These helpers are shared by the handlers, the reply and (later) the scheduler: a game's
variant, position, timing and rules, its members, and the deadline as a person reads it.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Iterable

from sqlalchemy import bindparam, event, inspect, select
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction

import maps
from adjudicator.api import RULES
from adjudicator.jsonio import position_from_json
from adjudicator.types import Position, Variant
from judge.refusal import CommandRefused
from judge.store.times import as_utc  # noqa: F401  (callers import it from here)
from judge.store.models_game import (
    DISMISSED,
    EJECTED,
    MASTER,
    MEMBER_ACTIVE,
    OBSERVER,
    PLAYER,
    Game,
    Membership,
)
from judge.turns import Timing, format_deadline, format_remaining, parse_timing
from judge.turns.timing import TimingError
from mailcmds import PowerListError, resolve_power


@lru_cache(maxsize=16)
def variant_named(name: str) -> Variant:
    """The parsed map (maps.load reads and parses the file; variants are immutable)."""
    return maps.load(name)


def variant_of(game: Game) -> Variant:
    return variant_named(game.map_name)


def position_of(game: Game) -> Position:
    """The game's current position; the game must have started."""
    if game.position is None:
        raise CommandRefused(f"game '{game.name}' has not started yet")
    return _position_from_text(game.map_name, json.dumps(game.position, sort_keys=True, separators=(",", ":")))


@lru_cache(maxsize=512)
def _position_from_text(map_name: str, document: str) -> Position:
    """Positions are immutable values: one parse per distinct stored document.  Mails to the
    same game in the same phase (most of them) skip parsing the JSON again, and keep the
    engine's per-position context (adjacency work for order checks) between mails."""
    return position_from_json(variant_named(map_name), json.loads(document))


def timing_of(game: Game) -> Timing:
    """The game's TIMING (stored as canonical text) in the game's zone."""
    text = str((game.timing or {}).get("text", ""))
    try:
        base = Timing(zone=game.zone or "UTC")
    except TimingError:
        base = Timing()
    return parse_timing(text, base=base) if text else base


def rules_of(game: Game) -> frozenset[str]:
    """The rule names of the game (values such as ``GRACE_BUDGET 2`` keep their value)."""
    return frozenset(str(rule) for rule in (game.rules or ()))


def engine_rules(game: Game) -> frozenset[str]:
    """The game's rules the engine knows (paradox and convoy options); the rest are the judge's."""
    return frozenset(rule for rule in rules_of(game) if rule in RULES)


def rule_names(game: Game) -> frozenset[str]:
    """Just the names: ``GRACE_BUDGET 2`` -> ``GRACE_BUDGET``."""
    return frozenset(rule.split()[0] for rule in rules_of(game))


def has_rule(game: Game, name: str) -> bool:
    return name in rule_names(game)


# Hot-path statements built once, with bound parameters: building a select and its cache
# key on every call cost more than running it (about 120 against 40 microseconds).
_GAME = select(Game).where(Game.name == bindparam("name"))
_GAME_LOCKED = _GAME.with_for_update()
_MEMBERS_OF_GAME = select(Membership).where(Membership.game_id == bindparam("game_id")).order_by(Membership.id)


# Games found by name in this transaction: a SIGNON mail looked its game up two or three
# times (the sign-on throttle, SIGNON, a LIST), each a SELECT whose row the identity map
# then discarded for the object it already held.  An entry is used only while it is still
# that game's (in the session, not deleted, still so named); the memo is dropped when the
# transaction ends or a rollback may have undone what it knows.
_GAMES_MEMO = "judge.games_by_name"


def find_game(session: Session, name: str, *, lock: bool = False) -> Game:
    """The game called ``name``; ``lock`` takes its row lock (PostgreSQL; SQLite writers are
    serialised already) so two daemons cannot both fill the last place."""
    key = name.lower()
    memo: dict[str, Game] = session.info.setdefault(_GAMES_MEMO, {})
    game = None if lock else memo.get(key)
    if game is not None and not _still_named(session, game, key):
        game = None
    if game is None:
        game = session.execute(_GAME_LOCKED if lock else _GAME, {"name": key}).scalar_one_or_none()
        if game is None:
            raise CommandRefused(f"there is no game '{name}' on this judge (LIST shows the games)")
        memo[key] = game
    return game


def _still_named(session: Session, game: Game, key: str) -> bool:
    return still_loaded(session, game) and game.name == key


def still_loaded(session: Session, row: object) -> bool:
    """Whether a memoised ORM ``row`` is still this session's, stored and not expired (a
    memo entry that is not is read afresh)."""
    state = inspect(row)
    return state.session is session and state.persistent and not state.expired


# Order sets read by (game, phase, power) in this transaction: a mail with orders read its
# power's set two or three times (the orders, the reply's view of the session), each a
# SELECT.  Kept, and dropped, exactly as the games memo above (judge.phases.turnstate).
ORDER_SETS_MEMO = "judge.order_sets"


def _forget_games(session: Session) -> None:
    session.info.pop(_GAMES_MEMO, None)
    session.info.pop(ORDER_SETS_MEMO, None)


# A game's membership rows, read once per session and kept until they may change.  A mail
# asked for them two to nine times (SIGNON, the turn state after orders, PRESS to each
# power, the reply), each an ORM query loading every row again.  The memo is dropped
# whenever a flush writes a Membership, any DML statement runs through the session, a
# transaction or savepoint rolls back, or the transaction ends; before it is used,
# pending changes are flushed as the query's autoflush would.
_MEMBERS_MEMO = "judge.game_members"


def game_members(session: Session, game: Game) -> list[Membership]:
    """Every membership row of ``game`` (any role or status), in id order."""
    game_id = game.id  # None for a game not flushed yet: "game_id IS NULL" finds nothing
    if session.autoflush:
        session.flush()  # what the query's autoflush would do; may drop the memo
    if game_id is None:
        return []
    memo: dict[int, list[Membership]] = session.info.setdefault(_MEMBERS_MEMO, {})
    rows = memo.get(game_id)
    if rows is None:
        rows = memo[game_id] = list(session.execute(_MEMBERS_OF_GAME, {"game_id": game_id}).scalars())
    return list(rows)


def _forget_members(session: Session) -> None:
    session.info.pop(_MEMBERS_MEMO, None)


@event.listens_for(Session, "after_flush")
def _members_flushed(session: Session, _context: object) -> None:
    if _MEMBERS_MEMO in session.info and any(
        isinstance(row, Membership) for row in (*session.new, *session.dirty, *session.deleted)
    ):
        _forget_members(session)


@event.listens_for(Session, "do_orm_execute")
def _members_statement(state: ORMExecuteState) -> None:
    if not state.is_select:
        _forget_members(state.session)
        _forget_games(state.session)


@event.listens_for(Session, "after_soft_rollback")
def _members_rolled_back(session: Session, _previous: object) -> None:
    _forget_members(session)
    _forget_games(session)


@event.listens_for(Session, "after_transaction_end")
def _members_transaction_ended(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # another transaction of this session reads afresh
        _forget_members(session)
        _forget_games(session)


def members(session: Session, game: Game, *, role: str | None = None,
            active_only: bool = True) -> list[Membership]:
    return [
        row for row in game_members(session, game)
        if (role is None or row.role == role) and (not active_only or row.status == MEMBER_ACTIVE)
    ]


def players(session: Session, game: Game) -> list[Membership]:
    return members(session, game, role=PLAYER)


def numbered_players(session: Session, game: Game) -> list[tuple[str, Membership]]:
    """(``P1``, ``P2``, ... by order of joining, membership) of the game's players: how a
    player without a power yet signs on (``SIGNON P3@game``).  A player who left keeps his
    number, so the others' numbers never shift."""
    everyone = [row for row in game_members(session, game) if row.role == PLAYER]
    return [(f"P{index + 1}", row) for index, row in enumerate(everyone) if row.status == MEMBER_ACTIVE]


def player_label(session: Session, game: Game, member: Membership) -> str | None:
    """The member's ``P`` number (see ``numbered_players``), None for anyone but a player."""
    return next((label for label, row in numbered_players(session, game) if row.id == member.id), None)


def observers(session: Session, game: Game) -> list[Membership]:
    return members(session, game, role=OBSERVER)


def master_of(session: Session, game: Game) -> Membership | None:
    found = members(session, game, role=MASTER)
    return found[0] if found else None


def player_of(session: Session, game: Game, power: str) -> Membership | None:
    """The active player of ``power``, if it has one."""
    for member in players(session, game):
        if member.power == power:
            return member
    return None


def former_players(session: Session, game: Game, power: str) -> list[Membership]:
    """The players ``power`` had who were removed (EJECTED or DISMISSED), latest first."""
    return list(session.execute(
        select(Membership).where(Membership.game_id == game.id, Membership.role == PLAYER,
                                 Membership.power == power, Membership.status.in_((EJECTED, DISMISSED)))
        .order_by(Membership.id.desc())).scalars())


def latest_of_power(session: Session, game: Game, power: str) -> Membership | None:
    """The most recent membership row of ``power`` (active or not)."""
    return session.execute(
        select(Membership)
        .where(Membership.game_id == game.id, Membership.role == PLAYER, Membership.power == power)
        .order_by(Membership.id.desc())
        .limit(1)
    ).scalar_one_or_none()


def power_named(game: Game, token: str) -> str:
    """A power of the game's map from its name or initial; refuses with the known powers."""
    try:
        return resolve_power(token, variant_of(game).powers)
    except PowerListError as problem:
        raise CommandRefused(str(problem)) from None


def power_names(game: Game) -> tuple[str, ...]:
    return tuple(power.name for power in variant_of(game).powers)


def zone_for(game: Game, member: Membership | None) -> str:
    """The zone deadlines are shown in: the member's SET ZONE, else the game's."""
    if member is not None and member.zone:
        return member.zone
    return game.zone or "UTC"


def deadline_text(game: Game, member: Membership | None, now: datetime) -> str | None:
    """``Sat 21 Nov 2026 20:00 CET (2 days 3 hours left)``, or None without a deadline."""
    if game.deadline is None:
        return None
    deadline = as_utc(game.deadline)
    remaining = format_remaining(deadline, now)
    shown = format_deadline(deadline, zone_for(game, member))
    return f"{shown} ({'passed' if remaining == 'passed' else remaining + ' left'})"


def addresses(rows: Iterable[Membership]) -> list[str]:
    """Distinct addresses in order (one person may hold two places)."""
    seen: dict[str, None] = {}
    for row in rows:
        if row.address:
            seen.setdefault(row.address.lower(), None)
    return list(seen)
