"""Machine players (DAIDE bots) in the store: their seats, the games open to them (and
their ports); the phases played it replays are read by judge/phases/played.py.  What a machine *does* --
SUB, GOF, DRW -- is a mail's command run through the mail's dispatcher
(judge/edge/daide/host.py, judge.commands.dispatch.run_at_seat), so readiness,
deadlines, grace, late notices and civil disorder treat a bot's power like any other.

A machine's membership has an address in the reserved ``machines.invalid`` domain
(judge.mailio.outgoing drops mail to it) and no name; its NME name and version live in
``MachineSeat`` and are shown only when the game ends (gunboat anonymity).  Each function
works inside a transaction the edge (judge/edge/daide) opens; the mail it causes is put
in the given ``PassContext``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Text, cast, func, select
from sqlalchemy.orm import Session

from judge.mailio.outgoing import MACHINE_DOMAIN
from judge.commands.daide_ports import MACHINES, give_port, is_machine_game, released_for_idling
from judge.commands.fair_players import PassContext
from judge.commands.start import start_game
from judge.publish.broadcast import to_member
from judge.mailio.render import render
from judge.phases.turnstate import fresh_deadline_for_newcomer
from judge.store.queries import has_rule, latest_of_power, master_of, player_of, players, variant_of
from judge.store.models_daide import DaidePort, MachineSeat
from judge.store.times import as_utc
from judge.lifecycle import FORMING, is_live, seats_players, statuses_where
from judge.store.models_game import DUMMY, PLAYER, Game, Membership
from judge.store.passwords import hash_password

# Games that may have the rule: their stored rules' JSON text names it (a superset; the
# rule itself is checked on each).
_MACHINE_CANDIDATES = (
    select(Game)
    .where(Game.status.in_(statuses_where(is_live)), cast(Game.rules, Text).like(f"%{MACHINES}%"))
    .order_by(Game.id)
)


@dataclass(frozen=True)
class MachineGame:
    id: int
    name: str
    status: str
    phase: str | None
    port: int


def machine_games(session: Session, ports: range, now: datetime | None = None,
                  idle_after: timedelta | None = None) -> list[MachineGame]:
    """Games forming or running with RULE MACHINES, each with its DAIDE port (the one it was
    given, or one from ``ports`` now; a game for which none is free is left out).  Left out
    too: a game in preparation (it cannot use a port before FORM), a forming game that gave
    its port back for idling, and one holding a port that nobody joined for ``idle_after``
    (the edge closes its listener, then ``free_ports`` takes the port back).

    The DAIDE edge asks this several times a second: only the games whose stored rules
    name the rule are loaded, not every running game with its position."""
    found = []
    for game in session.scalars(_MACHINE_CANDIDATES):
        if not has_rule(game, MACHINES) or not seats_players(game.status):
            continue
        if game.status == FORMING and (released_for_idling(session, game) or _idle(session, game, now, idle_after)):
            continue
        port = give_port(session, game, ports, now)
        if port is not None:
            found.append(MachineGame(game.id, game.name, game.status, game.phase, port))
    return found


def _idle(session: Session, game: Game, now: datetime | None, idle_after: timedelta | None) -> bool:
    """A forming game holding a port that nobody has joined since ``idle_after`` before ``now``."""
    row = session.get(DaidePort, game.id)
    if now is None or idle_after is None or row is None or row.port is None or game.status != FORMING:
        return False
    joined = [m.joined_at for m in players(session, game) if m.joined_at is not None]
    since = max([as_utc(moment) for moment in (row.given_at or game.created_at, *joined)])
    return now - since >= idle_after


def free_ports(ctx: PassContext, serving: set[int], idle_after: timedelta) -> list[tuple[str, int]]:
    """Take back the ports of games whose listener is not open (``serving``: the games the
    edge listens for) and which cannot use them: ended games, games without the rule or in
    preparation, and forming games nobody joined for ``idle_after`` (their master told by
    mail).  (game name, port) of each port freed."""
    freed: list[tuple[str, int]] = []
    rows = ctx.session.execute(select(DaidePort, Game).join(Game, Game.id == DaidePort.game_id)
                               .where(DaidePort.port.is_not(None))).all()
    for row, game in rows:
        if game.id in serving:
            continue
        if seats_players(game.status) and is_machine_game(game):
            if not _idle(ctx.session, game, ctx.now, idle_after):
                continue
            hours = idle_after.total_seconds() / 3600
            tell_master(ctx, game, "DAIDE port given back",
                        f"nobody joined for {hours:g} hours, so its DAIDE port {row.port} went back to the judge "
                        "for other games. Send RULE MACHINES (after SIGNON master) to get a port again.")
            freed.append((game.name, row.port or 0))
            row.port = None
            continue
        freed.append((game.name, row.port or 0))
        ctx.session.delete(row)
    return freed


def tell_master(ctx: PassContext, game: Game, subject: str, text: str) -> None:
    """A notice to the game's master about its machine players."""
    master = master_of(ctx.session, game)
    if master is not None:
        ctx.send([to_member(game, ctx.judge, master, subject=f"{game.name}: {subject}",
                            body=render("machine_notice.j2", game=game.name, text=text), kind="master_notice")])


