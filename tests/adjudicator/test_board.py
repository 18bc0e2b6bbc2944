"""The Board (adjudicator.board): a position prepared once, passed to the facade in place of
(variant, position); no state kept on the position or between calls."""

from __future__ import annotations

import dataclasses

import pytest

import maps
from adjudicator import api
from adjudicator.types import Phase, PhaseKind, Position, Season, Unit, UnitKind

VARIANT = maps.load("standard")
START = api.initial_position(VARIANT)


def _fields_only(position: Position) -> bool:
    """Nothing but the dataclass's fields is kept on ``position``: it has slots for them and
    no ``__dict__`` where anything else could be hung, and each field holds what it held."""
    return not hasattr(position, "__dict__") and set(Position.__slots__) == {f.name for f in dataclasses.fields(Position)}


def test_a_board_answers_from_the_position_it_was_prepared_from() -> None:
    board = api.prepare(VARIANT, START)
    assert board.position is START and board.variant is VARIANT
    assert board.unit_at("STP/NC") == board.unit_at("STP") == START.unit_at("STP") == Unit("STP/SC", UnitKind.FLEET, "RUSSIA")
    assert board.unit_at("BUR") is None and START.unit_at("BUR") is None
    assert [START.units[board.index[p]] for p in board.provinces] == list(START.units)
    assert board.fleet_seas == frozenset()  # no fleet starts at sea
    at_sea = Position(START.phase, START.units[:1] + (Unit("NTH", UnitKind.FLEET, "ENGLAND"),), START.centers)
    assert api.prepare(VARIANT, at_sea).fleet_seas == {"NTH"}


def test_a_board_cannot_be_changed() -> None:
    board = api.prepare(VARIANT, START)
    with pytest.raises(dataclasses.FrozenInstanceError):
        board.units = {}  # type: ignore[misc]
    assert not hasattr(board, "__dict__")  # slots: nothing can be hung on it either


def test_the_facade_keeps_nothing_on_the_position() -> None:
    where = api.initial_position(VARIANT)
    board = api.prepare(VARIANT, where)
    parsed = api.parse_orders(board, "ENGLAND", ["F LON - NTH", "A LVP - YOR"])
    api.parse_order(api.prepare(VARIANT, where), "FRANCE", "A PAR - BUR")
    api.adjudicate(board, {"ENGLAND": parsed})
    api.adjudicate(api.prepare(VARIANT, where), {"ENGLAND": parsed.orders})
    api.requirements(board)
    where.unit_at("LON")
    assert _fields_only(where)
    assert api.position_digest(where) == api.position_digest(api.initial_position(VARIANT))  # and unchanged


def test_orders_parsed_on_the_board_are_trusted_and_give_what_checked_orders_give() -> None:
    board = api.prepare(VARIANT, START)
    lines = ["F LON - NTH", "a lvp to yorkshire", "F EDI - PIC", "nonsense"]
    by_board = api.parse_orders(board, "ENGLAND", lines)
    again = api.parse_orders(api.prepare(VARIANT, START), "ENGLAND", lines)
    assert repr(by_board.orders) == repr(again.orders) and by_board.errors == again.errors
    assert by_board.canonical == again.canonical == ("F LON - NTH", "A LVP - YOR")
    assert by_board.power == "ENGLAND" and by_board.board is board
    assert repr(api.parse_order(board, "FRANCE", "A PAR - BUR")) == repr(api.parse_order(api.prepare(VARIANT, START), "FRANCE", "A PAR - BUR"))
    assert api.requirements(board) == api.requirements(api.prepare(VARIANT, START))
    trusted = api.adjudicate(board, {"ENGLAND": by_board}, frozenset({"PARADOX_ALL_FAIL"}))
    checked = api.adjudicate(api.prepare(VARIANT, START), {"ENGLAND": list(by_board.orders)}, rules=frozenset({"PARADOX_ALL_FAIL"}))
    assert trusted.results == checked.results
    assert api.position_digest(trusted.position) == api.position_digest(checked.position)
    assert ("ENGLAND", "F LON - NTH", "moves", None) in trusted.results


