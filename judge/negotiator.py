"""The judge's bot at the table: it proposes and answers DAIDE press (peace, alliances,
DMZs), keeps what was agreed, and hands the agreements to the strategic core
(``bot.agreements.Agreements``), which breaks one only when that clearly pays.

Policy (deterministic: no chance in it, so a game replays for the bot's seed):

* ``PRP (PCE (powers))`` naming us: accepted unless it names a power we are allied against.
* ``PRP (ALY (powers) VSS (enemies))`` naming us among the allies: accepted unless an enemy
  is a power we are at peace or allied with.
* ``PRP (DMZ (powers) (provinces))``: accepted when it binds us and at least one other
  power and keeps us out of no supply centre we own (a one-sided offer that takes our own
  centres is refused).
* Any other proposal (orders, draws, solos, several parts): refused (``REJ``).
* ``YES`` to one of our proposals from every power it went to makes it an agreement;
  ``REJ`` drops it; ``CCL`` of a proposal not yet agreed withdraws it.  Statements
  (``FCT``), ``TRY``, ``HUH`` and ``BWX`` get no answer.
* At each movement phase it proposes peace once to every power whose units stand next to
  its own and with which it has no peace yet.

Answers go to the sender and the proposal's other recipients, as the syntax asks.
Nothing above the game's level is sent (``daide.press.Grammar`` checks every message).
Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adjudicator.api import Board
from bot.agreements import Agreements
from daide.messages import Element, Message, to_text
from daide.press import Grammar, PressError
from daide.tokens import TokenTable

Outgoing = tuple[tuple[str, ...], Message]  # (recipients: power names, press message)


@dataclass
class Negotiator:
    power: str
    table: TokenTable
    level: int
    peace: set[str] = field(default_factory=set)
    allies: set[str] = field(default_factory=set)
    enemies: set[str] = field(default_factory=set)
    dmz: set[str] = field(default_factory=set)
    #: Our proposals awaiting answers: their text -> the powers yet to say YES.
    pending: dict[str, set[str]] = field(default_factory=dict)
    proposed_peace: set[str] = field(default_factory=set)

    # -- what the core gets
    def agreements(self) -> Agreements:
        return Agreements(allies=frozenset(self.peace | self.allies), enemies=frozenset(self.enemies),
                          dmz=frozenset(self.dmz))

    # -- hearing press
    def heard(self, sender: str, recipients: tuple[str, ...], press: Message, board: Board) -> list[Outgoing]:
        """Our answers to ``press`` (an FRM's content) from ``sender`` to ``recipients``."""
        head = press[0] if press else None
        others = tuple(p for p in recipients if p != self.power)
        if head == "PRP" and len(press) == 2:
            answer = "YES" if self._accepts(press[1], board) else "REJ"
            if answer == "YES" and not others:  # two of us: agreed with our YES
                self._agree(press[1])
            return self._checked([((sender, *others), (answer, press))])
        inner = press[1] if len(press) == 2 and type(press[1]) is tuple else ()
        key = to_text(inner) if inner[:1] == ("PRP",) else None
        if head == "YES" and key in self.pending:
            waiting = self.pending[key]
            waiting.discard(sender)
            if not waiting:
                del self.pending[key]
                self._agree(inner[1])
        elif head == "REJ" and key in self.pending:
            del self.pending[key]
        return []

    def _names(self, element: Element) -> set[str]:
        powers = self.table.power_of_token
        return {powers[str(p)] for p in element if str(p) in powers} if type(element) is tuple else set()

    def _accepts(self, arrangement: Element, board: Board) -> bool:
        if type(arrangement) is not tuple or not arrangement:
            return False
        head = arrangement[0]
        if head == "PCE" and len(arrangement) == 2:
            powers = self._names(arrangement[1])
            return self.power in powers and not powers & self.enemies
        if head == "ALY" and len(arrangement) == 4:
            allies, enemies = self._names(arrangement[1]), self._names(arrangement[3])
            return self.power in allies and bool(enemies) and not enemies & (self.peace | self.allies | {self.power})
        if head == "DMZ" and len(arrangement) == 3:
            powers = self._names(arrangement[1])
            provinces = {self.table.province_of_token.get(str(p)) for p in arrangement[2]}
            ours = set(board.position.centers.get(self.power, ()))
            return self.power in powers and len(powers) >= 2 and not provinces & ours and None not in provinces
        return False

    def _agree(self, arrangement: Element) -> None:
        if type(arrangement) is not tuple or not arrangement:
            return
        head = arrangement[0]
        if head == "PCE":
            self.peace |= self._names(arrangement[1]) - {self.power}
        elif head == "ALY":
            self.allies |= self._names(arrangement[1]) - {self.power}
            self.enemies |= self._names(arrangement[3])
        elif head == "DMZ":
            self.dmz |= {self.table.province_of_token[str(p)] for p in arrangement[2]
                         if str(p) in self.table.province_of_token}

    # -- proposing
    def proposals(self, board: Board) -> list[Outgoing]:
        """Peace, once, to each neighbour we have none with (a movement phase's opening)."""
        ours = {u.province for u in board.position.units if u.power == self.power}
        near = set()
        for unit in board.position.units:
            if unit.power == self.power or unit.power in self.peace | self.proposed_peace:
                continue
            reach = board.tables.reach[unit.kind].get(unit.location, frozenset())
            if ours & set(reach):
                near.add(unit.power)
        outgoing: list[Outgoing] = []
        me = self.table.power_names[self.power]
        for power in sorted(near):
            press: Message = ("PRP", ("PCE", (me, self.table.power_names[power])))
            self.proposed_peace.add(power)
            self.pending[to_text(press)] = {power}
            outgoing.append(((power,), press))
        return self._checked(outgoing)

    def _checked(self, outgoing: list[Outgoing]) -> list[Outgoing]:
        """Only what the game's level accepts (a level-0 game gets nothing)."""
        grammar = Grammar(self.table, self.level)
        kept = []
        for recipients, press in outgoing:
            try:
                grammar.check(press)
            except PressError:
                continue
            kept.append((recipients, press))
        return kept