def machine_address(game: Game, number: int) -> str:
    return f"machine{number}.{game.name}@{MACHINE_DOMAIN}"


@dataclass(frozen=True)
class Seated:
    membership_id: int
    passcode: int


def take_seat(ctx: PassContext, game_id: int, name: str, version: str) -> Seated | None:
    """A free seat for a machine (None: none free).  In a forming game the game starts when
    this seat was the last (the powers are dealt then); in a running game the machine takes
    over a power without a player (after RESIGN or the master's EJECT; not a dummy), as a
    TAKEOVER by mail does."""
    game = ctx.session.get(Game, game_id)
    if game is None or not seats_players(game.status) or not has_rule(game, MACHINES):
        return None
    joined = players(ctx.session, game)
    vacant: str | None = None
    if game.status != FORMING:
        vacant = next((p.name for p in variant_of(game).powers
                       if player_of(ctx.session, game, p.name) is None
                       and getattr(latest_of_power(ctx.session, game, p.name), "status", None) != DUMMY), None)
        if vacant is None:
            return None
    elif len(joined) >= len(variant_of(game).powers):
        return None
    number = 1 + int(ctx.session.scalar(select(func.count()).select_from(MachineSeat)
                                        .where(MachineSeat.game_id == game.id)) or 0)
    passcode = secrets.randbelow(8191) + 1
    member = Membership(game_id=game.id, role=PLAYER, power=vacant, name=None,
                        address=machine_address(game, number), password_hash=hash_password(secrets.token_hex(16)),
                        joined_at=ctx.now)
    ctx.session.add(member)
    ctx.session.flush()
    ctx.session.add(MachineSeat(game_id=game.id, membership_id=member.id, name=name[:64], version=version[:64],
                                passcode=passcode))
    if vacant is not None:
        fresh_deadline_for_newcomer(game, ctx.now)
    elif len(joined) + 1 == len(variant_of(game).powers):
        start_game(ctx, game)
    return Seated(member.id, passcode)


def seat_of(session: Session, game_id: int, membership_id: int) -> tuple[str | None, int] | None:
    """(power, passcode) of a machine's seat; None when it no longer plays."""
    member = session.get(Membership, membership_id)
    seat = session.scalar(select(MachineSeat).where(MachineSeat.membership_id == membership_id))
    if member is None or seat is None or member.game_id != game_id or member.status != "active":
        return None
    return member.power, seat.passcode


def seat_by_passcode(session: Session, game_id: int, power: str, passcode: int) -> int | None:
    """The membership id of the machine playing ``power`` with ``passcode`` (IAM)."""
    for seat in session.scalars(select(MachineSeat).where(MachineSeat.game_id == game_id)):
        member = session.get(Membership, seat.membership_id)
        if member is not None and member.power == power and member.status == "active" and seat.passcode == passcode:
            return member.id
    return None


def seat_taken_back(ctx: PassContext, game_id: int, power: str, passcode: int, address: str) -> int | None:
    """IAM: the membership id of the machine playing ``power`` with ``passcode``, the master
    told by mail that the seat was taken back over a new connection (from ``address``)."""
    member = seat_by_passcode(ctx.session, game_id, power, passcode)
    game = ctx.session.get(Game, game_id)
    if member is not None and game is not None:
        tell_master(ctx, game, f"the machine playing {power} came back",
                    f"the machine player of {power} took its seat back with IAM (its passcode) over a new "
                    f"connection from {address or 'an unknown address'}. If that was not the program you expect, "
                    f"replace it (EJECT {power}).")
    return member


def release_seat(session: Session, game_id: int, membership_id: int) -> None:
    """A machine that left before the game started frees its seat."""
    game = session.get(Game, game_id)
    member = session.get(Membership, membership_id)
    if game is None or member is None or game.status != FORMING:
        return
    seat = session.scalar(select(MachineSeat).where(MachineSeat.membership_id == membership_id))
    if seat is not None:
        session.delete(seat)
    session.delete(member)


def machine_names(session: Session, game: Game) -> dict[str, tuple[str, str]]:
    """power -> (NME name, version) of the machines; for SMR and the end-of-game record only."""
    names = {}
    for seat in session.scalars(select(MachineSeat).where(MachineSeat.game_id == game.id)):
        member = session.get(Membership, seat.membership_id)
        if member is not None and member.power:
            names[member.power] = (seat.name, seat.version)
    return names


__all__ = ["MACHINES", "MachineGame", "Seated", "free_ports", "machine_games",
           "machine_names", "release_seat", "seat_by_passcode", "seat_taken_back",
           "seat_of", "take_seat", "tell_master"]
