"""Lenient order notation: what a player types -> a typed ``Order``.

Understands any case, province abbreviations, full names and the map's aliases
(multi-word names too), ``-``/``->``/``to``/``moves to``, ``S``/``supports``,
``C``/``convoys``, ``H``/``holds``, the unit type or not, coasts as ``/nc``,
``(nc)``, `` nc``, ``north coast``, ``/n``, convoy routes written out
(``A LON-NTH-NWY``), ``via convoy``, retreats, disbands, builds, removes and
``WAIVE``.  Which orders exist depends on the phase kind of the position.

Only *understanding* happens here; whether an understood order is legal is
``adjudicator.legality``'s question (``F NTH - PIC`` parses fine).

What the parser fills in from the position (notes for the resolver):

* ``order.unit`` is the unit as it stands on the board (dislodged units in
  retreat phases), whatever type or coast the player wrote.  A type that
  contradicts the board (``A LON`` for a fleet) is refused as a syntax error.
  When no unit stands there, the order still parses if the player gave the type:
  the unit is built from the text with ``power`` = the ordering power (the
  resolver voids it, "no such unit"); without a type it is an
  ``OrderSyntaxError("no unit in ...")``.  The same holds for ``Remove``.
* ``SupportHold.supported`` / ``SupportMove.supported`` is the board unit when
  there is one; otherwise a ``Unit`` built from the typed kind with
  ``power=""`` (empty: "nobody's; not on the board"); untyped and empty is an
  ``OrderSyntaxError``.  A typed kind that contradicts the board is ignored.
* ``SupportMove.supported_to`` is the province, **or the location with its
  coast when the player wrote one** (``F POR S F MAO - SPA/NC``): DATC 6.B.9
  wants a support naming the wrong coast not to count.  Compare with
  ``province_of`` when the coast does not matter.
* ``Move.destination``: armies get the bare province (coasts stripped, DATC
  6.B.12); a fleet's destination keeps a written coast, and without one gets the
  only coast of a split-coast province reachable from where the fleet stands
  (DATC 6.B.2), else stays the bare province (6.B.1: the resolver decides).
  ``Retreat.destination`` follows the same rule.
* A route written out (``A LON - NTH - NWY``) gives ``via_convoy=True`` and
  ``route=("NTH",)`` (provinces).  It is not refused for fleets: legality voids it.
* ``Convoy`` records provinces only; ``F NTH C F LON - BEL`` parses as a convoy of
  whatever stands in LON (legality voids convoying a fleet).
* ``Build.location`` keeps a written coast; a fleet build in a split-coast
  province without a coast stays bare (DATC 6.B.14: legality voids it).  An army
  build drops any coast.
"""

from __future__ import annotations

import difflib
import re
from typing import Callable, Mapping

from adjudicator.memo import per_variant
from adjudicator.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from adjudicator.types import PhaseKind, Position, Province, Unit, UnitKind, Variant, province_of

__all__ = ["OrderSyntaxError", "OrderParser", "parser_for", "parse_order"]


