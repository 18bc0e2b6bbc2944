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
* At each movement phase it proposes, in this order (``judge.negotiation.offers`` reads the
  board for the last two):

  - peace, once, to every power whose units stand next to its own and with which it has
    no peace yet, unless we are allied against it (level 10);
  - to each power it is at peace or allied with, an alliance against their common threat
    (``PRP (ALY (us partner) VSS (threat))``, level 10): the strongest power that borders
    both, else the board's leader if it borders one of them -- never a power offered
    peace in the same breath;
  - to each of those powers, a DMZ of the contested border
    (``PRP (DMZ (us partner) (provinces))``, level 20): the empty provinces, no supply
    centre, that units of both can reach, at most three.

  It proposes again, in the same phase, as soon as an answer makes a new agreement (a new
  friend is offered the alliance and the DMZ at once).  It never sends a proposal it sent
  before (agreed, refused or unanswered), waits for the answer to an alliance or a DMZ
  before offering the same power another, and never offers a power a province that power
  refused in a DMZ.  That memory (``proposed``,
  ``refused``) is part of the fold below, so a negotiator rebuilt from the record keeps
  it.  ``proposing`` narrows what it offers (the negotiation arena's peace-only mode).

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
from judge.negotiation.offers import common_threat, contested, reached

Outgoing = tuple[tuple[str, ...], Message]  # (recipients: power names, press message)
OFFERS = frozenset({"PCE", "ALY", "DMZ"})  # what the negotiator proposes, by arrangement


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
    #: Every proposal we sent (its text): none is sent twice.
    proposed: set[str] = field(default_factory=set)
    #: (the power that refused, the proposal's text) of our proposals refused.
    refused: set[tuple[str, str]] = field(default_factory=set)
    proposing: frozenset[str] = OFFERS

    # -- what the core gets
    def agreements(self) -> Agreements:
        return Agreements(allies=frozenset(self.peace | self.allies), enemies=frozenset(self.enemies),
                          dmz=frozenset(self.dmz))

    # -- hearing press
    def heard(self, sender: str, recipients: tuple[str, ...], press: Message, board: Board) -> list[Outgoing]:
        """Our answers to ``press`` (an FRM's content) from ``sender`` to ``recipients``,
        then, when it made a new agreement in a movement phase, our proposals; each already
        counted as sent (``replay`` of it would count it twice)."""
        before = self.agreements()
        self._received(sender, press)
        answers: list[Outgoing] = []
        if press[:1] == ("PRP",) and len(press) == 2:
            others = tuple(p for p in recipients if p != self.power)
            answer = "YES" if self._accepts(press[1], sender, board) else "REJ"
            answers = self._send([((sender, *others), (answer, press))])
        if self.agreements() != before and board.position.phase.kind.name == "MOVEMENT":
            answers += self.proposals(board)  # a new friend: what we offer friends, now
        return answers

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
            self.refused.add((sender, key))

    def _sent(self, recipients: tuple[str, ...], press: Message) -> None:
        """Our own message: a proposal awaits answers; our YES to a proposal between the
        proposer and us alone makes it agreed."""
        head = press[0] if press else None
        if head == "PRP" and len(press) == 2:
            self.pending[to_text(press)] = set(recipients)
            self.proposed.add(to_text(press))
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
        """A movement phase's opening: peace to new neighbours, then alliances and DMZs to
        the powers we are at peace with (the module's policy), none sent before."""
        me = self.table.power_names[self.power]
        outgoing: list[Outgoing] = []
        if "PCE" in self.proposing:
            outgoing += [((power,), ("PRP", ("PCE", (me, self.table.power_names[power]))))
                         for power in self._new_neighbours(board)]
        friends = self.peace | self.allies
        courted = {power for (_, press) in outgoing for power in self._names(press[1][1])}  # offered peace now
        for partner in sorted(friends):
            token = self.table.power_names[partner]
            threat = common_threat(board, self.power, partner, friends | courted) if "ALY" in self.proposing \
                and not self._awaiting(partner, "ALY") else None
            if threat is not None:
                outgoing.append(((partner,), ("PRP", ("ALY", (me, token), "VSS", (self.table.power_names[threat],)))))
            if "DMZ" in self.proposing and not self._awaiting(partner, "DMZ"):
                provinces = contested(board, self.power, partner, self.dmz | self._refused_provinces(partner))
                if provinces:
                    names = tuple(self.table.province_names[p] for p in provinces)
                    outgoing.append(((partner,), ("PRP", ("DMZ", (me, token), names))))
        return self._send([out for out in outgoing if to_text(out[1]) not in self.proposed])

    def _new_neighbours(self, board: Board) -> list[str]:
        """Powers whose units can reach ours, never offered peace, neither at peace with us
        nor our enemies."""
        ours = {u.province for u in board.position.units if u.power == self.power}
        others = {u.power for u in board.position.units} - {self.power} - self.peace - self.proposed_peace - self.enemies
        return sorted(power for power in others if reached(board, power) & ours)

    def _awaiting(self, partner: str, head: str) -> bool:
        """A proposal of ours of this kind still waits for ``partner``'s answer."""
        return any(partner in waiting and _arrangement_head(text) == head for text, waiting in self.pending.items())

    def _refused_provinces(self, partner: str) -> set[str]:
        """The provinces of the DMZs ``partner`` refused us."""
        found: set[str] = set()
        for refuser, text in self.refused:
            arrangement = from_text(text)[1] if refuser == partner else ()
            if type(arrangement) is tuple and arrangement[:1] == ("DMZ",) and len(arrangement) == 3 \
                    and type(arrangement[2]) is tuple:
                found |= {self.table.province_of_token.get(str(p), "") for p in arrangement[2]}
        return found - {""}

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


def _arrangement_head(text: str) -> str | None:
    """The arrangement's head of a proposal's text (``PRP (ALY ...)`` -> ``ALY``)."""
    words = text.split()
    return words[1].lstrip("(") if len(words) > 1 and words[0] == "PRP" else None
