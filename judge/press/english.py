"""Press between players by mail and machine players: DAIDE press in plain English, and a
player's press lines read into DAIDE.

A press line a machine can read is either DAIDE press in its text form (``PRP (PCE (ENG
FRA))``: it starts with PRP, YES, REJ, BWX, HUH, CCL, FCT or TRY) or one of the plain-English
offers below (any case; powers by name or initial, provinces by abbreviation):

    PROPOSE PEACE [WITH powers]          PRP (PCE (me, the recipients[, powers]))
    PROPOSE ALLIANCE AGAINST powers       PRP (ALY (me, the recipients) VSS (powers))
    PROPOSE DMZ provinces                 PRP (DMZ (me, the recipients) (provinces))
    PROPOSE ORDER order                   PRP (XDO (order))   e.g. PROPOSE ORDER F LON - NTH
    PROPOSE DRAW                          PRP (DRW)
    ACCEPT / REJECT                       YES / REJ of the latest proposal the recipient sent me
    CANCEL                                CCL of my latest proposal to the recipient

Any other line starting with one of those words is a press line that could not be read;
lines of ordinary prose are for the human players among the recipients only.  Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from adjudicator import api
from adjudicator.board import Board
from adjudicator.results import OrderResult
from daide.messages import Element, Message, from_text, to_text
from daide.orders import order_element
from daide.press import Grammar, PressError
from daide.render import our_location
from daide.tokens import TokenTable
from mailcmds import PowerListError, resolve_powers

#: How a player writes press a machine reads (the reply quotes it under a line it cannot read).
ACCEPTED_FORMS = ("DAIDE press text (PRP (PCE (ENG FRA)), YES (...), REJ (...), CCL (...), FCT (...)), or "
                  "PROPOSE PEACE [WITH powers], PROPOSE ALLIANCE AGAINST powers, PROPOSE DMZ provinces, "
                  "PROPOSE ORDER order, PROPOSE DRAW, ACCEPT, REJECT, CANCEL")

DAIDE_HEADS = frozenset("PRP YES REJ BWX HUH CCL FCT TRY".split())
ENGLISH_HEADS = frozenset("PROPOSE ACCEPT REJECT CANCEL".split())


class UnreadablePress(ValueError):
    """A press line that looks meant for machines but is no press they can read."""


@dataclass(frozen=True)
class Conversation:
    """What reading one player's press needs: the game's grammar, the board, who writes to
    whom, and the latest proposals each way (DAIDE text) for ACCEPT, REJECT and CANCEL."""

    grammar: Grammar
    board: Board
    sender: str
    recipients: tuple[str, ...]
    received: str | None = None  # the latest PRP a recipient sent the sender
    proposed: str | None = None  # the sender's latest PRP to a recipient


def is_press_line(line: str) -> bool:
    words = line.split()
    return bool(words) and (words[0] in DAIDE_HEADS or words[0].upper() in ENGLISH_HEADS)


def read_line(line: str, talk: Conversation) -> Message:
    """The DAIDE press message of ``line`` (checked at the game's level); UnreadablePress."""
    words = line.split()
    head = words[0].upper()
    if words[0] in DAIDE_HEADS:
        try:
            message = from_text(line)
        except ValueError as problem:
            raise UnreadablePress(str(problem)) from None
    elif head in ("ACCEPT", "REJECT", "CANCEL"):
        message = _answer(head, words[1:], talk)
    else:
        message = ("PRP", _proposal([w.upper() for w in words[1:]], talk))
    try:
        talk.grammar.check(message)
    except PressError as error:
        raise UnreadablePress(f"{error.problem} (in {to_text(message)})") from None
    return message


def _answer(head: str, rest: Sequence[str], talk: Conversation) -> Message:
    if rest:
        raise UnreadablePress(f"{head} takes nothing after it: it answers the latest proposal")
    if head == "CANCEL":
        if talk.proposed is None:
            raise UnreadablePress("you have made no proposal to cancel")
        return ("CCL", from_text(talk.proposed))
    if talk.received is None:
        raise UnreadablePress(f"nothing to {head.lower()}: no proposal has come from them")
    return ("YES" if head == "ACCEPT" else "REJ", from_text(talk.received))


def _proposal(words: list[str], talk: Conversation) -> Element:
    table = talk.grammar.table
    us = [table.power_names[p] for p in (talk.sender, *talk.recipients)]
    kind, rest = (words[0], words[1:]) if words else ("", [])
    if kind == "PEACE":
        extra = _powers(rest[1:], talk) if rest[:1] == ["WITH"] else [] if not rest else None
        if extra is None:
            raise UnreadablePress("PROPOSE PEACE [WITH powers]")
        return ("PCE", tuple(dict.fromkeys(us + extra)))
    if kind == "ALLIANCE" and rest[:1] == ["AGAINST"] and rest[1:]:
        return ("ALY", tuple(us), "VSS", tuple(_powers(rest[1:], talk)))
    if kind == "DMZ" and rest:
        provinces = []
        for word in rest:
            where = our_location(table, table.province_names.get(word, word))
            if where is None or "/" in where:
                raise UnreadablePress(f"'{word}' is no province of this map")
            provinces.append(table.province_names[where])
        return ("DMZ", tuple(us), tuple(provinces))
    if kind in ("ORDER", "MOVE") and rest:
        return ("XDO", _order(" ".join(rest), talk))
    if kind == "DRAW" and not rest:
        return ("DRW",)
    raise UnreadablePress("PROPOSE PEACE, ALLIANCE AGAINST, DMZ, ORDER or DRAW")


def _powers(words: Sequence[str], talk: Conversation) -> list[str]:
    try:
        names = resolve_powers(tuple(w for w in words if w != "AND"), talk.board.variant.powers)
    except PowerListError as problem:
        raise UnreadablePress(str(problem)) from None
    return [talk.grammar.table.power_names[name] for name in names]


def _order(text: str, talk: Conversation) -> Element:
    """An order of any power's unit on the board, in DAIDE's form."""
    problems = []
    for power in sorted({u.power for u in talk.board.position.units}):
        try:
            order = api.parse_order(talk.board, power, text)
        except ValueError as problem:
            problems.append(str(getattr(problem, "reason", problem)))
            continue
        return order_element(talk.grammar.table, talk.board.position, OrderResult(power, order.canonical(), ""))
    raise UnreadablePress(f"'{text}' is no order of a unit on the board" + (f" ({problems[0]})" if problems else ""))


# -- DAIDE press in English, for the players who get a machine's press by mail
def in_english(press: Element, table: TokenTable) -> str:
    """``press`` (a press message or reply) as a sentence, with our power names and province
    abbreviations (the DAIDE text goes beside it in the mail)."""
    return _Words(table).message(press).rstrip(".") + "."


_ANSWERS = {"YES": "accepts", "REJ": "rejects", "BWX": "declines to answer", "HUH": "could not read",
            "CCL": "cancels"}
_VERBS = {"HLD": "H", "MTO": "-", "SUP": "S", "CVY": "C", "CTO": "-", "VIA": "VIA CONVOY", "RTO": "R",
          "DSB": "D", "BLD": "B", "REM": "D", "AMY": "A", "FLT": "F"}


class _Words:
    def __init__(self, table: TokenTable) -> None:
        self.powers = table.power_of_token
        self.provinces = table.province_of_token

    def message(self, element: Element) -> str:
        if type(element) is not tuple or not element:
            return str(element)
        head = element[0]
        if head == "TRY":
            return "can read press with: " + (" ".join(map(str, element[1])) or "nothing" if len(element) > 1 else "nothing")
        if len(element) != 2:
            return to_text(element)
        if head == "PRP":
            return f"proposes {self.arrangement(element[1])}"
        if head == "FCT":
            return f"states as a fact: {self.arrangement(element[1])}"
        if head in _ANSWERS:
            return f"{_ANSWERS[head]} {self.quoted(element[1])}"
        return to_text(element)

    def quoted(self, element: Element) -> str:
        """A message answered or cancelled: 'the proposal of ...'."""
        if type(element) is tuple and len(element) == 2 and element[0] == "PRP":
            return f"the proposal of {self.arrangement(element[1])}"
        if type(element) is tuple and len(element) == 2 and element[0] == "FCT":
            return f"the statement that {self.arrangement(element[1])}"
        return f"the message {to_text((element,))}"

    def who(self, powers: Element) -> str:
        names = [self.powers.get(str(p), str(p)) for p in powers] if type(powers) is tuple else [str(powers)]
        return _listed(names)

    def arrangement(self, element: Element) -> str:
        if type(element) is not tuple or not element:
            return str(element)
        head, rest = element[0], element[1:]
        if head == "PCE" and rest:
            return f"peace between {self.who(rest[0])}"
        if head == "ALY" and len(rest) == 3:
            return f"an alliance of {self.who(rest[0])} against {self.who(rest[2])}"
        if head == "DRW":
            return f"a draw between {self.who(rest[0])}" if rest else "a draw"
        if head == "SLO" and rest:
            return f"a solo win for {self.who(rest[0])}"
        if head == "NOT" and rest:
            return f"not {self.arrangement(rest[0])}"
        if head == "NAR" and rest:
            return f"no agreement either way on {self.arrangement(rest[0])}"
        if head == "XDO" and rest:
            return f"the order {self.order(rest[0])}"
        if head == "DMZ" and len(rest) == 2:
            places = [self.provinces.get(str(p), str(p)) for p in rest[1]] if type(rest[1]) is tuple else []
            return f"that {self.who(rest[0])} keep out of {_listed(places or ['?'])} (a demilitarised zone)"
        if head in ("AND", "ORR"):
            parts = "; ".join(self.arrangement(part) for part in rest)
            return ("all of: " if head == "AND" else "one or more of: ") + parts
        return to_text(element)

    def order(self, element: Element) -> str:
        """A DAIDE order in the judge's notation: ``(ENG FLT LON) MTO ECH`` -> ``ENGLAND F LON - ENG``."""
        words = []
        for part in element if type(element) is tuple else (element,):
            if type(part) is tuple and len(part) == 3 and part[1] in ("AMY", "FLT"):
                words += [self.powers.get(str(part[0]), str(part[0])), _VERBS[part[1]], self.place(part[2])]
            elif type(part) is tuple and our_location_of(self.provinces, part) is None:  # VIA's seas
                words.append(" ".join(self.place(p) for p in part))
            elif type(part) is str and part in self.powers:
                words.append(self.powers[part])
            elif type(part) is str and part in _VERBS:
                words.append(_VERBS[part])
            elif type(part) is str and part == "WVE":
                words.append("WAIVE")
            else:
                words.append(self.place(part))
        return " ".join(words)

    def place(self, element: Element) -> str:
        where = our_location_of(self.provinces, element)
        return where if where is not None else to_text((element,))


def our_location_of(provinces: Mapping[str, str], element: Element) -> str | None:
    if type(element) is str:
        return provinces.get(element)
    if type(element) is tuple and len(element) == 2 and element[0] in provinces and type(element[1]) is str:
        return f"{provinces[element[0]]}/{element[1][:2]}"
    return None


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
