"""The store as the standing computations see it: player keys, finished games as frozen
``FinishedGame`` values, punctuality counts and current ratings.  Reads only.

Players are keyed by their registered name where the registry links the address
(``judge.registry.identity.player_of``), else by address (lower case); machine players by
their kind: ``machine:NAME`` (the name a DAIDE program gave)
and ``bot:JudgeBot`` (the judge's own bot), so their strength shows on the same scale.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Mapping

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from judge.lifecycle import ENDED
from judge.mailio.outgoing import MACHINE_DOMAIN
from judge.standing.facts import FinishedGame, Pool, Punctuality, Result, Seat
from judge.registry.identity import addresses_of, player_of
from judge.standing.rating import Skill
from judge.store.models_daide import MachineSeat
from judge.store.models_game import DISMISSED, DUMMY, EJECTED, PLAYER, RESIGNED, Game, Membership
from judge.store.models_standing import LATE, MISSED, ON_TIME, RatingEntry, TurnRecord

JUDGE_BOT_KEY = "bot:JudgeBot"
MACHINE_PREFIX = "machine:"
#: Game results that are rated (a TERMINATEd game has none).
RATED_RESULTS = frozenset({"solo", "draw", "concession"})
#: Rules that make a game gunboat for the ratings (no press between players).
GUNBOAT_RULES = frozenset({"GUNBOAT", "NO_PRESS"})
LEFT = {RESIGNED: "abandoned", EJECTED: "abandoned", DISMISSED: "civil_disorder"}


def address_key(address: str) -> str:
    return address.strip().lower()


def is_machine_address(address: str) -> bool:
    return address_key(address).endswith("@" + MACHINE_DOMAIN)


def machine_names(session: Session, membership_ids: Iterable[int] | None = None) -> dict[int, str]:
    """membership id -> the name a DAIDE machine gave (NME); all of them without ids."""
    query = select(MachineSeat.membership_id, MachineSeat.name)
    if membership_ids is not None:
        query = query.where(MachineSeat.membership_id.in_(list(membership_ids)))
    return {membership_id: name for membership_id, name in session.execute(query)}


def seat_key(membership_id: int, address: str, machines: Mapping[int, str], names: Mapping[str, str]) -> str:
    """The player a seat belongs to (module docstring); ``names``: address key -> the
    registered name it is linked to."""
    if is_machine_address(address):
        name = machines.get(membership_id)
        return MACHINE_PREFIX + name if name else JUDGE_BOT_KEY
    key = address_key(address)
    return names.get(key, key)


def registered_names(session: Session, addresses: Iterable[str]) -> dict[str, str]:
    """address key -> registered player name, for the addresses that are linked."""
    found = {}
    for key in {address_key(a) for a in addresses if not is_machine_address(a)}:
        name = player_of(session, key)
        if name is not None:
            found[key] = name
    return found


def player_keys(session: Session, address: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(every address of the player who writes from ``address``, every key their ratings
    may be under): the linked addresses and the name once registered (ratings made before
    the registration stay under the addresses until `judge ratings rebuild`)."""
    name = player_of(session, address_key(address))
    addresses = tuple(addresses_of(session, name)) if name is not None else ()
    addresses = tuple(dict.fromkeys((address, *addresses)))
    keys = tuple(dict.fromkeys(([name] if name else []) + [address_key(a) for a in addresses]))
    return addresses, keys


def shown_name(key: str) -> str:
    """A player as others see it in a list: a machine by its name, an address hidden to
    its first letter and its domain (addresses are never shown to others)."""
    if key.startswith(MACHINE_PREFIX):
        return f"{key[len(MACHINE_PREFIX):]} (machine)"
    if key == JUDGE_BOT_KEY:
        return "JudgeBot (the judge's bot)"
    local, _, domain = key.partition("@")
    return f"{local[:1]}...@{domain}" if domain else key  # without "@": a registered name


