"""Plain values the templates show: a position by power, a member's state in a game.

Templates get these frozen values and strings only, never store rows, so what a mail can
show (and never show: addresses) is decided here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from adjudicator.types import Position, Variant
from judge.store.queries import (
    deadline_text,
    engine_rules,
    latest_of_power,
    observers,
    player_of,
    player_label,
    players,
    position_of,
    rules_of,
    timing_of,
    variant_of,
)
from judge.phases.bot_seats import is_bot_seat
from judge.phases.order_sets import adjustment_owed, units_without_orders
from judge.phases.turnstate import orders_in, stored_order_set, turn_state
from judge.store.models_daide import MachineSeat
from judge.store.models_game import DUMMY, MASTER, MEMBER_ACTIVE, OBSERVER, PLAYER, Game, Membership
from judge.lifecycle import ENDED, before_start, in_play, status_text
from judge.turns import format_timing



@dataclass(frozen=True)
class PowerRow:
    power: str
    units: tuple[str, ...]
    centers: tuple[str, ...]


def position_rows(variant: Variant, position: Position) -> tuple[PowerRow, ...]:
    """Every power of the map with its units and supply centres, in map order."""
    rows = []
    for power in variant.powers:
        units = tuple(str(u) for u in sorted(position.units) if u.power == power.name)
        centers = tuple(sorted(position.centers.get(power.name, ())))
        rows.append(PowerRow(power.name, units, centers))
    return tuple(rows)


def current_orders(session: Session, game: Game, power: str) -> list[str]:
    """The power's stored orders for the game's current phase, canonical."""
    if game.phase is None:
        return []
    row = stored_order_set(session, game, power)
    return list(row.orders) if row is not None else []


@dataclass(frozen=True)
class SessionView:
    """One signed-on part of a mail, as its reply ends: the state of the game for this person."""

    game: str
    who: str
    status: str
    phase: str | None
    deadline: str | None
    orders: tuple[str, ...] | None  # None: not a player in a started game
    unordered: tuple[str, ...]
    places: str | None  # "3 of 7 places taken" while forming
    processing: str | None = None  # when the phase is processed, once every order is in
    owed: str | None = None  # an adjustment's builds or removals not given, and their fate

    @property
    def incomplete(self) -> bool:
        """Orders given in part: the reply must not say only "All done."."""
        return self.owed is not None or bool(self.orders and self.unordered)


def _unassigned(session: Session, game: Game, member: Membership) -> str:
    """A player without a power yet: his number, and how he signs on with it."""
    label = player_label(session, game, member)
    if label is None:
        return "a former player (you have left this game)" if member.status != MEMBER_ACTIVE \
            else "a player (the power is assigned when the game starts)"
    return (f"player {label} (until powers are assigned you sign on as SIGNON {label}@{game.name} password; "
            f"your number stays {label} whoever leaves)")


def session_view(session: Session, game: Game, member: Membership, now: datetime) -> SessionView:
    variant = variant_of(game)
    who = {MASTER: "the master", OBSERVER: f"observer {member.name}"}.get(member.role) \
        or member.power or _unassigned(session, game, member)
    orders: tuple[str, ...] | None = None
    unordered: tuple[str, ...] = ()
    owed = None
    if member.role == PLAYER and member.power and in_play(game.status) and game.position:
        listed = current_orders(session, game, member.power)
        orders = tuple(listed)
        unordered = units_without_orders(variant, position_of(game), member.power, listed)
        owed = adjustment_owed(variant, position_of(game), member.power, listed, engine_rules(game))
    places = None
    if before_start(game.status):
        places = f"{len(players(session, game))} of {len(variant.powers)} places taken"
    return SessionView(
        game=game.name, who=who, status=status_text(game.status), phase=game.phase,
        deadline=deadline_text(game, member, now) if game.status != ENDED else None,
        orders=orders, unordered=unordered, places=places, owed=owed,
    )


@dataclass(frozen=True)
class PowerStanding:
    power: str
    player: str  # "played", "open", "dummy", "reserved" ... never an address
    centers: int
    units: int


def _machine_note(session: Session, game: Game, holder: Membership) -> str:
    """`` by the judge's bot`` / `` by a DAIDE machine (name version)`` / ``""``: who plays a
    seat, for the master only (players are not told which powers are machines)."""
    if is_bot_seat(holder):
        return " by the judge's bot"
    seat = session.execute(select(MachineSeat).where(MachineSeat.game_id == game.id,
                                                     MachineSeat.membership_id == holder.id)).scalar_one_or_none()
    return f" by a DAIDE machine ({seat.name} {seat.version})".rstrip() if seat is not None else ""


def power_standings(session: Session, game: Game, *, for_master: bool = False) -> tuple[PowerStanding, ...]:
    """Each power's holder in words; ``for_master`` also says which seats machines play."""
    variant = variant_of(game)
    position = position_of(game) if game.position else None
    rows = []
    for power in variant.powers:
        holder = player_of(session, game, power.name)
        if holder is not None:
            state = "reserved" if before_start(game.status) else "played"
            if for_master:
                state += _machine_note(session, game, holder)
        elif before_start(game.status):
            state = "open"
        else:
            latest = latest_of_power(session, game, power.name)
            state = "dummy (civil disorder)" if latest is not None and latest.status == DUMMY \
                else "no player (open for TAKEOVER)"
        centers = len(position.centers.get(power.name, ())) if position else 0
        units = sum(1 for u in position.units if u.power == power.name) if position else 0
        rows.append(PowerStanding(power.name, state, centers, units))
    return tuple(rows)