def test_parsed_orders_are_trusted_only_on_their_own_board_and_for_their_own_power() -> None:
    parsed = api.parse_orders(api.prepare(VARIANT, START), "ENGLAND", ["F LON - NTH"])
    # Another position of the same phase, where LON is empty: the order is checked again, and void.
    moved = tuple(Unit("WAL", u.kind, u.power) if u.location == "LON" else u for u in START.units)
    elsewhere = api.prepare(VARIANT, Position(START.phase, moved, START.centers))
    results = api.adjudicate(elsewhere, {"ENGLAND": parsed}).results
    assert ("ENGLAND", "F LON - NTH", "void", "there is no fleet in LON") in results
    # The same board, but handed in as another power's orders: checked again, and refused.
    results = api.adjudicate(parsed.board, {"FRANCE": parsed}).results  # type: ignore[arg-type]
    assert ("FRANCE", "F LON - NTH", "void", "the unit in LON belongs to ENGLAND, not FRANCE") in results
    assert ("ENGLAND", "F LON H", "holds", None) in results


def test_the_lenient_parser_reads_the_same_with_or_without_the_boards_units() -> None:
    from adjudicator.notation import parse_order as lenient

    board = api.prepare(VARIANT, START)
    winter = Position(START.phase.__class__.parse("W1901A"), START.units, START.centers)
    for where, power, text in [
        (START, "ENGLAND", "fleet london supports army liverpool to yorkshire"),
        (START, "RUSSIA", "f st petersburg -> bothnia"),
        (winter, "TURKEY", "remove army constantinople"),
    ]:
        units = board.units if where is START else api.prepare(VARIANT, where).units
        assert repr(lenient(VARIANT, where, power, text, units)) == repr(lenient(VARIANT, where, power, text))


def test_a_board_outside_movement_holds_only_what_those_phases_ask() -> None:
    winter = Position(Phase(1901, Season.WINTER, PhaseKind.ADJUSTMENT), START.units, START.centers)
    board = api.prepare(VARIANT, winter)
    assert board.unit_at("STP/NC") == Unit("STP/SC", UnitKind.FLEET, "RUSSIA")
    assert board.provinces == api.prepare(VARIANT, START).provinces
    # the movement phase's lookups (legality of convoys, the resolver's indexes, the forms) are left empty
    assert (board.fleet_seas, dict(board.index), board.powers, dict(board.forms)) == (frozenset(), {}, (), {})
    # and the adjustment phase's count (centres minus units) is made once, for every power
    assert dict(board.surpluses) == {power.name: 0 for power in VARIANT.powers}
    assert dict(api.prepare(VARIANT, START).surpluses) == {}
    parsed = api.parse_orders(board, "FRANCE", ["WAIVE", "A PAR D"])
    assert parsed.errors == (("WAIVE", "FRANCE has no builds"), ("A PAR D", "FRANCE has no units to remove"))
    assert str(api.adjudicate(board, {"FRANCE": parsed}).position.phase) == "S1902M"


def test_the_surpluses_counted_once_are_each_powers_balance() -> None:
    from adjudicator.adjustments import balance, balances

    # France took Belgium and Spain; England lost London to a German army, which Germany
    # cannot build for; Italy has no centres but one unit left; Austria is gone.
    units = tuple(sorted([u for u in START.units if u.power not in ("ITALY", "AUSTRIA")] + [Unit("VEN", UnitKind.ARMY, "ITALY")]))
    centers = {p: set(c) for p, c in START.centers.items() if p not in ("ITALY", "AUSTRIA")}
    centers["FRANCE"] |= {"BEL", "SPA"}
    centers["ENGLAND"].discard("LON")
    centers["GERMANY"].add("LON")
    winter = Position(Phase(1901, Season.WINTER, PhaseKind.ADJUSTMENT), units, {p: frozenset(c) for p, c in centers.items()})
    counted = api.prepare(VARIANT, winter).surpluses
    assert dict(counted) == {p: balance(winter, p) for p in {*centers, "ITALY"}} == balances(winter)
    assert (counted["FRANCE"], counted["ENGLAND"], counted["GERMANY"], counted["ITALY"]) == (2, -1, 1, -1)


