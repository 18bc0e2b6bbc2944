"""A DAIDE client that plays one power with a machine player (``judge bot``).

It joins a game on any DAIDE server (``NME``, or ``IAM`` with a power and passcode to take
a seat back), accepts the map if the judge has a map of that name (else it refuses it,
says so and stops), and in every phase where its power must order it asks the player
(``bot.search.StrategicBot`` by default), submits the orders (complete orders make it ready).  It never
says ``GOF``: with no turn in it, a ``GOF`` that crosses the end of a phase makes the bot
ready in the next one before it has ordered.  In a game whose HLO says LVL 10 or more it
negotiates (``judge.negotiation.negotiator``): it answers the press it gets, proposes peace to its
neighbours and alliances and DMZs to the powers at peace with it (the negotiator's
policy), and its orders keep what it agreed unless breaking it clearly pays
(``bot.agreements``); a new agreement has the phase's orders made again.  It logs every refusal
(``HUH``, ``REJ``, a ``THX`` that is not ``MBV``) and goes on; a lost connection is
reopened with ``IAM`` (a few times, waiting longer each time) once it knows its power and
passcode; ``OFF`` (after ``SLO``/``DRW`` and ``SMR``) ends it.  The codec is the ``daide``
package's; what is here is the player's side of the conversation.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Mapping

import maps
from adjudicator import api
from adjudicator.results import OrderResult
from adjudicator.types import Dislodged, Position, Unit, UnitKind, Variant
from bot.agreements import Agreements
from bot.player import Player
from bot.search import StrategicBot
from daide import render
from daide.client import ConnectionClosed, DaideClient
from daide.messages import Element, Message, Text, to_text
from daide.orders import convoy_routes, order_element
from daide.tokens import TokenTable
from judge.negotiation.negotiator import Negotiator, Outgoing

log = logging.getLogger("judge.bot")

EXIT_DONE, EXIT_REFUSED, EXIT_UNREACHABLE = 0, 1, 3


class Refused(Exception):
    """The server would not have us (REJ of NME/IAM) or we cannot play its map."""


@dataclass
class Seat:
    """What the client knows of its game; kept across reconnections."""

    power: str | None = None
    passcode: int | None = None
    variant: Variant | None = None
    table: TokenTable | None = None
    centers: dict[str, frozenset[str]] = field(default_factory=dict)
    submitted: str | None = None  # the phase whose orders were sent
    ended: bool = False
    level: int = 0  # HLO's LVL: the game's press level
    negotiator: Negotiator | None = None  # at LVL 10 or more
    board: api.Board | None = None  # the last NOW's, for reading press
    kept: Agreements | None = None  # what the orders sent last were made to keep (None: no negotiator)


@dataclass
class DaideBot:
    """One machine player's connection; ``run()`` returns the exit code."""

    host: str
    port: int
    player: Player
    name: str = "dipjudge-bot"
    version: str = "1"
    power: str | None = None  # with passcode: take this seat back (IAM)
    passcode: int | None = None
    retries: int = 5  # reconnections after a lost connection, waiting 1, 2, 4... s
    connect: Callable[..., Awaitable[DaideClient]] = DaideClient.connect
    seat: Seat = field(default_factory=Seat)

    async def run(self) -> int:
        if self.power is not None:
            self.seat.power, self.seat.passcode = self.power.upper(), self.passcode
        failures = 0
        while True:
            try:
                client = await self.connect(self.host, self.port, default_table=self._default_table())
            except (TimeoutError, OSError, ConnectionClosed) as problem:
                failures += 1
                if failures > self.retries:
                    log.error("cannot reach %s:%s (%s); giving up after %d attempts", self.host, self.port, problem, failures)
                    return EXIT_UNREACHABLE
                await self._wait(failures, f"cannot reach {self.host}:{self.port} ({problem})")
                continue
            try:
                await self._join(client)
                failures = 0
                await self._play(client)
                return EXIT_DONE
            except Refused as refusal:
                log.error("%s", refusal)
                await client.close()
                return EXIT_REFUSED
            except (ConnectionClosed, OSError, asyncio.IncompleteReadError) as problem:
                if self.seat.ended:
                    return EXIT_DONE
                failures += 1
                if self.seat.passcode is None or failures > self.retries:
                    log.error("connection lost (%s); %s", problem,
                              "no seat to take back" if self.seat.passcode is None else "giving up")
                    return EXIT_UNREACHABLE
                await self._wait(failures, f"connection lost ({problem})")

    def _default_table(self) -> TokenTable:
        """The token table of an empty RM: the standard map's, under our names."""
        return self.seat.table or TokenTable.for_variant(maps.load("standard"))

    async def _wait(self, failures: int, why: str) -> None:
        delay = min(2 ** (failures - 1), 30)
        log.warning("%s; trying again in %d s (%d of %d)", why, delay, failures, self.retries)
        await asyncio.sleep(delay)

    async def _join(self, client: DaideClient) -> None:
        seat = self.seat
        if seat.power is not None and seat.passcode is not None and seat.table is not None:
            await client.send(("IAM", (seat.table.power_names[seat.power],), (seat.passcode,)))
        elif seat.power is not None and seat.passcode is not None:
            await client.send(("IAM", (client.table.power_names.get(seat.power, seat.power[:3]),), (seat.passcode,)))
        else:
            await client.send(("NME", (Text(self.name),), (Text(self.version),)))

    async def _play(self, client: DaideClient) -> None:
        while True:
            message = await client.receive()
            if not message:
                continue
            try:
                done = await self._handle(client, message)
            except Refused:
                raise
            except Exception:  # a bug of ours must not end the game for our power: log it, play on
                log.exception("could not handle %s", _text(message))
                continue
            if done:
                await client.close()
                return

    async def _handle(self, client: DaideClient, message: Message) -> bool:
        """React to one message; True when the game is over for us."""
        head = message[0]
        seat = self.seat
        if head == "YES":
            inner = message[1] if len(message) > 1 else ()
            (log.debug if inner == ("GOF",) else log.info)("server accepted %s", _text(inner))
            if type(inner) is tuple and inner[:1] == ("IAM",):  # back in our seat: ask where the game is
                for question in (("HLO",), ("SCO",), ("NOW",)):
                    await client.send(question)
        elif head == "REJ":
            inner = message[1] if len(message) > 1 else ()
            if type(inner) is tuple and inner[:1] in (("NME",), ("IAM",)):
                raise Refused(f"the server refused {_text(inner)}: no seat for us in this game")
            log.warning("server refused %s", _text(inner))
        elif head == "MAP":
            await self._map(client, message)
        elif head == "HLO":
            seat.power = client.table.power_of_token.get(message[1][0], str(message[1][0]))
            seat.passcode = int(message[2][0])
            options = message[3] if len(message) > 3 and type(message[3]) is tuple else ()
            seat.level = next((int(o[1]) for o in options if type(o) is tuple and o[:1] == ("LVL",)), 0)
            if seat.level >= 10 and seat.table is not None and seat.negotiator is None:
                seat.negotiator = Negotiator(seat.power, seat.table, seat.level)
            log.info("playing %s (passcode %d: `judge bot --power %s --passcode %d` takes the seat back)",
                     seat.power, seat.passcode, seat.power, seat.passcode)
        elif head == "SCO":
            seat.centers = _centres(client.table, message)
        elif head == "NOW":
            await self._now(client, message)
        elif head == "THX":
            note = message[2][0] if len(message) > 2 and message[2] else "?"
            if note != "MBV":
                log.warning("order %s not accepted as given: %s", _text(message[1]), note)
        elif head == "MIS":
            if message not in (("MIS",), ("MIS", (0,))):
                log.info("server still misses %s", _text(message))
        elif head == "HUH":
            log.error("server could not read our message: %s", _text(message))
        elif head in ("SLO", "DRW"):
            seat.ended = True
            log.info("game over: %s", _text(message))
        elif head == "SMR":
            seat.ended = True
            log.info("summary: %s", _text(message))
        elif head == "OFF":
            log.info("server said OFF")
            seat.ended = True
            return True
        elif head == "FRM":
            await self._frm(client, message)
        elif head in ("CCD", "NOT", "ORD", "TME", "PRN", "ADM"):
            log.debug("%s", _text(message))
        else:
            log.info("ignored %s", _text(message))
        return False

    async def _map(self, client: DaideClient, message: Message) -> None:
        name = str(message[1][0]) if len(message) > 1 and message[1] else ""
        try:
            variant = maps.load(name.lower())
        except (maps.UnknownMapError, maps.MapError) as problem:
            await client.send(("REJ", message))
            raise Refused(f"unknown variant {name!r}: {problem}") from None
        table = TokenTable.for_variant(variant)
        if client.table.by_name and any(client.table.by_name.get(token) not in (None, value)
                                        for token, value in table.by_name.items()):
            await client.send(("REJ", message))
            raise Refused(f"the server's tokens for map {name!r} are not the judge's")
        self.seat.variant, self.seat.table = variant, table
        client.table = table  # our names on our side from now on
        await client.send(("YES", message))
        log.info("map %s accepted", variant.name)

    async def _now(self, client: DaideClient, message: Message) -> None:
        seat = self.seat
        if seat.variant is None or seat.table is None or seat.power is None:
            log.warning("NOW before MAP and HLO: ignored")
            return
        position = read_now(seat.table, message, seat.centers)
        board = seat.board = api.prepare(seat.variant, position)
        if seat.power not in api.requirements(board):
            return  # no GOF: it could reach the next phase and make us ready there before we order
        if seat.negotiator is not None and position.phase.kind.name == "MOVEMENT":
            await self._send_press(client, seat.negotiator.proposals(board))
        await self._order(client, board)

    async def _order(self, client: DaideClient, board: api.Board) -> None:
        """Our orders for ``board``'s phase, within the agreements, submitted."""
        seat = self.seat
        assert seat.table is not None and seat.power is not None
        position = board.position
        loop = asyncio.get_running_loop()
        strategic, power = self.player, seat.power
        if seat.negotiator is not None and isinstance(strategic, StrategicBot):
            agreements = seat.negotiator.agreements()
            orders = await loop.run_in_executor(None, lambda: strategic.orders(board, power, agreements))
            seat.kept = agreements
        else:
            orders = await loop.run_in_executor(None, self.player.orders, board, seat.power)  # the search blocks
        results = [OrderResult(seat.power, order.canonical(), "") for order in orders]
        routes = convoy_routes(board.tables, results)
        elements = [order_element(seat.table, position, result, routes) for result in results]
        if elements:
            await client.send(("SUB", *elements))
        seat.submitted = str(position.phase)
        log.info("%s: %s", position.phase, "; ".join(r.order for r in results) or "nothing to order")

    async def _frm(self, client: DaideClient, message: Message) -> None:
        """Press from another power: the negotiator's answers go back as SND."""
        seat = self.seat
        if seat.negotiator is None or seat.board is None or seat.table is None or len(message) != 4:
            log.debug("%s", _text(message))
            return
        powers = seat.table.power_of_token
        sender = powers.get(str(message[1][0])) if message[1] else None
        recipients = tuple(powers[str(p)] for p in message[2] if str(p) in powers)
        if sender is None or type(message[3]) is not tuple:
            return
        log.info("press from %s: %s", sender, _text(message[3]))
        before = seat.negotiator.agreements()
        await self._send_press(client, seat.negotiator.heard(sender, recipients, message[3], seat.board))
        board = seat.board
        if seat.negotiator.agreements() != before and seat.submitted == str(board.position.phase) and \
                board.position.phase.kind.name == "MOVEMENT":
            await self._order(client, board)  # new agreements: this phase's orders again, within them

    async def _send_press(self, client: DaideClient, outgoing: list[Outgoing]) -> None:
        table = self.seat.table
        assert table is not None
        for recipients, press in outgoing:
            await client.send(("SND", tuple(table.power_names[p] for p in recipients), press))
            log.info("press to %s: %s", ", ".join(recipients), _text(press))