class OrderSyntaxError(ValueError):
    """Text that is not an order.  ``reason`` says why and what would be accepted."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"cannot understand {text.strip()!r}: {reason}")
        self.text = text
        self.reason = reason


# Tokens: arrows, single punctuation that carries meaning, words.  Periods and
# apostrophes vanish first ("St. Petersburg", "s.c."); other characters separate.
_TOKEN = re.compile(r"->|=>|[-\u2013\u2014\u2192>/()]|[A-Z0-9]+")
_DROPPED = str.maketrans("", "", ".'\u2019")

_KINDS: dict[str, UnitKind] = {"A": UnitKind.ARMY, "ARMY": UnitKind.ARMY, "F": UnitKind.FLEET, "FLEET": UnitKind.FLEET}
_DASHES = frozenset({"-", "->", "=>", ">", "\u2013", "\u2014", "\u2192"})
# Sequences that mean "moves to"; longest first so "MOVES TO" beats "MOVES".
_MOVE_WORDS: tuple[tuple[str, ...], ...] = (
    ("MOVES", "TO"), ("MOVE", "TO"), ("GOES", "TO"), ("ATTACKS",), ("MOVES",), ("MOVE",), ("TO",), ("M",),
)
_MOVE_FIRST_WORDS = frozenset(sequence[0] for sequence in _MOVE_WORDS)
_MOVE_WORDS_FROM: dict[str, tuple[tuple[str, ...], ...]] = {  # the sequences by first word, longest first
    first: tuple(sequence for sequence in _MOVE_WORDS if sequence[0] == first) for first in _MOVE_FIRST_WORDS
}
_HOLD = frozenset({"H", "HOLD", "HOLDS", "STAND", "STANDS"})
_SUPPORT = frozenset({"S", "SUP", "SUPP", "SUPPORT", "SUPPORTS"})
_CONVOY = frozenset({"C", "CONVOY", "CONVOYS", "CVY"})
_VIA = frozenset({"VIA", "BY"})
_RETREAT = frozenset({"R", "RETREAT", "RETREATS"})
_DISBAND = frozenset({"D", "DISBAND", "DISBANDS"})
_BUILD = frozenset({"B", "BUILD", "BUILDS"})
_REMOVE = frozenset({"REMOVE", "REMOVES", "DESTROY"}) | _DISBAND
_WAIVE = frozenset({"WAIVE", "WAIVES", "WAIVED"})
_KEYWORDS = (
    frozenset(_KINDS) | _HOLD | _SUPPORT | _CONVOY | _VIA | _RETREAT | _BUILD | _REMOVE | _WAIVE
    | {w for seq in _MOVE_WORDS for w in seq}
)
# Coast words.  Single letters only count after "/" or "(" (a bare "S" is "supports").
_COAST_WORDS: dict[str, str] = {
    "NC": "NC", "SC": "SC", "EC": "EC", "WC": "WC",
    "NORTH": "NC", "SOUTH": "SC", "EAST": "EC", "WEST": "WC",
}
_COAST_LETTERS: dict[str, str] = {"N": "NC", "S": "SC", "E": "EC", "W": "WC"}
_COAST_TEXT = {"NC": "north coast", "SC": "south coast", "EC": "east coast", "WC": "west coast"}
_PHASE_HELP = {
    PhaseKind.MOVEMENT: "in a movement phase write e.g. 'A PAR H', 'A PAR - BUR', 'A PAR S A MAR - BUR', 'F NTH C A LON - NWY'",
    PhaseKind.RETREAT: "in a retreat phase write e.g. 'A PAR R BUR' (or 'A PAR - BUR') or 'A PAR D'",
    PhaseKind.ADJUSTMENT: "in an adjustment phase write e.g. 'BUILD A PAR', 'REMOVE F BRE' (or 'F BRE D') or 'WAIVE'",
}


_NOTHING_GLUED: frozenset[int] = frozenset()


_OPENING, _CLOSING = frozenset({"("}), frozenset({")"})


class _Tokens:
    """A cursor over one order's tokens."""

    __slots__ = ("text", "words", "count", "glued", "at")

    def __init__(self, text: str) -> None:
        self.text = text
        upper = text.upper()
        if "." in upper or "'" in upper or "\u2019" in upper:  # three C-level scans: quicker than translate
            upper = upper.translate(_DROPPED)
        self.at = 0
        if "-" not in upper:  # no hyphen to glue: the words are all there is to find
            # letters, digits and spaces only ("ARMY PARIS TO BURGUNDY"): the words between the spaces
            plain = upper.isascii() and upper.replace(" ", "").isalnum()
            self.words = upper.split() if plain else _TOKEN.findall(upper)
            self.count = len(self.words)
            self.glued = _NOTHING_GLUED
            return
        matches = list(_TOKEN.finditer(upper))
        self.words = [m.group() for m in matches]
        self.count = len(self.words)
        # A hyphen written inside a word ("Mid-Atlantic", "LON-NTH") may be part of a name.
        self.glued = frozenset(
            i for i, m in enumerate(matches)
            if m.group() == "-" and 0 < i < len(matches) - 1
            and matches[i - 1].end() == m.start() and matches[i + 1].start() == m.end()
        )

    def peek(self, ahead: int = 0) -> str | None:
        i = self.at + ahead
        return self.words[i] if i < self.count else None

    def done(self) -> bool:
        return self.at >= self.count

    def take(self, choices: frozenset[str]) -> str | None:
        i = self.at
        if i < self.count:
            word = self.words[i]
            if word in choices:
                self.at = i + 1
                return word
        return None

    def take_move_word(self) -> bool:
        i = self.at
        if i >= self.count:
            return False
        word = self.words[i]
        if word in _DASHES:
            self.at = i + 1
            return True
        for sequence in _MOVE_WORDS_FROM.get(word, ()):  # none when no sequence can start here
            if tuple(self.words[i : i + len(sequence)]) == sequence:
                self.at = i + len(sequence)
                return True
        return False

    def rest(self) -> str:
        return " ".join(self.words[self.at :])

    def fail(self, reason: str) -> OrderSyntaxError:
        return OrderSyntaxError(self.text, reason)


