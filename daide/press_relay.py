"""SND on the server: press from one power to others, answered and relayed as the DAIDE
syntax says, under the game's level and press rules (the host's) and the server's caps.

In order: a malformed SND, or press above the game's level (``daide.press``), gets HUH
with ERR at the place; a sender that does not play the running game, a turn that is not
the current one, a recipient list naming the sender or a power twice, an eliminated
sender, a flood (more than ``PressLimits`` allow per connection or per power) or a refusal
by the game's rules gets REJ (the reason, where there is one, follows as ADM: REJ has no
room for it); an eliminated recipient OUT, one that cannot read press (in civil disorder,
no player) CCD.  Only then YES, FRM to the recipients' connections and the host told
(it records the press and delivers it to recipients who play by mail).  Nothing refused
reaches anyone.

The AiClient level-0 bots (NME names in ``PRESS_DEAF``: DumbBot, HoldBot, RandBot, version
8~3) end with a segmentation fault at the first FRM they get, whatever the level; the
syntax wants them to answer HUH and TRY.  Their seats are noted when they join, and press
to them is accepted (YES) and recorded but never relayed, as to a player who does not read it.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from daide import press as grammar
from daide.messages import Message, Text, huh_for
from daide.render import phase_of

if TYPE_CHECKING:
    from daide.server import Connection, GameServer


#: NME names of clients that crash on FRM (measured with ../shared/peers' AiClient bots).
PRESS_DEAF = frozenset({"DumbBot", "HoldBot", "RandBot"})


@dataclass(frozen=True)
class PressLimits:
    """A token bucket each: ``burst`` messages at once, refilled at ``per_second``."""

    burst: int = 40
    per_second: float = 1.0


class Bucket:
    def __init__(self, limits: PressLimits, clock: Callable[[], float]) -> None:
        self.limits, self.clock = limits, clock
        self.tokens = float(limits.burst)
        self.at = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(float(self.limits.burst), self.tokens + (now - self.at) * self.limits.per_second)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class PressRelay:
    """The press of one game's server: ``snd`` for a client's SND, ``deliver`` for press the
    host brings from elsewhere (a player by mail)."""

    def __init__(self, server: "GameServer", limits: PressLimits = PressLimits(),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.server = server
        self.limits = limits
        self.clock = clock
        self._by_connection: "weakref.WeakKeyDictionary[Connection, Bucket]" = weakref.WeakKeyDictionary()
        self._by_power: dict[str, Bucket] = {}
        self._deaf: set[object] = set()  # seat keys of clients that must not get FRM

    def joined(self, seat_key: object, name: str) -> None:
        """A client took a seat under NME ``name``: note it if it cannot take press."""
        if name in PRESS_DEAF:
            self._deaf.add(seat_key)

    def _grammar(self) -> grammar.Grammar:
        host = self.server.host
        return grammar.Grammar(host.table, host.press_level(), host.allows_partial_draws())

    def snd(self, connection: "Connection", message: Message) -> None:
        host = self.server.host
        table = host.table
        send = connection.send
        shape = _shape(message, frozenset(table.power_names.values()))
        if shape is not None:
            connection.send_body(huh_for(message, shape, table))
            return
        turn = message[1] if len(message) == 4 else None
        names, press = message[-2], message[-1]
        try:
            self._grammar().check(press)
        except grammar.PressError as error:
            connection.send_body(huh_for(message, (len(message) - 1, *(error.path or (0,))), table))
            return
        if (connection.power is None or not connection.in_game or not host.started() or host.ended() is not None
                or (connection.seat is not None and host.power_of(connection.seat) != connection.power)):
            send(("REJ", message))
            return
        sender = connection.power
        recipients = [table.power_of_token[name] for name in names]
        if turn is not None and phase_of(turn) != host.position().phase:
            send(("REJ", message))
            return
        if sender in recipients or len(set(recipients)) != len(recipients):
            self._refuse(connection, message, "the recipients must not include the sender or a power twice")
            return
        if host.eliminated(sender):
            self._refuse(connection, message, "an eliminated power sends no press")
            return
        if not self._within_limits(connection, sender):
            self._refuse(connection, message, f"too much press: at most {self.limits.burst} messages at once, "
                                              f"then {self.limits.per_second:g} a second")
            return
        refusal = host.press_refusal(sender, frozenset(recipients))
        if refusal is not None:
            self._refuse(connection, message, refusal)
            return
        unreachable = host.unreachable(frozenset(recipients))
        if unreachable is not None:
            word, power = unreachable
            send((word, (table.power_names[power],)))
            return
        listeners = self._listeners(recipients)
        host.press_sent(sender, tuple(recipients), press, frozenset(c.power for c in listeners if c.power))
        send(("YES", message))  # stored first, then acknowledged and relayed
        self._relay(sender, recipients, press, listeners)

    def deliver(self, sender: str, recipients: Sequence[str], press: Message) -> None:
        """FRM to every connection playing one of ``recipients`` (press from a player by mail)."""
        self._relay(sender, recipients, press, self._listeners(recipients))

    def _listeners(self, recipients: Sequence[str]) -> list["Connection"]:
        return [c for c in self.server.connections if c.power in recipients and c.in_game and not c.closed
                and (c.seat is None or c.seat.key not in self._deaf)]

    def _relay(self, sender: str, recipients: Sequence[str], press: Message, listeners: list["Connection"]) -> None:
        table = self.server.host.table
        message = grammar.frm(table.power_names[sender], [table.power_names[p] for p in recipients], press,
                              self.server.host.press_level())
        for connection in listeners:
            connection.send(message)

    def _within_limits(self, connection: "Connection", power: str) -> bool:
        mine = self._by_connection.setdefault(connection, Bucket(self.limits, self.clock))
        theirs = self._by_power.setdefault(power, Bucket(self.limits, self.clock))
        return mine.take() and theirs.take()

    def _refuse(self, connection: "Connection", message: Message, reason: str) -> None:
        connection.send(("REJ", message))
        connection.send(("ADM", (Text("Server"),), (Text(reason),)))


def _shape(message: Message, powers: frozenset[str]) -> tuple[int, ...] | None:
    """The path of the first element out of place in ``SND [(turn)] (powers) (press)``."""
    if len(message) not in (3, 4):
        return (min(len(message), 4),)
    if len(message) == 4 and phase_of(message[1]) is None:
        return (1,)
    names = message[-2]
    if type(names) is not tuple or not names:
        return (len(message) - 2,)
    for index, name in enumerate(names):
        if type(name) is not str or name not in powers:
            return (len(message) - 2, index)
    if type(message[-1]) is not tuple:
        return (len(message) - 1,)
    return None
