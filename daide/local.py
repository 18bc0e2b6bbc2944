"""An in-memory game for the DAIDE server: the adjudicator behind ``GameHost``.

Used by the conformance replay (tests/daide), the benchmark and anyone who wants
a bot game without a judge.  Powers in ``absent`` play no part (they are ready
with no orders: their units hold, civil disorder removes); the others are seats
for machines.  A phase is processed as soon as every power that must order is
ready (it sent GOF, or its orders are complete) and no power holds the phase with
NOT (GOF); or when the deadline (``deadlines``) passes.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from adjudicator import api
from adjudicator.orders import Build, Order, Remove, Waive
from adjudicator.results import Requirement
from adjudicator.tables import tables_for
from adjudicator.types import Phase, PhaseKind, Position, Variant
from daide.host import Ending, Listener, PlayedPhase, Seat
from daide.render import PlayerSummary, Timing
from daide.tokens import TokenTable


@dataclass
class _Player:
    name: str
    version: str
    passcode: int = 0
    connected: bool = False
    accepted: bool = False


@dataclass
class LocalGame:
    variant: Variant
    deadlines: Timing = field(default_factory=Timing)
    absent: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # power -> (name, version) for SMR
    choose: Callable[[list[str]], str] = field(default=lambda free: random.choice(free))
    rules: frozenset[str] = frozenset()
    partial_draws: bool = False  # DRW (power power ...) allowed: a draw of some survivors
    level: int = 0  # the DAIDE press level (daide.press.LEVELS)

    def __post_init__(self) -> None:
        self.table = TokenTable.for_variant(self.variant)
        self.tables = tables_for(self.variant)
        self._position = api.initial_position(self.variant)
        self._players: dict[str, _Player] = {}
        self._orders: dict[str, dict[str, Order]] = {}
        self._ready: set[str] = set()
        self._holding_back: set[str] = set()  # NOT (GOF) said this phase
        self._draws: dict[str, frozenset[str]] = {}  # power -> the powers its DRW would draw
        self._history: dict[Phase, PlayedPhase] = {}
        self._eliminated: dict[str, int] = {}
        #: Press relayed: (phase, sender, recipients, press message).
        self.press_log: list[tuple[Phase, str, tuple[str, ...], tuple]] = []
        self._listeners: list[Listener] = []
        self._ending: Ending | None = None
        self._started = False
        self._timer: asyncio.TimerHandle | None = None
        self._deadline: float | None = None
        self._requirements: Mapping[str, Requirement] = {}
        self._board = api.prepare(self.variant, self._position)
        self._requirements = api.requirements(self._board)

    # -- GameHost
    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def started(self) -> bool:
        return self._started

    def ended(self) -> Ending | None:
        return self._ending

    def position(self) -> Position:
        return self._position

    def timing(self) -> Timing:
        return self.deadlines

    def seconds_left(self) -> int | None:
        if self._deadline is None:
            return None
        return max(0, round(self._deadline - asyncio.get_running_loop().time()))

    @property
    def seats(self) -> list[str]:
        return [p.name for p in self.variant.powers if p.name not in self.absent]

    def join(self, name: str, version: str) -> Seat | None:
        free = [p for p in self.seats if p not in self._players]
        if not free or self._ending is not None:
            return None
        power = self.choose(free)
        player = self._players[power] = _Player(name, version, random.randint(1, 8191), connected=True)
        return Seat(power, player.passcode, power)

    def rejoin(self, power: str, passcode: int, address: str = "") -> Seat | None:
        player = self._players.get(power)
        if player is None or player.passcode != passcode:
            return None
        player.connected = True
        self._tell_seats()
        return Seat(power, passcode, power)

    def power_of(self, seat: Seat) -> str | None:
        return seat.power

    def map_accepted(self, seat: Seat) -> None:
        self._players[seat.key].accepted = True  # type: ignore[index]
        if not self._started and all(p in self._players and self._players[p].accepted for p in self.seats):
            self._started = True
            self._arm_deadline()
            for listener in self._listeners:
                listener.game_started()

    def disconnected(self, seat: Seat) -> None:
        power = seat.key
        player = self._players.get(power)  # type: ignore[call-overload]
        if player is None:
            return
        if not self._started:
            del self._players[power]  # type: ignore[arg-type]
            return
        player.connected = False
        self._tell_seats()

    def _tell_seats(self) -> None:
        gone = frozenset(p for p, player in self._players.items() if not player.connected)
        for listener in self._listeners:
            listener.seats_changed(gone)

    def submit(self, power: str, orders: Sequence[tuple[str, Order]]) -> None:
        mine = self._orders.setdefault(power, {})
        for key, order in orders:
            if isinstance(order, Waive):
                key = f"WAIVE{sum(isinstance(o, Waive) for o in mine.values())}"
            mine[key] = order

    def settle(self) -> None:
        self._maybe_process()

    def ordered_units(self, power: str) -> set[str]:
        return set(self._orders.get(power, {}))

    def adjustment_left(self, power: str) -> int:
        need = self._requirements.get(power)
        if need is None:
            return 0
        given = self._orders.get(power, {}).values()
        if need.removals:
            return need.removals - sum(isinstance(o, Remove) for o in given)
        return -(need.builds - sum(isinstance(o, (Build, Waive)) for o in given))

    def set_ready(self, power: str, ready: bool) -> None:
        if ready:
            self._ready.add(power)
            self._holding_back.discard(power)
        else:
            self._ready.discard(power)
            self._holding_back.add(power)
        self._maybe_process()

    def _survivors(self) -> frozenset[str]:
        return frozenset(p for p, c in self._position.centers.items() if c)

    def draw_refusal(self, power: str, powers: frozenset[str] | None) -> str | None:
        survivors = self._survivors()
        if powers is None or powers == survivors:
            return None
        if not self.partial_draws:
            return "this game draws only among all survivors: send DRW without powers"
        if not powers <= survivors or len(powers) < 2:
            return "a draw lists two or more surviving powers"
        return None

    def set_draw(self, power: str, vote: bool, powers: frozenset[str] | None = None) -> None:
        survivors = self._survivors()
        if not vote:
            self._draws.pop(power, None)
        elif self.draw_refusal(power, powers) is None:
            self._draws[power] = powers or survivors
        lists = {self._draws.get(p) for p in survivors}
        # every survivor asked for a draw of the same powers (one left out of it voted so too)
        if lists and None not in lists and len(lists) == 1:
            self._end("draw", self._position.phase, drawn=sorted(next(iter(lists))))  # type: ignore[arg-type]

    def history(self, phase: Phase) -> PlayedPhase | None:
        return self._history.get(phase)

    # -- press: every power with a seat may be written to; absent or disconnected ones cannot read
    def press_level(self) -> int:
        return self.level

    def allows_partial_draws(self) -> bool:
        return self.partial_draws

    def eliminated(self, power: str) -> bool:
        return power in self._eliminated

    def press_refusal(self, sender: str, recipients: frozenset[str]) -> str | None:
        return None

    def unreachable(self, recipients: frozenset[str]) -> tuple[str, str] | None:
        for power in sorted(recipients):
            if power in self._eliminated:
                return ("OUT", power)
        for power in sorted(recipients):
            player = self._players.get(power)
            if power in self.absent or player is None or not player.connected:
                return ("CCD", power)
        return None

    def press_sent(self, sender: str, recipients: tuple[str, ...], press: tuple, reached: frozenset[str]) -> None:
        self.press_log.append((self._position.phase, sender, recipients, press))

    # -- processing
    def _complete(self, power: str) -> bool:
        need = self._requirements[power]
        given = self._orders.get(power, {})
        if need.phase_kind is PhaseKind.ADJUSTMENT:
            return self.adjustment_left(power) == 0
        return all(u.province in given for u in need.units)

    def _is_ready(self, power: str) -> bool:
        if power in self.absent:
            return True
        if power in self._ready:
            return True
        return power not in self._holding_back and self._complete(power)

    def _maybe_process(self) -> None:
        # NOT (GOF) holds the phase, also from a power with nothing to order (a WAIT)
        if self._started and self._ending is None and not self._holding_back and \
                all(self._is_ready(p) for p in self._requirements):
            self.process()

    def _arm_deadline(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        kind = self._position.phase.kind
        timing = self.timing()
        seconds = {PhaseKind.MOVEMENT: timing.movement, PhaseKind.RETREAT: timing.retreat,
                   PhaseKind.ADJUSTMENT: timing.build}[kind]
        if not seconds:
            self._deadline = None
            return
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + seconds
        self._timer = loop.call_at(self._deadline, self.process)

    def process(self) -> None:
        """Adjudicate the phase with the orders given (missing ones hold or are made by civil disorder)."""
        if self._ending is not None:
            return
        before = self._position
        orders = {p: list(o.values()) for p, o in self._orders.items() if o}
        adjudication = api.adjudicate(self._board, orders, self.rules)
        played = PlayedPhase(before, adjudication)
        self._history[before.phase] = played
        self._position = adjudication.position
        self._board = api.prepare(self.variant, self._position)
        self._requirements = api.requirements(self._board)
        self._orders.clear()
        self._ready.clear()
        self._holding_back.clear()
        self._draws.clear()
        for power, centres in self._position.centers.items():
            alive = centres or any(u.power == power for u in self._position.units)
            if not alive and power not in self._eliminated:
                self._eliminated[power] = before.phase.year
        if adjudication.winner is None:
            self._arm_deadline()
            for listener in self._listeners:
                listener.phase_processed(played, self._position)
        else:
            self._end("solo", before.phase, winner=adjudication.winner, last=played)

    def _end(self, kind: str, phase: Phase, winner: str | None = None, drawn: Sequence[str] = (),
             last: PlayedPhase | None = None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        players = []
        for name, centres in self._position.centers.items():  # no centres left: out of the game
            if not centres and name not in self._eliminated:
                self._eliminated[name] = phase.year
        for power in self.variant.powers:
            name, version = self.absent.get(power.name, ("", ""))
            player = self._players.get(power.name)
            if player is not None:
                name, version = player.name, player.version
            players.append(PlayerSummary(power.name, name, version, len(self._position.centers.get(power.name, ())),
                                         self._eliminated.get(power.name)))
        self._ending = Ending(kind, phase, tuple(players), winner, tuple(drawn))
        for listener in self._listeners:
            if last is not None:
                listener.phase_processed(last, self._position)
            listener.game_ended(self._ending)