@dataclass(frozen=True)
class GameView:
    """A game's set-up and state for LIST game / SUMMARY (nothing personal)."""

    name: str
    status: str
    map_name: str
    map_title: str  # Variant.headline: "Hundred: 3 powers, 9 of 17 centres to win"
    map_rules: tuple[str, ...]  # the variant's special rules, one line each
    description: str
    private: bool
    rules: tuple[str, ...]
    timing: str
    zone: str
    phase: str | None
    deadline: str | None
    places: str
    observers: int
    standings: tuple[PowerStanding, ...]
    board: tuple[PowerRow, ...]
    orders: tuple[str, ...] = ()  # "FRANCE   LATE: no orders": every power for the master, the own for a player


def order_states(session: Session, game: Game, now: datetime, viewer: Membership | None) -> tuple[str, ...]:
    """Whose orders are in for the current phase, as DPjudge masters see it: every power the
    phase waits for, for the master; a player's own power only; nothing for anyone else (or
    in a sealed game, whose orders are not known before they are revealed)."""
    if (viewer is None or not in_play(game.status) or game.position is None
            or game.deadline is None or "SEALED" in {r.split()[0] for r in rules_of(game)}):
        return ()
    if viewer.role == MASTER:
        shown = None
    elif viewer.role == PLAYER and viewer.power:
        shown = {viewer.power}
    else:
        return ()
    state = turn_state(session, game, now)
    stored = orders_in(session, game)
    rows = []
    for power in sorted(state.active):
        if shown is not None and power not in shown:
            continue
        if power in state.submitted:
            text = "orders in"
        elif stored.get(power):
            text = ("LATE: " if state.past_deadline else "") + "orders incomplete"
        else:
            text = ("LATE: " if state.past_deadline else "") + "no orders yet"
        if power in state.waiting:
            text += ", waits for the deadline (SET WAIT)"
        if power in state.vacant:
            text += " (no player)"
        rows.append(f"{power:<8} {text}")
    return tuple(rows)


def game_view(session: Session, game: Game, now: datetime, *, viewer: Membership | None = None) -> GameView:
    variant = variant_of(game)
    joined = len(players(session, game))
    board = position_rows(variant, position_of(game)) if game.position else ()
    standings = power_standings(session, game, for_master=viewer is not None and viewer.role == MASTER)
    if before_start(game.status):
        reserved = sum(1 for row in standings if row.player.startswith("reserved"))
        places = f"{joined} of {len(variant.powers)} places taken"
        if 0 < reserved < joined:
            places += f" ({reserved} with a power reserved; the others' powers are dealt at the start)"
    else:
        places = f"{joined} of {len(variant.powers)} powers have a player"
    return GameView(
        name=game.name, status=status_text(game.status), map_name=game.map_name,
        map_title=variant.headline, map_rules=variant.rules,
        description=game.description or "", private=bool(game.private),
        rules=tuple(sorted(rules_of(game))), timing=format_timing(timing_of(game)), zone=game.zone,
        phase=game.phase,
        deadline=deadline_text(game, viewer, now) if game.status != ENDED else None,
        places=places,
        observers=len(observers(session, game)),
        standings=standings, board=board,
        orders=order_states(session, game, now, viewer),
    )
