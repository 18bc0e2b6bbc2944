"""Where a game with RULE MACHINES takes its machine players: its DAIDE port, given from
the configured ``[daide] port_range`` to a game that can use it -- from FORM on (RULE
MACHINES in a forming or running game, or FORM of a game that has the rule), so the RULE
and FORM replies and LIST tell it at once.  A port stays the game's until the DAIDE edge
has closed its listener (judge.edge.daide.machines.free_ports): an ended game's, a game's that lost
the rule, and a forming game's that nobody joined for ``[daide] forming_idle_hours`` (its
row kept without a port, so the edge does not give it one again; RULE MACHINES asks
anew).  One master address may have ``[daide] forming_games_per_address`` machine games
that have not started (``machine_game_refusal``), so no mail can take every port.

The range and limits are the process's configuration (``configure_ports``, called where
the mail worker is made from the settings: judge.daemon.serve, judge.daemon.worker_process); without a
call, the defaults of ``DaideSettings``.  With the DAIDE edge off (``[daide] host = ""``)
no port is given.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Text, cast, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from judge.config import ConfigError, DaideSettings
from judge.store.models_daide import DaidePort
from judge.lifecycle import PREPARATION, before_start, seats_players, statuses_where
from judge.store.models_game import MASTER, Game, Membership

MACHINES = "MACHINES"  # the rule (judge.rules) that opens a game to machines


def parse_port_range(text: str) -> range:
    """``"16713-16812"`` (or one port) -> range; ConfigError quoting the text otherwise."""
    first, _, last = text.strip().partition("-")
    try:
        low, high = int(first), int(last or first)
    except ValueError:
        raise ConfigError(f"[daide] port_range = {text!r}: expected FIRST-LAST, e.g. 16713-16812") from None
    if not 0 < low <= high < 65536:
        raise ConfigError(f"[daide] port_range = {text!r}: ports run from 1 to 65535, FIRST <= LAST")
    return range(low, high + 1)


_ports: range | None = parse_port_range(DaideSettings().port_range)
_settings = DaideSettings()


def configure_ports(settings: DaideSettings) -> None:
    """The range this process gives ports from (none when the DAIDE edge is off) and its limits."""
    global _ports, _settings
    _ports = parse_port_range(settings.port_range) if settings.host else None
    _settings = settings


def configured_ports() -> range | None:
    return _ports


def is_machine_game(game: Game) -> bool:
    return MACHINES in {str(rule).split()[0].upper() for rule in (game.rules or [])}


def daide_port(session: Session, game: Game) -> int | None:
    row = session.get(DaidePort, game.id)
    return row.port if row is not None else None


def give_port(session: Session, game: Game, ports: range | None = None, now: datetime | None = None) -> int | None:
    """The game's port: the one it has, or the lowest free one of ``ports`` (default: the
    configured range) taken now; None when the game cannot use one yet (in preparation),
    when none is free or no range is configured.  A port is free once no row holds it (the
    edge empties a row only after closing its listener).  Two transactions after the same
    port: the second's write fails on the unique port and it takes the next (a savepoint
    keeps the rest of its work)."""
    ports = _ports if ports is None else ports
    row = session.get(DaidePort, game.id)
    if row is not None and row.port is not None:
        return row.port
    if ports is None or not seats_players(game.status):
        return None
    taken = set(session.scalars(select(DaidePort.port).where(DaidePort.port.is_not(None))))
    for port in ports:
        if port in taken:
            continue
        try:
            with session.begin_nested():
                row = session.get(DaidePort, game.id)
                if row is None:
                    row = DaidePort(game_id=game.id)
                    session.add(row)
                row.port, row.given_at = port, now or game.created_at
                session.flush()
            return port
        except IntegrityError:  # another transaction took it first
            continue
    return None


def released_for_idling(session: Session, game: Game) -> bool:
    """The forming game gave its port back after nobody joined for ``forming_idle_hours``."""
    row = session.get(DaidePort, game.id)
    return row is not None and row.port is None


def machine_game_refusal(session: Session, game: Game, address: str) -> str | None:
    """Why ``address``, the game's master, may not have one more machine game that has not
    started (None: it may)."""
    if not before_start(game.status):
        return None
    limit = _settings.forming_games_per_address
    candidates = session.scalars(
        select(Game).join(Membership, Membership.game_id == Game.id)
        .where(Membership.role == MASTER, func.lower(Membership.address) == address.lower(),
               Game.id != game.id, Game.status.in_(statuses_where(before_start)),
               cast(Game.rules, Text).like(f"%{MACHINES}%")))
    held = sorted({other.name for other in candidates if is_machine_game(other)})
    if len(held) < limit:
        return None
    return (f"you are already master of {len(held)} machine games that have not started "
            f"({', '.join(held)}); this judge allows {limit} an address ([daide] forming_games_per_address): "
            "start one, or take the rule from one with RULE !MACHINES")


def daide_text(session: Session, game: Game) -> str | None:
    """``"port 16713 of the judge's host ..."`` for a machine game, None for any other: the words
    of the RULE and FORM replies and of LIST (README "One port per game" quotes them)."""
    if not is_machine_game(game):
        return None
    port = daide_port(session, game)
    if port is not None:
        return f"port {port} of the judge's host (e.g. dumbbot -i HOST -p {port})"
    if _ports is None:
        return "no port: this judge's DAIDE edge is off ([daide] host)"
    if game.status == PREPARATION:
        return "the port the judge gives when you send FORM"
    if released_for_idling(session, game):
        return (f"no port: nobody joined for {_settings.forming_idle_hours:g} hours, so its port went back "
                "to the judge; the master gets one again with RULE MACHINES")
    return f"no port yet: all of {_ports.start}-{_ports.stop - 1} are taken; the judge gives one when one is free"
