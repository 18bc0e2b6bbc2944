"""What the judge writes for the standings: each power's punctuality when a phase is
processed, the ratings when a game ends (or is rolled back from its end), and the
rebuild of every rating from the finished games (`judge ratings rebuild`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.orm import Session

from judge.standing.facts import Pool
from judge.standing.rating import Change, rate_all, rate_game
from judge.standing.reading import address_key, current_skills, finished_games
from judge.store.core import table_of
from judge.store.models_standing import LATE, MISSED, ON_TIME, RatingEntry, TurnRecord


@dataclass(frozen=True, slots=True)
class TurnVerdict:
    """One power's punctuality in a phase: its seat then and how its orders came in."""

    power: str
    membership_id: int | None
    address: str
    verdict: str


def verdict_of(ordered: bool, submitted_at: datetime | None, deadline: datetime | None) -> str:
    """On time: orders in by the deadline (or no deadline, or orders that were not sent by
    mail, e.g. sealed reveals); late: sent after it; missed: none (civil disorder)."""
    if not ordered:
        return MISSED
    if submitted_at is not None and deadline is not None and submitted_at > deadline:
        return LATE
    return ON_TIME


def record_turns(session: Session, game_id: int, phase: str, verdicts: Iterable[TurnVerdict]) -> None:
    rows = [{"game_id": game_id, "phase": phase, "power": v.power, "membership_id": v.membership_id,
             "address": address_key(v.address), "verdict": v.verdict} for v in verdicts]
    if rows:
        session.execute(insert(TurnRecord), rows)


def forget_turns(session: Session, game_id: int, phases: Iterable[str]) -> None:
    """A ROLLBACK removes the phases it undoes, and their punctuality with them."""
    session.execute(delete(TurnRecord).where(TurnRecord.game_id == game_id, TurnRecord.phase.in_(list(phases))))


def _entry(change: Change, seq: int, latest: bool) -> dict[str, object]:
    return {"seq": seq, "player": change.player, "pool": change.pool.value, "game_id": change.game.game_id,
            "game_name": change.game.name, "result": change.result, "mu": change.skill.mu,
            "sigma": change.skill.sigma, "rating": round(change.skill.shown, 3),
            "rated_at": change.game.ended_at, "latest": latest}


#: PostgreSQL advisory lock key of the ratings' writers ("RATE" in ASCII).
_RATINGS_LOCK = 0x52415445


def _one_rater_at_a_time(session: Session) -> None:
    """Games ending at once in two transactions must not both read a shared player's
    current entry and both leave theirs current: on PostgreSQL the rating step takes a
    transaction lock (released at commit); SQLite has one writer at a time anyway."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(_RATINGS_LOCK)))


def rate_finished_game(session: Session, game_id: int) -> int:
    """Rate a game that has just ended (in its transaction); how many players were rated.
    Rating a game twice changes nothing (a redelivered mail, a second pass)."""
    _one_rater_at_a_time(session)
    done = session.execute(select(RatingEntry.id).where(RatingEntry.game_id == game_id).limit(1)).first()
    games = finished_games(session, [game_id])
    if done is not None or not games:
        return 0
    game = games[0]
    changes = rate_game(game, current_skills(session, game.pool, {s.player for s in game.seats}))
    if not changes:
        return 0
    seq = int(session.execute(select(func.coalesce(func.max(RatingEntry.seq), 0))).scalar_one()) + 1
    session.execute(
        update(RatingEntry)
        .where(RatingEntry.pool == game.pool.value, RatingEntry.latest.is_(True),
               RatingEntry.player.in_([c.player for c in changes]))
        .values(latest=False), execution_options={"synchronize_session": False})
    session.execute(insert(RatingEntry), [_entry(change, seq, True) for change in changes])
    return len(changes)


def unrate_game(session: Session, game_id: int) -> None:
    """A game rolled back from its end is no longer finished: its ratings go.  When games
    were rated after it, every rating is recomputed (they started from its results)."""
    _one_rater_at_a_time(session)
    seqs = session.execute(select(RatingEntry.seq).where(RatingEntry.game_id == game_id).limit(1)).first()
    if seqs is None:
        return
    later = session.execute(select(RatingEntry.id).where(RatingEntry.seq > seqs[0]).limit(1)).first()
    if later is not None:
        rebuild(session)
        return
    players = [p for (p,) in session.execute(select(RatingEntry.player).where(RatingEntry.game_id == game_id))]
    session.execute(delete(RatingEntry).where(RatingEntry.game_id == game_id))
    for pool in Pool:
        for player in players:
            last = session.execute(
                select(func.max(RatingEntry.seq)).where(RatingEntry.player == player, RatingEntry.pool == pool.value)
            ).scalar_one()
            if last is not None:
                session.execute(update(RatingEntry).where(
                    RatingEntry.player == player, RatingEntry.pool == pool.value, RatingEntry.seq == last,
                ).values(latest=True), execution_options={"synchronize_session": False})


@dataclass(frozen=True, slots=True)
class Rebuilt:
    games: int
    entries: int
    players: int


_BATCH = 5000


def rebuild(session: Session) -> Rebuilt:
    """Every rating recomputed from the finished games, in the order they ended."""
    _one_rater_at_a_time(session)
    games = finished_games(session)
    session.execute(delete(RatingEntry))
    rows: list[dict[str, object]] = []
    latest_at: dict[tuple[str, str], int] = {}
    seq_of = {game.game_id: seq for seq, game in enumerate(games, start=1)}
    for change in rate_all(games):
        latest_at[(change.player, change.pool.value)] = len(rows)
        rows.append(_entry(change, seq_of[change.game.game_id], False))
    for index in latest_at.values():
        rows[index]["latest"] = True
    connection = session.connection()  # core inserts: the ORM's bulk path costs more than the rating
    for start in range(0, len(rows), _BATCH):
        connection.execute(insert(table_of(RatingEntry)), rows[start:start + _BATCH])
    return Rebuilt(len(games), len(rows), len(latest_at))