def test_read_orders_keeps_each_illegal_order_in_its_place_for_adjudicate_to_void() -> None:
    board = api.prepare(VARIANT, START)
    lines = ["F EDI - PAR", "F LON - ENG", "", "A LVP - Atlantis", "A LVP - WAL", "F LON - PIC", "A PAR - BUR"]
    read = api.read_orders(board, "ENGLAND", lines)
    assert read.canonical == ("F LON - ENG", "A LVP - WAL")
    # understood but illegal, each after the good orders before it: EDI's first, LON's second order last
    assert [(entry.place, entry.order.canonical(), entry.reason) for entry in read.illegal] == [
        (0, "F EDI - PAR", "a fleet cannot move inland (PAR)"),
        (2, "F LON - PIC", "F LON is not adjacent to PIC"),
        (2, "A PAR - BUR", "the unit in PAR belongs to FRANCE, not ENGLAND"),
    ]
    assert [line for line, _ in read.errors] == ["", "A LVP - Atlantis"]  # only the lines not understood
    # parse_orders reads the same lines as before: every refusal an error, the blank line skipped
    parsed = api.parse_orders(board, "ENGLAND", lines)
    assert parsed.illegal == () and [line for line, _ in parsed.errors] == [
        "F EDI - PAR", "A LVP - Atlantis", "F LON - PIC", "A PAR - BUR"]

    results = set(api.adjudicate(board, {"ENGLAND": read}).results)
    assert ("ENGLAND", "F EDI - PAR", "void", "a fleet cannot move inland (PAR)") in results
    # the later, illegal order for LON counts: void in its unit's place, the fleet stays
    assert ("ENGLAND", "F LON - PIC", "void", "F LON is not adjacent to PIC") in results
    assert ("ENGLAND", "A LVP - WAL", "moves", None) in results
    # an order for another power's unit is listed apart, void with its reason
    assert ("ENGLAND", "A PAR - BUR", "void", "the unit in PAR belongs to FRANCE, not ENGLAND") in results
    assert ("FRANCE", "A PAR H", "holds", None) in results
    # the same orders given as a plain list, checked by adjudicate: the same answer
    plain = [o.order for o in read.illegal[:1]] + list(read.orders) + [o.order for o in read.illegal[1:]]
    assert set(api.adjudicate(api.prepare(VARIANT, START), {"ENGLAND": plain}).results) == results
    # handed to another board, the illegal orders are checked again with the good ones
    assert set(api.adjudicate(api.prepare(VARIANT, START), {"ENGLAND": read}).results) == results


def test_a_good_order_after_an_illegal_one_for_the_same_unit_counts() -> None:
    board = api.prepare(VARIANT, START)
    read = api.read_orders(board, "ENGLAND", ["F LON - PIC", "F LON - ENG"])
    assert [entry.place for entry in read.illegal] == [0]
    assert ("ENGLAND", "F LON - ENG", "moves", None) in api.adjudicate(board, {"ENGLAND": read}).results


def test_read_orders_in_a_retreat_phase_voids_an_illegal_retreat_unless_a_later_one_counts() -> None:
    german_in_galicia = tuple(sorted([u for u in START.units if u.location != "MUN"] + [Unit("GAL", UnitKind.ARMY, "GERMANY")]))
    board = api.prepare(VARIANT, Position(START.phase, german_in_galicia, START.centers))
    attack = api.parse_orders(board, "AUSTRIA", ["A VIE - GAL", "A BUD S A VIE - GAL"])
    retreat = api.prepare(VARIANT, api.adjudicate(board, {"AUSTRIA": attack}).position)
    assert retreat.position.phase.kind is PhaseKind.RETREAT

    read = api.read_orders(retreat, "GERMANY", ["A GAL R VIE", "A GAL R BOH"])  # VIE: where the attack came from
    assert [entry.order.canonical() for entry in read.illegal] == ["A GAL R VIE"] and read.errors == ()
    assert ("GERMANY", "A GAL R BOH", "retreats", None) in api.adjudicate(retreat, {"GERMANY": read}).results

    read = api.read_orders(retreat, "GERMANY", ["A GAL R BOH", "A GAL R VIE"])
    (result,) = [r for r in api.adjudicate(retreat, {"GERMANY": read}).results if r.power == "GERMANY"]
    assert (result.order, result.result) == ("A GAL R VIE", "void") and result.reason.endswith("the unit is disbanded")
