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
* ``PRP (XDO (order))``: accepted for another power's unit (a promise to us), refused for
  ours (we do not take orders).
* ``PRP (AND (part) (part) ...)``: accepted when every part would be, so a fair peace with a
  shared DMZ is taken and a peace that costs us a centre or moves our units is refused.
* Any other proposal (draws, solos, ``ORR``): refused (``REJ``).
* ``YES`` to one of our proposals from every power it went to makes it an agreement;
  ``REJ`` drops it; ``CCL`` of a proposal not yet agreed withdraws it.  Statements
  (``FCT``), ``TRY``, ``HUH`` and ``BWX`` get no answer.
* At each movement phase it proposes peace once to every power whose units stand next to
  its own and with which it has no peace yet.

Answers go to the sender and the proposal's other recipients, as the syntax asks.
Nothing above the game's level is sent (``daide.press.Grammar`` checks every message).

What it agreed is a fold over the conversation: ``replay`` applies a message of the record
(ours or one to us) without answering it, so a negotiator rebuilt from the stored press of
a game (the judge's bot in a bot process) is the one that took part in it.
Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from adjudicator.api import Board
from bot.agreements import Agreements
from daide.messages import Element, Message, from_text, to_text
from daide.press import Grammar, PressError
from daide.tokens import TokenTable

Outgoing = tuple[tuple[str, ...], Message]  # (recipients: power names, press message)


@dataclass(frozen=True)
class Said:
    """One press message of a game's record: who sent it, to whom, its DAIDE text."""

    sender: str
    recipients: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class Talk:
    """What the judge's bot at a seat needs to negotiate: the game's press level, the
    record of its conversation so far (oldest first) and the press it is to answer now
    (empty for a phase's opening)."""

    level: int
    record: tuple[Said, ...] = ()
    heard: tuple[Said, ...] = ()


def rebuilt(power: str, table: TokenTable, talk: Talk) -> Negotiator:
    """``power``'s negotiator as the record leaves it (a message that does not read is skipped)."""
    negotiator = Negotiator(power, table, talk.level)
    for said in talk.record:
        try:
            negotiator.replay(said.sender, said.recipients, from_text(said.text))
        except ValueError:
            continue
    return negotiator


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
        """Our answers to ``press`` (an FRM's content) from ``sender`` to ``recipients``,
        each already counted as sent (``replay`` of it would count it twice)."""
        self._received(sender, press)
        if press[:1] != ("PRP",) or len(press) != 2:
            return []
        others = tuple(p for p in recipients if p != self.power)
        answer = "YES" if self._accepts(press[1], sender, board) else "REJ"
        return self._send([((sender, *others), (answer, press))])

    def replay(self, sender: str, recipients: tuple[str, ...], press: Message) -> None:
        """A message of the record, ours or to us, applied as when it was sent or heard."""
        if sender == self.power:
            self._sent(recipients, press)
        elif self.power in recipients:
            self._received(sender, press)

    def _received(self, sender: str, press: Message) -> None:
        """Answers to our proposals: every YES makes it agreed, a REJ drops it."""
        head = press[0] if press else None
        inner = press[1] if len(press) == 2 and type(press[1]) is tuple else ()
        key = to_text(inner) if inner[:1] == ("PRP",) else None
        if key not in self.pending:
            return
        if head == "YES":
            waiting = self.pending[key]
            waiting.discard(sender)
            if not waiting:
                del self.pending[key]
                self._agree(inner[1])
        elif head == "REJ":
            del self.pending[key]

    def _sent(self, recipients: tuple[str, ...], press: Message) -> None:
        """Our own message: a proposal awaits answers; our YES to a proposal between the
        proposer and us alone makes it agreed."""
        head = press[0] if press else None
        if head == "PRP" and len(press) == 2:
            self.pending[to_text(press)] = set(recipients)
            arrangement = press[1]
            if type(arrangement) is tuple and arrangement[:1] == ("PCE",):
                self.proposed_peace |= set(recipients)
        elif head == "YES" and len(press) == 2 and type(press[1]) is tuple and press[1][:1] == ("PRP",) \
                and len(recipients) == 1 and len(press[1]) == 2:
            self._agree(press[1][1])

    def _names(self, element: Element) -> set[str]:
        powers = self.table.power_of_token
        return {powers[str(p)] for p in element if str(p) in powers} if type(element) is tuple else set()

    def _accepts(self, arrangement: Element, proposer: str, board: Board) -> bool:
        if type(arrangement) is not tuple or not arrangement:
            return False
        head = arrangement[0]
        if head == "AND" and len(arrangement) >= 3:
            return all(self._accepts(part, proposer, board) for part in arrangement[1:])
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
        if head == "XDO" and len(arrangement) == 2:
            order = arrangement[1]
            unit = order[0] if type(order) is tuple and order and type(order[0]) is tuple else ()
            owner = self.table.power_of_token.get(str(unit[0])) if unit else None
            return owner is not None and owner != self.power
        return False

    def _agree(self, arrangement: Element) -> None:
        if type(arrangement) is not tuple or not arrangement:
            return
        head = arrangement[0]
        if head == "AND":
            for part in arrangement[1:]:
                self._agree(part)
        elif head == "PCE":
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
            outgoing.append(((power,), ("PRP", ("PCE", (me, self.table.power_names[power])))))
        return self._send(outgoing)

    def _send(self, outgoing: list[Outgoing]) -> list[Outgoing]:
        """Only what the game's level accepts (a level-0 game gets nothing), counted as sent."""
        grammar = Grammar(self.table, self.level)
        kept = []
        for recipients, press in outgoing:
            try:
                grammar.check(press)
            except PressError:
                continue
            self._sent(recipients, press)
            kept.append((recipients, press))
        return kept
