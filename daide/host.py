"""What the DAIDE server needs of a game (``GameHost``) and what it tells its
connections (``Listener``).  The server speaks the protocol; a host decides the
game: who sits where, which orders stand, when a phase is processed.
``daide.local.LocalGame`` is an in-memory host; the judge's edge puts its store
behind the same interface.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from adjudicator.orders import Order
from adjudicator.results import Adjudication
from adjudicator.tables import Tables
from adjudicator.types import Phase, Position, Variant
from daide.render import PlayerSummary, Timing
from daide.tokens import TokenTable


@dataclass(frozen=True)
class Seat:
    """A machine's place: ``power`` is None until the game starts and deals the powers;
    ``key`` is the host's own handle for it."""

    power: str | None
    passcode: int
    key: object = None


@dataclass(frozen=True)
class PlayedPhase:
    """A processed phase: the position it was played from and its adjudication."""

    before: Position
    adjudication: Adjudication


@dataclass(frozen=True)
class Ending:
    """How a game ended: ``kind`` is "solo", "draw" or "over"; ``phase`` the last one played."""

    kind: str
    phase: Phase
    players: Sequence[PlayerSummary]
    winner: str | None = None
    drawn: Sequence[str] = ()


class Listener(Protocol):
    """What a host tells the server (and through it every connection)."""

    def game_started(self) -> None: ...
    def phase_processed(self, played: PlayedPhase, position: Position) -> None: ...
    def game_ended(self, ending: Ending) -> None: ...
    def seats_changed(self, disorder: frozenset[str]) -> None: ...
    def press_arrived(self, sender: str, recipients: Sequence[str], press: tuple) -> None:
        """Press from elsewhere (a player by mail) for the machines among ``recipients``:
        ``press`` is a press message the game's level accepts, in token names."""


class GameHost(Protocol):
    variant: Variant
    table: TokenTable
    tables: Tables

    def started(self) -> bool: ...
    def ended(self) -> Ending | None: ...
    def position(self) -> Position: ...
    def timing(self) -> Timing: ...
    def seconds_left(self) -> int | None: ...
    def join(self, name: str, version: str) -> Seat | None: ...
    def rejoin(self, power: str, passcode: int, address: str = "") -> Seat | None:
        """The seat playing ``power`` with ``passcode`` (IAM over a new connection from
        ``address``, the client's); None for a wrong pair."""
    def power_of(self, seat: Seat) -> str | None:
        """The seat's power; None before the powers are dealt or once it no longer plays
        (the master gave the power to someone else)."""
    def map_accepted(self, seat: Seat) -> None: ...
    def disconnected(self, seat: Seat) -> None: ...
    def submit(self, power: str, orders: Sequence[tuple[str, Order]]) -> None:
        """Store orders (each replaces the order of the unit keyed the same); no processing yet."""
    def settle(self) -> None:
        """Process the phase if every power that must order is ready."""
    def ordered_units(self, power: str) -> set[str]: ...
    def adjustment_left(self, power: str) -> int: ...
    def set_ready(self, power: str, ready: bool) -> None: ...
    def draw_refusal(self, power: str, powers: frozenset[str] | None) -> str | None:
        """Why ``power`` may not vote for a draw among ``powers`` (None: all survivors), e.g. a
        partial draw in a game whose rules allow only draws of all survivors; None when it may."""
    def set_draw(self, power: str, vote: bool, powers: frozenset[str] | None = None) -> None:
        """DRW (a draw among ``powers``, None: all survivors) or NOT (DRW); checked first with
        ``draw_refusal``.  The game ends when the votes make a draw."""
    def history(self, phase: Phase) -> PlayedPhase | None: ...
    # -- press (daide.press_relay)
    def press_level(self) -> int:
        """The game's DAIDE press level (0, 10, 20 or 30), as HLO announces it."""
    def allows_partial_draws(self) -> bool:
        """Draws of some survivors are allowed (HLO's PDA; DRW (powers) in press)."""
    def eliminated(self, power: str) -> bool: ...
    def press_refusal(self, sender: str, recipients: frozenset[str]) -> str | None:
        """Why the game's press rules forbid this press now (the reason REJ's ADM gives), or None."""
    def unreachable(self, recipients: frozenset[str]) -> tuple[str, str] | None:
        """("OUT", power) for an eliminated recipient, ("CCD", power) for one that cannot read
        press (in civil disorder, no player); None when every recipient can get it."""
    def press_sent(self, sender: str, recipients: tuple[str, ...], press: tuple, reached: frozenset[str]) -> None:
        """Press the server accepted and relayed as FRM to ``reached`` (machines connected):
        record it, and bring it to the other recipients."""
    def listen(self, listener: Listener) -> None: ...
