"""DAIDE press: the grammar of a ``press_message`` or ``reply`` at press levels 10, 20 and 30,
the caps on its size, and the form a recipient gets (``FRM``).

Levels (the DAIDE message syntax): 10 peace and alliances (PRP, CCL, FCT, TRY, and the
replies YES, REJ, BWX, HUH; arrangements PCE, ALY ... VSS, DRW, SLO, NOT, NAR); 20 order
proposals (XDO, DMZ); 30 multipart arrangements (AND, ORR, not nested, neither twice, at
least two parts).  ``check_press`` answers where the first element a game at that level
cannot accept stands, so the server can put HUH's ERR there.  Pure: only the message tree
and a ``TokenTable``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from daide.messages import Element, Message, Text
from daide.render import our_location
from daide.tokens import TokenTable

#: The press levels this judge speaks; a game's level is one of these.
LEVELS = (0, 10, 20, 30)

#: Tokens a TRY may list, by the level that brings them (higher ones are dropped when relayed).
TRY_TOKENS = {
    10: frozenset("PRP PCE ALY VSS DRW SLO NOT NAR YES REJ BWX FCT".split()),
    20: frozenset("XDO DMZ".split()),
    30: frozenset("AND ORR".split()),
    999: frozenset("SCD OCC INS QRY THK IDK SUG WHT HOW EXP SRY FOR IFF THN ELS XOY YDO FRM FWD SND CHO".split()),
}
_LEVEL_OF_TRY = {token: level for level, tokens in TRY_TOKENS.items() for token in tokens}

MAX_TOKENS = 600  # more than any level-30 offer needs (seven powers' XDOs in one AND is about 250)
MAX_DEPTH = 8     # brackets inside the press message: AND (XDO ((unit) SUP (unit) MTO prov)) is 5


class PressError(ValueError):
    """Press a game at this level cannot accept; ``path`` leads to the element at fault,
    within the element that was checked."""

    def __init__(self, problem: str, path: tuple[int, ...]) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path = path


@dataclass(frozen=True)
class Grammar:
    """What one game accepts: its level and its powers' tokens."""

    table: TokenTable
    level: int
    partial_draws: bool = False  # PDA: DRW (powers) is an arrangement too

    @property
    def powers(self) -> frozenset[str]:
        return frozenset(self.table.power_names.values())

    # -- the caps
    def check_size(self, press: Element) -> None:
        """PressError at the first element past ``MAX_DEPTH`` brackets or ``MAX_TOKENS`` tokens."""
        count = 0

        def walk(element: Element, path: tuple[int, ...], depth: int) -> None:
            nonlocal count
            if type(element) is tuple:
                if depth > MAX_DEPTH:
                    raise PressError(f"press nested deeper than {MAX_DEPTH} brackets", path)
                count += 2
                for index, inner in enumerate(element):
                    walk(inner, path + (index,), depth + 1)
            else:
                count += len(element) if type(element) is Text else 1
            if count > MAX_TOKENS:
                raise PressError(f"press longer than {MAX_TOKENS} tokens", path)

        if type(press) is tuple:
            for index, inner in enumerate(press):
                walk(inner, (index,), 1)

    # -- the grammar
    def check(self, press: Element) -> None:
        """``press`` (the bracketed content of SND's last part: a press_message or a reply)
        is one this game accepts; else PressError with the path of the element at fault."""
        if self.level < 10:
            raise PressError("this game has no press (press level 0)", ())
        self.check_size(press)
        self._message(press, (), replies=True)

    def _message(self, element: Element, path: tuple[int, ...], replies: bool) -> None:
        head = _head(element, path, "a press message (PRP, CCL, FCT, TRY, YES, REJ, BWX or HUH)")
        assert type(element) is tuple
        if head in ("PRP", "FCT"):
            self._one_bracket(element, path)
            self._arrangement(element[1], path + (1,), set())
        elif head == "CCL":
            self._one_bracket(element, path)
            self._message(element[1], path + (1,), replies=True)
        elif head == "TRY":
            self._one_bracket(element, path)
            for index, token in enumerate(element[1]):
                if type(token) is not str or token not in _LEVEL_OF_TRY:
                    raise PressError("TRY lists press tokens", path + (1, index))
        elif head in ("YES", "REJ", "BWX") and replies:
            self._one_bracket(element, path)
            self._message(element[1], path + (1,), replies=False)
        elif head == "HUH" and replies:
            self._one_bracket(element, path)  # it quotes what its sender could not read, ERR and all
        else:
            raise PressError(f"{head} is no press message", path + (0,))

    def _one_bracket(self, element: tuple, path: tuple[int, ...]) -> None:
        if len(element) < 2 or type(element[1]) is not tuple:
            raise PressError(f"{element[0]} takes one bracketed part", path + (min(len(element), 1),))
        if len(element) > 2:
            raise PressError(f"{element[0]} takes one bracketed part", path + (2,))

    def _arrangement(self, element: Element, path: tuple[int, ...], multipart: set[str]) -> None:
        head = _head(element, path, "an arrangement")
        assert type(element) is tuple
        need = {"PCE": 10, "ALY": 10, "DRW": 10, "SLO": 10, "NOT": 10, "NAR": 10, "XDO": 20, "DMZ": 20,
                "AND": 30, "ORR": 30}.get(head)
        if need is None or need > self.level:
            raise PressError(f"{head} is no arrangement at press level {self.level}", path + (0,))
        if head == "PCE":
            self._powers(element, 1, path, least=2)
            _width(element, 2, path)
        elif head == "ALY":
            self._powers(element, 1, path, least=2)
            if len(element) < 3 or element[2] != "VSS":
                raise PressError("ALY (powers) is followed by VSS (powers)", path + (min(len(element), 2),))
            self._powers(element, 3, path, least=1)
            _width(element, 4, path)
        elif head == "DRW":
            if len(element) > 1 and not self.partial_draws:
                raise PressError("DRW names no powers: this game draws only among all survivors (no PDA)",
                                 path + (1,))
            if len(element) > 1:
                self._powers(element, 1, path, least=2)
            _width(element, 2, path)
        elif head == "SLO":
            self._powers(element, 1, path, least=1, most=1)
            _width(element, 2, path)
        elif head in ("NOT", "NAR"):
            self._one_bracket(element, path)
            inner = element[1]
            if head == "NOT" and type(inner) is tuple and inner[:1] == ("NOT",):
                raise PressError("no double negatives: NOT (NOT ...)", path + (1, 0))
            self._arrangement(inner, path + (1,), multipart)
        elif head == "XDO":
            self._one_bracket(element, path)
            self._order(element[1], path + (1,))
        elif head == "DMZ":
            self._powers(element, 1, path, least=1)
            if len(element) < 3 or type(element[2]) is not tuple or not element[2]:
                raise PressError("DMZ (powers) is followed by (provinces)", path + (min(len(element), 2),))
            for index, province in enumerate(element[2]):
                if type(province) is not str or province not in self.table.province_of_token:
                    raise PressError("DMZ's second list names provinces", path + (2, index))
            _width(element, 3, path)
        else:  # AND, ORR
            if multipart:
                raise PressError(f"at press level {self.level} AND and ORR are not nested and appear once",
                                 path + (0,))
            if len(element) < 3:
                raise PressError(f"{head} has at least two bracketed parts", path + (len(element),))
            for index in range(1, len(element)):
                self._arrangement(element[index], path + (index,), {head})

    def _powers(self, element: tuple, index: int, path: tuple[int, ...], least: int, most: int = 999) -> None:
        if len(element) <= index or type(element[index]) is not tuple:
            raise PressError(f"{element[0]} needs a bracketed list of powers", path + (min(index, len(element)),))
        powers = element[index]
        if not least <= len(powers) <= most:
            wanted = f"{least}" if least == most else f"at least {least}"
            raise PressError(f"{element[0]} names {wanted} power{'s' if least > 1 else ''}",
                             path + (index, min(len(powers), most)))
        for at, power in enumerate(powers):
            if type(power) is not str or power not in self.powers:
                raise PressError("a power of this game", path + (index, at))

    def _order(self, order: Element, path: tuple[int, ...]) -> None:
        """An order in SUB's syntax (its shape only: XDO may promise any unit's order)."""
        if type(order) is not tuple or len(order) < 2:
            raise PressError("an order: (unit) HLD, (unit) MTO province, ...", path)
        if len(order) == 2 and order[1] == "WVE":
            self._power(order[0], path + (0,))
            return
        self._unit(order[0], path + (0,))
        word = order[1]
        shapes = {"HLD": 2, "DSB": 2, "BLD": 2, "REM": 2, "MTO": 3, "RTO": 3}
        if word in shapes:
            if len(order) != shapes[word]:
                raise PressError(f"{word} takes {'a province' if shapes[word] == 3 else 'nothing'}",
                                 path + (min(len(order), shapes[word]),))
            if shapes[word] == 3:
                self._location(order[2], path + (2,))
        elif word == "SUP":
            if len(order) not in (3, 5):
                raise PressError("SUP (unit) [MTO province]", path + (min(len(order), 5) - 1,))
            self._unit(order[2], path + (2,))
            if len(order) == 5:
                if order[3] != "MTO":
                    raise PressError("SUP (unit) MTO province", path + (3,))
                self._location(order[4], path + (4,))
        elif word == "CVY":
            if len(order) != 5 or order[3] != "CTO":
                raise PressError("CVY (unit) CTO province", path + (min(len(order), 4) - 1,))
            self._unit(order[2], path + (2,))
            self._location(order[4], path + (4,))
        elif word == "CTO":
            if len(order) != 5 or order[3] != "VIA" or type(order[4]) is not tuple or not order[4]:
                raise PressError("CTO province VIA (seas)", path + (min(len(order), 4) - 1,))
            self._location(order[2], path + (2,))
            for index, sea in enumerate(order[4]):
                self._location(sea, path + (4, index))
        else:
            raise PressError("an order word (HLD MTO SUP CVY CTO RTO DSB BLD REM)", path + (1,))

    def _unit(self, unit: Element, path: tuple[int, ...]) -> None:
        if type(unit) is not tuple or len(unit) != 3 or unit[1] not in ("AMY", "FLT"):
            raise PressError("a unit: (power AMY|FLT province)", path)
        self._power(unit[0], path + (0,))
        self._location(unit[2], path + (2,))

    def _power(self, element: Element, path: tuple[int, ...]) -> None:
        if type(element) is not str or element not in self.powers:
            raise PressError("a power of this game", path)

    def _location(self, element: Element, path: tuple[int, ...]) -> None:
        if our_location(self.table, element) is None:
            raise PressError("a province (or (province coast)) of this map", path)


def _head(element: Element, path: tuple[int, ...], wanted: str) -> str:
    if type(element) is not tuple or not element or type(element[0]) is not str:
        raise PressError(f"expected {wanted}", path + ((0,) if type(element) is tuple and element else ()))
    return element[0]


def _width(element: tuple, length: int, path: tuple[int, ...]) -> None:
    if len(element) > length:
        raise PressError(f"{element[0]} has nothing more", path + (length,))


def relayed(press: Element, level: int) -> Element:
    """The press as its recipients get it: a TRY keeps only the tokens of the game's level
    (the syntax: the server removes higher-level tokens), everything else unchanged."""
    if type(press) is not tuple or not press:
        return press
    if press[0] == "TRY" and len(press) == 2 and type(press[1]) is tuple:
        return ("TRY", tuple(t for t in press[1] if _LEVEL_OF_TRY.get(t, 999) <= level))
    return press


def frm(sender: str, recipients: Sequence[str], press: Element, level: int) -> Message:
    """``FRM (sender) (recipients) (press)`` in token names."""
    return ("FRM", (sender,), tuple(recipients), relayed(press, level))
