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
from typing import Sequence

from adjudicator import api
from adjudicator.board import Board
from adjudicator.results import OrderResult
from daide.messages import Element, Message, from_text, to_text
from daide.orders import order_element
from daide.press import Grammar, PressError
from daide.render import our_location
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
def in_english(press: Element, names: dict[str, str]) -> str:
    """``press`` (a press message or reply) as a sentence; ``names``: power token -> power name."""
    return _message(press, names).rstrip(".") + "."


_MESSAGES = {"PRP": "proposes {}", "FCT": "states as a fact: {}", "YES": "accepts: {}", "REJ": "rejects: {}",
             "BWX": "declines to answer: {}", "HUH": "could not read: {}", "CCL": "cancels: {}"}


def _message(element: Element, names: dict[str, str]) -> str:
    if type(element) is not tuple or not element:
        return str(element)
    head = element[0]
    if head == "TRY":
        return "can read press with: " + (" ".join(element[1]) if len(element) > 1 else "nothing")
    if head in _MESSAGES and len(element) == 2:
        inner = _arrangement(element[1], names) if head in ("PRP", "FCT") else _message(element[1], names)
        return _MESSAGES[head].format(inner)
    return to_text(element)


def _arrangement(element: Element, names: dict[str, str]) -> str:
    if type(element) is not tuple or not element:
        return str(element)
    head, rest = element[0], element[1:]

    def who(powers: Element) -> str:
        return _listed([names.get(str(p), str(p)) for p in powers]) if type(powers) is tuple else str(powers)

    if head == "PCE":
        return f"peace between {who(rest[0])}"
    if head == "ALY" and len(rest) == 3:
        return f"an alliance of {who(rest[0])} against {who(rest[2])}"
    if head == "DRW":
        return f"a draw between {who(rest[0])}" if rest else "a draw"
    if head == "SLO":
        return f"a solo win for {who(rest[0])}"
    if head == "NOT":
        return f"NOT {_arrangement(rest[0], names)}"
    if head == "NAR":
        return f"no agreement either way on {_arrangement(rest[0], names)}"
    if head == "XDO":
        return f"the order {to_text(rest[0])}"
    if head == "DMZ" and len(rest) == 2:
        return f"that {who(rest[0])} keep out of {_listed([str(p) for p in rest[1]])} (a demilitarised zone)"
    if head in ("AND", "ORR"):
        parts = "; ".join(_arrangement(part, names) for part in rest)
        return ("all of: " if head == "AND" else "one or more of: ") + parts
    return to_text(element)


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
