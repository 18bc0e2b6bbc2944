"""Where a game with RULE MACHINES takes its machine players: its DAIDE port, given from
the configured ``[daide] port_range`` in the transaction that opens the machine seats
(RULE MACHINES), so the CREATE/RULE and FORM replies and LIST tell it at once.  A port is
taken while its game has not ended; an ended game's port is given to the next game.

The range is the process's configuration (``configure_ports``, called where the mail
worker is made from the settings: judge.serve, judge.worker_process); without a call, the
default range of ``DaideSettings``.  With the DAIDE edge off (``[daide] host = ""``) no
port is given.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from judge.config import ConfigError, DaideSettings
from judge.store.models_daide import DaidePort
from judge.lifecycle import before_start, is_live
from judge.store.models_game import Game

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


def configure_ports(settings: DaideSettings) -> None:
    """The range this process gives ports from; none when the DAIDE edge is off."""
    global _ports
    _ports = parse_port_range(settings.port_range) if settings.host else None


def configured_ports() -> range | None:
    return _ports


def is_machine_game(game: Game) -> bool:
    return MACHINES in {str(rule).split()[0].upper() for rule in (game.rules or [])}


def daide_port(session: Session, game: Game) -> int | None:
    row = session.get(DaidePort, game.id)
    return row.port if row is not None else None


def give_port(session: Session, game: Game, ports: range | None = None) -> int | None:
    """The game's port: the one it has, or the lowest free one of ``ports`` (default: the
    configured range) taken now; None when none is free (or no range is configured).
    Two transactions after the same port: the second's insert fails on the unique port and
    it takes the next (a savepoint keeps the rest of its work)."""
    ports = _ports if ports is None else ports
    row = session.get(DaidePort, game.id)
    if row is not None or ports is None:
        return row.port if row is not None else None
    rows = session.execute(select(DaidePort, Game.status).join(Game, Game.id == DaidePort.game_id)).all()
    taken = {port.port for port, status in rows if is_live(status)}
    stale = {port.port: port for port, status in rows if not is_live(status)}
    for port in ports:
        if port in taken:
            continue
        try:
            with session.begin_nested():
                if port in stale:
                    session.delete(stale[port])
                    session.flush()
                session.add(DaidePort(game_id=game.id, port=port))
                session.flush()
            return port
        except IntegrityError:  # another transaction took it first
            continue
    return None


def take_back_port(session: Session, game: Game) -> None:
    """RULE !MACHINES before the game runs: its port is free for another game."""
    row = session.get(DaidePort, game.id)
    if row is not None and before_start(game.status):
        session.delete(row)


def daide_text(session: Session, game: Game) -> str | None:
    """``"port 16713 of the judge's host ..."`` for a machine game, None for any other."""
    if not is_machine_game(game):
        return None
    port = daide_port(session, game)
    if port is None:
        if _ports is None:
            return "no port: this judge's DAIDE edge is off ([daide] host)"
        return f"no port yet: all of {_ports.start}-{_ports.stop - 1} are taken; the judge gives one when one is free"
    return f"port {port} of the judge's host (e.g. dumbbot -i<host> -p{port})"