def pool_of(rules: Iterable[Any]) -> Pool:
    names = {str(rule).split()[0].upper() for rule in rules if str(rule).strip()}
    return Pool.GUNBOAT if names & GUNBOAT_RULES else Pool.PRESS


@dataclass(frozen=True, slots=True)
class MemberRow:
    id: int
    game_id: int
    power: str
    address: str
    status: str


def _alive(centres: Mapping[str, Any] | None, units: Mapping[str, Any] | None) -> frozenset[str]:
    """Powers with a centre or a unit in a stored position (the contract's JSON)."""
    centres, units = centres or {}, units or {}
    return frozenset(p for p in set(centres) | set(units) if centres.get(p) or units.get(p))


def _result(member: MemberRow, winners: frozenset[str], kind: str, alive: frozenset[str]) -> Result:
    if member.status in LEFT:
        return Result.ABANDONED
    if member.power in winners:
        return Result.DRAW if kind == "draw" else Result.SOLO
    return Result.SURVIVED if member.power in alive else Result.ELIMINATED


def finished_game(row: Any, members: Iterable[MemberRow], machines: Mapping[int, str],
                  names: Mapping[str, str]) -> FinishedGame | None:
    """A stored game as the rating reads it; None when it ended unrated (TERMINATE)."""
    outcome = row.outcome or {}
    kind = str(outcome.get("result", ""))
    if kind not in RATED_RESULTS or row.ended_at is None:
        return None
    winners = frozenset(str(p) for p in outcome.get("powers") or ())
    alive = _alive(row.centers, row.units)
    seats = tuple(
        Seat(seat_key(m.id, m.address, machines, names), m.power, result,
             len(winners) if result is Result.DRAW else 0)
        for m in members
        for result in (_result(m, winners, kind, alive),)
    )
    return FinishedGame(row.id, row.name, row.ended_at, pool_of(row.rules or ()), seats)


# The final position's centres and units only: the database extracts them (a whole
# position is the largest thing a game row holds).
_GAME_COLUMNS = (Game.id, Game.name, Game.ended_at, Game.rules, Game.outcome,
                 Game.position["centers"].label("centers"), Game.position["units"].label("units"))


def _members_query() -> Any:
    return (select(Membership.id, Membership.game_id, Membership.power, Membership.address, Membership.status)
            .where(Membership.role == PLAYER, Membership.power.is_not(None), Membership.status != DUMMY))


def finished_games(session: Session, game_ids: Iterable[int] | None = None) -> list[FinishedGame]:
    """The rated games (all of them, or those of ``game_ids``) in the order they ended.
    Three queries whatever the number of games."""
    query = select(*_GAME_COLUMNS).where(Game.status == ENDED).order_by(Game.ended_at, Game.id)
    members_query = _members_query().order_by(Membership.id)
    wanted = None if game_ids is None else list(game_ids)
    if wanted is not None:
        query = query.where(Game.id.in_(wanted))
        members_query = members_query.where(Membership.game_id.in_(wanted))
    rows = session.execute(query).all()
    by_game: dict[int, list[MemberRow]] = defaultdict(list)
    for member in session.execute(members_query):
        by_game[member.game_id].append(MemberRow(*member))
    machine_ids = [m.id for members in by_game.values() for m in members if is_machine_address(m.address)]
    machines = machine_names(session, machine_ids if wanted is not None else None)
    names = registered_names(session, (m.address for members in by_game.values() for m in members))
    games = (finished_game(row, by_game.get(row.id, ()), machines, names) for row in rows)
    return [game for game in games if game is not None]


def punctuality_of(session: Session, addresses: Iterable[str]) -> Punctuality:
    """Turns recorded for seats held at any of ``addresses`` (kept in lower case)."""
    counts = dict(session.execute(
        select(TurnRecord.verdict, func.count())
        .where(TurnRecord.address.in_(sorted({address_key(a) for a in addresses})))
        .group_by(TurnRecord.verdict)
    ).all())
    return Punctuality(counts.get(ON_TIME, 0), counts.get(LATE, 0), counts.get(MISSED, 0))