class OrderParser:
    """Order parser for one variant; the name tables are built once, here."""

    def __init__(self, variant: Variant) -> None:
        # No reference to the variant itself: it is the key of the weak cache below.
        self.map_name = variant.name
        self.provinces: dict[str, Province] = dict(variant.provinces)
        # normalised alias words -> province; one-word aliases that are order keywords
        # ("S", "TO", ...) would be ambiguous and are left out.
        self.names: dict[tuple[str, ...], str] = {}
        for alias, location in variant.aliases.items():
            words = tuple(alias.split())
            if words and (words[0] not in _KEYWORDS or len(words) > 1):
                self.names[words] = province_of(location)
        for abbrev in self.provinces:
            self.names[(abbrev,)] = abbrev
        self.longest_name = max(len(words) for words in self.names)
        # every beginning of a name (the names too): reading a name stops at words no name goes on with
        self.name_starts = frozenset(words[:end] for words in self.names for end in range(1, len(words) + 1))
        # the same names as a tree of words: word -> (the province so far named or None, the next words)
        self.name_tree: dict[str, tuple[str | None, dict]] = {}
        for words in sorted(self.name_starts, key=len):
            branch = self.name_tree
            for word in words[:-1]:
                branch = branch[word][1]
            branch[words[-1]] = (self.names.get(words), {})
        self.fleet_moves = variant.fleet_moves
        self.handlers: dict[PhaseKind, Callable[[_Tokens, Position, str, Mapping[str, Unit]], Order]] = {
            PhaseKind.MOVEMENT: self._movement,
            PhaseKind.RETREAT: self._retreat,
            PhaseKind.ADJUSTMENT: self._adjustment,
        }

    def parse(self, position: Position, power: str, text: str, units: Mapping[str, Unit] | None = None) -> Order:
        """Understand ``text`` as an order of ``power`` in ``position``'s phase.  ``units``
        (province -> unit of ``position``, as ``adjudicator.board.Board.units``) saves
        building it when the caller has it."""
        tokens = _Tokens(text)
        if tokens.done():
            raise tokens.fail("empty order; " + _PHASE_HELP[position.phase.kind])
        if units is None:
            units = {province_of(u.location): u for u in position.units}
        order = self.handlers[position.phase.kind](tokens, position, power, units)
        if not tokens.done():
            raise tokens.fail(f"unexpected {tokens.rest()!r} after the order {order.canonical()!r}")
        return order

    # -- names and coasts --------------------------------------------------------

    def _location(self, tokens: _Tokens, what: str) -> tuple[str, str | None]:
        """Read a province name (longest alias first) and an optional coast."""
        start = tokens.at
        words, count, glued = tokens.words, tokens.count, tokens.glued
        best: tuple[str, int] | None = None
        branch = self.name_tree
        i = start
        while i < count:  # down the tree of names, as long as some name goes on so
            if i in glued:  # "MID-ATLANTIC": the hyphen is part of the name
                i += 1
                continue
            step = branch.get(words[i])
            i += 1
            if step is None:
                break  # no longer name begins so
            province, branch = step
            if province is not None:
                best = (province, i)
        if best is None:
            found = words[start] if start < len(words) else None
            if found is None:
                raise tokens.fail(f"{what} is missing")
            raise tokens.fail(f"{what}: {found!r} is not a province of the {self.map_name} map{self._guess(found)}")
        province, tokens.at = best
        return province, self._coast(tokens, province)

    def _guess(self, word: str) -> str:
        """``" (did you mean YOR?)"`` for a near miss of an abbreviation or a one-word name,
        else ``""`` (error path only: never while parsing good lines)."""
        names = {name: entry[0] for name, entry in self.name_tree.items() if entry[0] is not None}
        wanted = word.upper()
        for pool in (list(self.provinces), list(names)):  # "YOK" is nearer YOR than YORK
            close = difflib.get_close_matches(wanted, pool, n=1, cutoff=0.6)
            if close:
                return f" (did you mean {names.get(close[0], close[0])}?)"
        return ""

    def _coast(self, tokens: _Tokens, province: str) -> str | None:
        split = self.provinces[province].coasts
        opener = tokens.peek()
        explicit = opener in ("/", "(")
        if explicit:
            tokens.at += 1
        elif not split:
            return None
        word = tokens.peek()
        coast = _COAST_WORDS.get(word or "")
        if coast is None and explicit:
            coast = _COAST_LETTERS.get(word or "")
            if coast is not None and tokens.peek(1) == "C":  # "/n c": the letter and a separate C
                tokens.at += 1
        if coast is None:
            if opener == "(" and word not in _COAST_LETTERS:  # "(via convoy)": not a coast after all
                tokens.at -= 1
                return None
            if explicit:
                raise tokens.fail(f"expected a coast (NC, SC, EC, WC, 'north coast', ...) after {province}{opener}, "
                                  f"got {word or 'nothing'!r}")
            return None
        tokens.at += 1
        if tokens.peek() == "COAST":
            tokens.at += 1
        if opener == "(" and not tokens.take(frozenset({")"})):
            raise tokens.fail(f"missing ')' after the coast of {province}")
        if coast not in split:
            have = f"its coasts are {', '.join(split)}" if split else "it has no separate coasts"
            raise tokens.fail(f"{self.provinces[province].name} has no {_COAST_TEXT[coast]}; {have}")
        return coast

    def _unit_text(self, tokens: _Tokens, what: str) -> tuple[UnitKind | None, str, str | None]:
        """``[A|F|army|fleet] PLACE [coast]`` -> (kind or None, province, coast or None)."""
        word = tokens.peek()
        kind = _KINDS.get(word) if word is not None else None
        if kind is not None:
            tokens.at += 1
        province, coast = self._location(tokens, what)
        return kind, province, coast

    @staticmethod
    def _place(kind: UnitKind, province: str, coast: str | None) -> str:
        return province if coast is None or kind is UnitKind.ARMY else f"{province}/{coast}"

    def _ordered_unit(self, tokens: _Tokens, board: Unit | None, kind: UnitKind | None,
                      province: str, coast: str | None, power: str, where: str) -> Unit:
        if board is not None:
            if kind is not None and kind is not board.kind:
                raise tokens.fail(f"the unit {where}in {province} is {'an army' if board.kind is UnitKind.ARMY else 'a fleet'}, "
                                  f"not {'an army' if kind is UnitKind.ARMY else 'a fleet'}")
            return board
        if kind is None:
            raise tokens.fail(f"no {where}unit in {province}; write its type (A or F) to order it anyway")
        return Unit(self._place(kind, province, coast), kind, power)

    def _destination(self, kind: UnitKind, at: str, province: str, coast: str | None) -> str:
        """Where a unit at ``at`` is sent: armies ignore coasts; a fleet gets the only reachable coast."""
        if kind is UnitKind.ARMY:
            return province
        if coast is not None:
            return f"{province}/{coast}"
        if self.provinces[province].coasts:
            reachable = [loc for loc in self.fleet_moves.get(at, ()) if province_of(loc) == province]
            if len(reachable) == 1:
                return reachable[0]
        return province

    # -- movement ----------------------------------------------------------------------

    def _movement(self, tokens: _Tokens, position: Position, power: str, units: Mapping[str, Unit]) -> Order:
        first = tokens.peek()
        if first in _BUILD or first in _WAIVE or first in _REMOVE:
            raise tokens.fail(f"{first!r} orders belong to adjustment phases; this is {position.phase}, "
                              f"so {_PHASE_HELP[PhaseKind.MOVEMENT]}")
        kind, province, coast = self._unit_text(tokens, "the unit to order")
        unit = self._ordered_unit(tokens, units.get(province), kind, province, coast, power, "")
        word = tokens.peek()
        if word is None:
            raise tokens.fail(f"no order given for {unit}: add H to hold, '- PLACE' to move, "
                              "'S ...' to support or 'C ...' to convoy")
        if tokens.take(_HOLD):
            return Hold(unit)
        if tokens.take(_SUPPORT):
            return self._support(tokens, units, unit)
        if tokens.take(_CONVOY):
            return self._convoy(tokens, unit)
        if tokens.take_move_word():
            return self._move(tokens, unit)
        if word in _DISBAND or word in _RETREAT:
            raise tokens.fail(f"{word!r} orders belong to retreat phases; this is {position.phase}, "
                              f"so {_PHASE_HELP[PhaseKind.MOVEMENT]}")
        raise tokens.fail(f"expected H, '-', S or C after {unit}, got {tokens.rest()!r}")

    def _move(self, tokens: _Tokens, unit: Unit) -> Move:
        places = [self._location(tokens, "the destination")]
        while tokens.take_move_word():
            places.append(self._location(tokens, "the next province of the convoy route"))
        via_convoy = len(places) > 1
        if self._take_via_convoy(tokens):
            via_convoy = True
        province, coast = places[-1]
        return Move(
            unit,
            self._destination(unit.kind, unit.location, province, coast),
            via_convoy=via_convoy,
            route=tuple(p for p, _ in places[:-1]),
        )

    @staticmethod
    def _take_via_convoy(tokens: _Tokens) -> bool:
        start = tokens.at
        bracket = tokens.take(_OPENING)
        if tokens.take(_VIA) and tokens.take(_CONVOY):
            if not bracket or tokens.take(_CLOSING):
                return True
        tokens.at = start
        return False

    def _supported(self, tokens: _Tokens, units: Mapping[str, Unit]) -> Unit:
        kind, province, coast = self._unit_text(tokens, "the supported unit")
        board = units.get(province)
        if board is not None:
            return board
        if kind is None:
            raise tokens.fail(f"no unit in {province} to support; write its type (A or F) to order it anyway")
        return Unit(self._place(kind, province, coast), kind, "")

    def _support(self, tokens: _Tokens, units: Mapping[str, Unit], unit: Unit) -> SupportHold | SupportMove:
        supported = self._supported(tokens, units)
        if tokens.done() or tokens.take(_HOLD):
            return SupportHold(unit, supported)
        if not tokens.take_move_word():
            raise tokens.fail(f"expected '-' and a destination (or H, or nothing) after the supported unit "
                              f"{supported.kind.value} {supported.province}, got {tokens.rest()!r}")
        province, coast = self._location(tokens, "the supported move's destination")
        self._take_via_convoy(tokens)  # "S A LON - BEL VIA CONVOY": the support is the same
        target = province if coast is None or supported.kind is UnitKind.ARMY else f"{province}/{coast}"
        return SupportMove(unit, supported, target)

    def _convoy(self, tokens: _Tokens, unit: Unit) -> Convoy:
        _, army_from, _ = self._unit_text(tokens, "the convoyed army")
        if not tokens.take_move_word():
            raise tokens.fail(f"expected '-' and the army's destination after {army_from}, got {tokens.rest() or 'nothing'!r}")
        army_to, _ = self._location(tokens, "the convoyed army's destination")
        return Convoy(unit, army_from, army_to)

    # -- spellings of canonical movement orders ---------------------------------------------

    def canonical_spelling(self, text: str) -> str | None:
        """The canonical text of a movement order written with the unit's kind and words this
        parser reads the same whatever the board (names, aliases, any case, ``to`` or ``moves
        to``, ``supports``, ``convoys``, ``holds``, coasts, a trailing ``via convoy``), else
        ``None``.  Where the text names units, the canonical text names them as written: it
        reads as ``text`` does only on a board where they stand so, which the caller checks
        (``canonical_lines.read_canonical``); routes and anything unusual give ``None``."""
        tokens = _Tokens(text)
        try:
            kind = _KINDS.get(tokens.peek() or "")
            if kind is None:
                return None
            tokens.at += 1
            province, coast = self._location(tokens, "the unit to order")
            head = f"{kind._value_} {self._place(kind, province, coast)}"
            if tokens.take(_HOLD):
                body = "H"
            elif tokens.take(_SUPPORT):
                other = _KINDS.get(tokens.peek() or "")
                if other is None:
                    return None
                tokens.at += 1
                supported, _ = self._location(tokens, "the supported unit")
                body = f"S {other._value_} {supported}"
                if not (tokens.done() or tokens.take(_HOLD)):
                    if not tokens.take_move_word():
                        return None
                    target, target_coast = self._location(tokens, "the supported move's destination")
                    self._take_via_convoy(tokens)  # the support is the same
                    body += f" - {self._place(other, target, target_coast)}"
            elif tokens.take(_CONVOY):
                tokens.take(frozenset(_KINDS))  # the convoyed unit's kind is not read
                army_from, _ = self._location(tokens, "the convoyed army")
                if not tokens.take_move_word():
                    return None
                army_to, _ = self._location(tokens, "the convoyed army's destination")
                body = f"C A {army_from} - {army_to}"
            elif tokens.take_move_word():
                destination, destination_coast = self._location(tokens, "the destination")
                body = f"- {self._place(kind, destination, destination_coast)}"
                if self._take_via_convoy(tokens):
                    body += " VIA CONVOY"
            else:
                return None
        except OrderSyntaxError:
            return None
        return f"{head} {body}" if tokens.done() else None

    # -- retreats -------------------------------------------------------------------------

    def _retreat(self, tokens: _Tokens, position: Position, power: str, units: Mapping[str, Unit]) -> Order:
        first = tokens.peek()
        if first in _BUILD or first in _WAIVE or first == "REMOVE":
            raise tokens.fail(f"{first!r} orders belong to adjustment phases; this is {position.phase}, "
                              f"so {_PHASE_HELP[PhaseKind.RETREAT]}")
        leading_disband = tokens.take(_DISBAND)
        leading_retreat = None if leading_disband else tokens.take(_RETREAT)
        kind, province, coast = self._unit_text(tokens, "the dislodged unit")
        board = next((d.unit for d in position.dislodged if d.unit.province == province), None)
        unit = self._ordered_unit(tokens, board, kind, province, coast, power, "dislodged ")
        if leading_disband:
            return Disband(unit)
        if tokens.take(_DISBAND):
            return Disband(unit)
        if leading_retreat or tokens.take(_RETREAT):
            tokens.take_move_word()  # "RETREATS TO", "R -"
        elif not tokens.take_move_word():
            word = tokens.peek()
            if word is None:
                raise tokens.fail(f"no order given for the dislodged {unit}: write 'R PLACE' to retreat or D to disband")
            if word in _HOLD or word in _SUPPORT or word in _CONVOY:
                raise tokens.fail(f"only retreats and disbands are ordered in a retreat phase; "
                                  f"{_PHASE_HELP[PhaseKind.RETREAT]}")
            raise tokens.fail(f"expected R (or '-') and a place, or D, after {unit}, got {tokens.rest()!r}")
        province, coast = self._location(tokens, "the retreat's destination")
        return Retreat(unit, self._destination(unit.kind, unit.location, province, coast))

    # -- adjustments ------------------------------------------------------------------------

    def _adjustment(self, tokens: _Tokens, position: Position, power: str, units: Mapping[str, Unit]) -> Order:
        if tokens.take(_WAIVE):
            tokens.take(_BUILD)  # "WAIVE BUILD"
            return Waive(power)
        if tokens.take(_BUILD):
            if tokens.take(_WAIVE):  # "BUILD WAIVE"
                return Waive(power)
            return self._build(tokens, *self._unit_text(tokens, "the place to build"), power)
        if tokens.take(_REMOVE):
            return self._remove(tokens, units, *self._unit_text(tokens, "the unit to remove"), power)
        kind, province, coast = self._unit_text(tokens, "the unit to build or remove")
        if tokens.take(_BUILD):
            return self._build(tokens, kind, province, coast, power)
        if tokens.take(_REMOVE):
            return self._remove(tokens, units, kind, province, coast, power)
        word = tokens.peek()
        if word is not None and (word in _HOLD or word in _SUPPORT or word in _CONVOY or word in _RETREAT
                                 or word in _DASHES or word == "TO"):
            raise tokens.fail(f"this is an adjustment phase ({position.phase}); {_PHASE_HELP[PhaseKind.ADJUSTMENT]}")
        raise tokens.fail(f"say BUILD or REMOVE: {_PHASE_HELP[PhaseKind.ADJUSTMENT]}")

    def _build(self, tokens: _Tokens, kind: UnitKind | None, province: str, coast: str | None, power: str) -> Build:
        if kind is None:
            raise tokens.fail(f"say which unit to build in {province}: 'BUILD A {province}' or 'BUILD F {province}'")
        return Build(power, kind, self._place(kind, province, coast))

    def _remove(self, tokens: _Tokens, units: Mapping[str, Unit], kind: UnitKind | None, province: str,
                coast: str | None, power: str) -> Remove:
        unit = self._ordered_unit(tokens, units.get(province), kind, province, coast, power, "")
        return Remove(unit)


@per_variant
def parser_for(variant: Variant) -> OrderParser:
    """The ``OrderParser`` of ``variant``, built on first use and kept while the variant lives."""
    return OrderParser(variant)


def parse_order(variant: Variant, position: Position, power: str, text: str,
                units: Mapping[str, Unit] | None = None) -> Order:
    """Understand one order of ``power``; raises ``OrderSyntaxError`` with a reason.
    ``units``: province -> unit of ``position``, when the caller has it (a Board's)."""
    return parser_for(variant).parse(position, power, text, units)
