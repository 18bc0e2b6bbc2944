"""What the web archive shows of a game: frozen values read from the store.

The archive is public, so this module is where secrets stop: a private game or one still
in preparation has no view at all; players are named only by the name they chose (never an
address), and in a game whose identities are secret (RULE GUNBOAT, BLIND_ASSIGN) not
until it has ended; only processed phases are shown (their orders are public by then, a
sealed game's too), never orders still being written; only what went to the game's list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime
from typing import Any, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.lifecycle import ENDED, PREPARATION, status_text
from judge.registry.identity import player_of
from judge.rules import identities_secret
from judge.store.models_game import MEMBER_ACTIVE, PLAYER, Game, Membership, PhaseRecord
from judge.store.queries import rule_names, variant_named
from adjudicator.types import Variant

#: A name shown on a page is cut to this many characters (the store allows 64).
NAME_CHARS = 40
_YEAR = re.compile(r"\d+")


@dataclass(frozen=True)
class PowerRow:
    power: str
    player: str  # the name the player chose; "" when hidden, vacant or unnamed
    centres: int
    units: int
    registered: str = ""  # the registered player's name (his page's), when shown and linked


@dataclass(frozen=True)
class OrderLine:
    power: str
    order: str
    result: str


@dataclass(frozen=True)
class PhaseView:
    phase: str
    processed_at: datetime
    digest: str
    results: tuple[OrderLine, ...]
    centres: Mapping[str, int]
    record: PhaseRecord  # what the picture is drawn from

    @property
    def year(self) -> int | None:
        found = _YEAR.search(self.phase)
        return int(found.group()) if found else None


@dataclass(frozen=True)
class GameView:
    id: int
    name: str
    status: str
    status_text: str
    map_name: str
    phase: str | None
    deadline: datetime | None
    description: str
    rules: tuple[str, ...]
    ended: bool
    identities_hidden: bool
    powers: tuple[PowerRow, ...]
    phases: tuple[PhaseView, ...]
    position: Mapping[str, Any] | None
    created_at: datetime
    ended_at: datetime | None

    @property
    def updated_at(self) -> datetime:
        times = [self.created_at] + [p.processed_at for p in self.phases]
        if self.ended_at is not None:
            times.append(self.ended_at)
        return max(times)


@lru_cache(maxsize=16)
def variant(map_name: str) -> Variant:
    """A map, parsed once per process (variants are immutable)."""
    return variant_named(map_name)


def shown(game: Game) -> bool:
    """Does the public archive show this game at all?"""
    return not game.private and game.status != PREPARATION


def centre_counts(position: Mapping[str, Any]) -> dict[str, int]:
    return {power: len(centres) for power, centres in (position.get("centers") or {}).items()}


def unit_counts(position: Mapping[str, Any]) -> dict[str, int]:
    return {power: len(units) for power, units in (position.get("units") or {}).items()}


def _player_name(member: Membership | None, hidden: bool) -> str:
    """The name a player's mail gave (its From line's display name), unless it is secret;
    a name that holds an address (some mail programs repeat the address there) is not shown."""
    if member is None or hidden or not member.name or "@" in member.name:
        return ""
    return member.name[:NAME_CHARS]


def _registered(session: Session, member: Membership | None, hidden: bool) -> str:
    """The registered name of a seat's player (only confirmed links count), unless secret."""
    if member is None or hidden:
        return ""
    return player_of(session, member.address) or ""


def game_view(session: Session, game: Game) -> GameView | None:
    """The public view of ``game``; None for a game the archive does not show."""
    if not shown(game):
        return None
    ended = game.status == ENDED
    hidden = identities_secret(rule_names(game), ended)
    records = session.scalars(select(PhaseRecord).where(PhaseRecord.game_id == game.id)
                              .order_by(PhaseRecord.processed_at, PhaseRecord.id)).all()
    phases = tuple(_phase_view(record) for record in records)
    seated: dict[str, Membership] = {}
    for member in session.scalars(select(Membership).where(Membership.game_id == game.id)
                                  .order_by(Membership.id)):
        if member.role == PLAYER and member.power and member.status == MEMBER_ACTIVE:
            seated[member.power] = member
    position = game.position
    centres = centre_counts(position) if position else {}
    units = unit_counts(position) if position else {}
    powers = tuple(PowerRow(power.name, _player_name(seated.get(power.name), hidden),
                            centres.get(power.name, 0), units.get(power.name, 0),
                            _registered(session, seated.get(power.name), hidden))
                   for power in variant(game.map_name).powers)
    return GameView(
        id=game.id, name=game.name, status=game.status, status_text=status_text(game.status).split(" (")[0],
        map_name=game.map_name, phase=game.phase, deadline=game.deadline, description=game.description or "",
        rules=tuple(str(rule) for rule in (game.rules or ())), ended=ended, identities_hidden=hidden,
        powers=powers, phases=phases, position=position, created_at=game.created_at, ended_at=game.ended_at,
    )


def _phase_view(record: PhaseRecord) -> PhaseView:
    results = tuple(OrderLine(str(item.get("power", "")), str(item.get("order", "")), str(item.get("result", "")))
                    for item in record.results if isinstance(item, Mapping))
    return PhaseView(phase=record.phase, processed_at=record.processed_at, digest=record.digest,
                     results=results, centres=centre_counts(record.position_after), record=record)