def member_rows(session: Session, addresses: Iterable[str]) -> list[MemberRow]:
    """Every player seat held at any of ``addresses``.  The store keeps a seat's address as
    it was written and the registry links lower case: a seat is found by the spellings
    given and in lower case, and by the punctuality of its phases (kept in lower case), so
    only a differently written seat that has not yet played a phase is missed.  Both by
    index: no scan of every seat (lower() over the column would be one)."""
    keys = sorted({address_key(a) for a in addresses})
    played = select(TurnRecord.membership_id).where(TurnRecord.address.in_(keys))
    query = (_members_query().where(or_(Membership.address.in_(_spellings(addresses)), Membership.id.in_(played)))
             .order_by(Membership.id))
    return [MemberRow(*row) for row in session.execute(query)]


def _spellings(addresses: Iterable[str]) -> list[str]:
    return sorted({spelling for a in addresses for spelling in (a.strip(), address_key(a))})


def current_skills(session: Session, pool: Pool, players: Iterable[str]) -> dict[str, Skill]:
    """player -> current skill in ``pool``.  A registered player never rated under the name
    carries over the newest rating of a linked address (games before the registration)."""
    players = sorted(set(players))
    rows = session.execute(
        select(RatingEntry.player, RatingEntry.mu, RatingEntry.sigma)
        .where(RatingEntry.pool == pool.value, RatingEntry.latest.is_(True), RatingEntry.player.in_(players))
    )
    skills = {player: Skill(mu, sigma) for player, mu, sigma in rows}
    for name in (p for p in players if p not in skills and "@" not in p and ":" not in p):
        earlier = latest_entries(session, [address_key(a) for a in addresses_of(session, name)]).get(pool.value)
        if earlier is not None:
            skills[name] = Skill(earlier[2], earlier[3])
    return skills


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of a rating list or a history."""

    player: str
    pool: str
    rating: float
    game: str
    result: str
    rated_at: datetime


def top(session: Session, pool: Pool, count: int) -> list[Standing]:
    rows = session.execute(
        select(RatingEntry.player, RatingEntry.pool, RatingEntry.rating, RatingEntry.game_name,
               RatingEntry.result, RatingEntry.rated_at)
        .where(RatingEntry.pool == pool.value, RatingEntry.latest.is_(True))
        .order_by(RatingEntry.rating.desc(), RatingEntry.player).limit(count)
    )
    return [Standing(*row) for row in rows]


def history(session: Session, players: Iterable[str], limit: int) -> list[Standing]:
    """The last ``limit`` entries of ``players`` (every pool), oldest first."""
    rows = session.execute(
        select(RatingEntry.player, RatingEntry.pool, RatingEntry.rating, RatingEntry.game_name,
               RatingEntry.result, RatingEntry.rated_at)
        .where(RatingEntry.player.in_(sorted(set(players))))
        .order_by(RatingEntry.seq.desc()).limit(limit)
    )
    return [Standing(*row) for row in reversed(rows.all())]


def latest_entries(session: Session, players: Iterable[str]) -> dict[str, tuple[int, str, float, float, float]]:
    """pool -> (seq, player, mu, sigma, shown rating) of the most recent current entry among
    ``players`` (one player's keys: its name and its addresses)."""
    newest: dict[str, tuple[int, str, float, float, float]] = {}
    rows = session.execute(
        select(RatingEntry.pool, RatingEntry.seq, RatingEntry.player, RatingEntry.mu, RatingEntry.sigma,
               RatingEntry.rating)
        .where(RatingEntry.player.in_(sorted(set(players))), RatingEntry.latest.is_(True))
    )
    for pool, seq, player, mu, sigma, rating in rows:
        if pool not in newest or seq > newest[pool][0]:
            newest[pool] = (seq, player, mu, sigma, rating)
    return newest


def latest_ratings(session: Session, players: Iterable[str]) -> dict[str, float]:
    """pool -> the current shown rating of the player whose keys are ``players``."""
    return {pool: entry[4] for pool, entry in latest_entries(session, players).items()}