def read_now(table: TokenTable, message: Message, centers: Mapping[str, frozenset[str]]) -> Position:
    """``NOW (turn) (unit) ... (unit MRT (places))`` and the last SCO's centres -> a Position."""
    phase = render.phase_of(message[1])
    if phase is None:
        raise ValueError(f"NOW without a turn: {_text(message)}")
    powers = table.power_of_token
    units: list[Unit] = []
    dislodged: list[Dislodged] = []
    for element in message[2:]:
        power = powers[element[0]]
        kind = UnitKind.ARMY if element[1] == "AMY" else UnitKind.FLEET
        where = render.our_location(table, element[2])
        if where is None:
            raise ValueError(f"NOW names an unknown place: {_text(element)}")
        unit = Unit(where, kind, power)
        if len(element) > 3 and element[3] == "MRT":
            retreats = tuple(loc for loc in (render.our_location(table, e) for e in element[4]) if loc is not None)
            dislodged.append(Dislodged(unit, None, retreats))
        else:
            units.append(unit)
    return Position(phase, tuple(sorted(units)), dict(centers), tuple(dislodged))


def _centres(table: TokenTable, message: Message) -> dict[str, frozenset[str]]:
    powers, provinces = table.power_of_token, table.province_of_token
    found: dict[str, frozenset[str]] = {}
    for group in message[1:]:
        if group and group[0] in powers:
            found[powers[group[0]]] = frozenset(provinces[c] for c in group[1:] if c in provinces)
    return found


def _text(element: Element | Message) -> str:
    try:
        return to_text(element if type(element) is tuple else (element,))
    except Exception:  # logging must not fail on what it logs
        return repr(element)
