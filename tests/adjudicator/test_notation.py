"""The lenient order parser (adjudicator.notation)."""

from __future__ import annotations

import pytest

import maps
from adjudicator.notation import OrderSyntaxError, parse_order, parser_for
from adjudicator.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from adjudicator.types import Dislodged, Phase, Position, Unit, UnitKind

VARIANT = maps.load("standard")


def unit(text: str) -> Unit:
    """``"ENGLAND F LON"`` -> Unit."""
    power, kind, location = text.split()
    return Unit(location, UnitKind(kind), power)


def position(phase: str, *units: str, dislodged: tuple[str, ...] = (), centers=None) -> Position:
    return Position(
        Phase.parse(phase),
        tuple(unit(u) for u in units),
        centers or {},
        tuple(Dislodged(unit(d), None, ()) for d in dislodged),
    )


BOARD = position(
    "S1901M",
    "ENGLAND F LON", "ENGLAND F NTH", "ENGLAND A YOR", "ENGLAND F MAO", "ENGLAND F GAS",
    "FRANCE A PAR", "FRANCE A MAR", "FRANCE F WES", "FRANCE F POR", "FRANCE A BEL",
    "RUSSIA F STP/SC", "RUSSIA A MOS", "RUSSIA F SPA/SC", "TURKEY F LYO",
)


def parse(text: str, power: str = "ENGLAND", where: Position = BOARD):
    return parse_order(VARIANT, where, power, text)


def refused(text: str, power: str = "ENGLAND", where: Position = BOARD) -> OrderSyntaxError:
    with pytest.raises(OrderSyntaxError) as caught:
        parse(text, power, where)
    return caught.value


# -- province names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, province",
    [
        # each alias family of the map, as a destination (legality is not the parser's business)
        ("MAO", "MAO"), ("mid", "MAO"), ("Mid-Atlantic Ocean", "MAO"), ("mid atlantic", "MAO"), ("MAT", "MAO"),
        ("NAO", "NAO"), ("nat", "NAO"), ("North Atlantic", "NAO"), ("north atlantic ocean", "NAO"),
        ("LYO", "LYO"), ("gol", "LYO"), ("Gulf of Lyon", "LYO"), ("gulf of lyons", "LYO"),
        ("NWG", "NWG"), ("nrg", "NWG"), ("Norwegian Sea", "NWG"),
        ("BOT", "BOT"), ("gob", "BOT"), ("Gulf of Bothnia", "BOT"),
        ("ENG", "ENG"), ("English Channel", "ENG"), ("channel", "ENG"),
        ("TYS", "TYS"), ("tyn", "TYS"), ("Tyrrhenian Sea", "TYS"),
        ("HEL", "HEL"), ("Helgoland Bight", "HEL"), ("heligoland", "HEL"),
        ("SKA", "SKA"), ("Skagerrak", "SKA"), ("skagerrack", "SKA"),
        ("LVN", "LVN"), ("liv", "LVN"), ("Livonia", "LVN"),
        ("NWY", "NWY"), ("nor", "NWY"), ("Norway", "NWY"),
        ("EAS", "EAS"), ("eastern mediterranean", "EAS"), ("WES", "WES"), ("Western Med", "WES"),
        ("North Sea", "NTH"), ("North Africa", "NAF"), ("Belgium", "BEL"), ("Holland", "HOL"),
    ],
)
def test_province_aliases_and_full_names(name, province):
    order = parse(f"F NTH - {name}")
    assert isinstance(order, Move)
    assert order.destination == province


def test_full_names_for_the_unit_and_the_destination():
    order = parse("Army Paris moves to Burgundy", "FRANCE")
    assert order == Move(unit("FRANCE A PAR"), "BUR")
    assert parse("fleet london -> english channel").canonical() == "F LON - ENG"
    assert parse("F Mid-Atlantic Ocean - Brest").canonical() == "F MAO - BRE"


@pytest.mark.parametrize(
    "text",
    ["A YOR - LON", "A YOR-LON", "a yor -> lon", "A YOR => LON", "A YOR > LON", "A YOR TO LON",
     "A YOR moves to LON", "A YOR move to LON", "A YOR MOVES LON", "A YOR M LON", "YOR - LON",
     "A Yorkshire - London", "A YOR \u2013 LON", "A YOR \u2192 LON", "  a   yor   -   lon  "],
)
def test_move_separators(text):
    assert parse(text) == Move(unit("ENGLAND A YOR"), "LON")


# -- coasts -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["F MAO - SPA/NC", "F MAO - SPA(NC)", "F MAO - SPA (nc)", "F MAO - SPA NC", "F MAO - spa north coast",
     "F MAO - SPA/N", "F MAO - SPA(N)", "F MAO - Spain (North Coast)", "F MAO - SPA/north", "F MAO - SPA N.C.",
     "F MAO - spa/n.c."],
)
def test_coast_forms(text):
    assert parse(text) == Move(unit("ENGLAND F MAO"), "SPA/NC")


@pytest.mark.parametrize(
    "text, destination",
    [
        ("F GAS - SPA", "SPA/NC"),  # only the north coast is reachable from Gascony
        ("F MAO - SPA", "SPA"),  # both are: the player must say (legality decides)
        ("F GAS - SPA/SC", "SPA/SC"),  # a written coast is kept, even an unreachable one
        ("F NTH - STP", "STP"),  # unreachable altogether: left for legality
    ],
)
def test_fleet_destination_coast_is_filled_in_when_only_one_is_reachable(text, destination):
    assert parse(text).destination == destination


def test_fleet_coast_from_the_board_and_armies_ignore_coasts():
    assert parse("F STP - BOT", "RUSSIA").unit == unit("RUSSIA F STP/SC")
    assert parse("F STP/NC - BOT", "RUSSIA").unit == unit("RUSSIA F STP/SC")  # DATC 6.B.10: the board counts
    assert parse("F St Petersburg (south coast) - Gulf of Bothnia", "RUSSIA").canonical() == "F STP/SC - BOT"
    assert parse("A MAR - SPA/NC", "FRANCE") == Move(unit("FRANCE A MAR"), "SPA")  # DATC 6.B.12
    assert parse("F WES - SPA", "FRANCE").destination == "SPA/SC"


def test_bad_coasts_are_refused_with_the_coasts_there_are():
    assert "Spain has no east coast; its coasts are NC, SC" in refused("F MAO - SPA/EC").reason
    assert "London has no north coast" in refused("F NTH - LON/NC").reason
    assert "expected a coast" in refused("F MAO - SPA/XX").reason
    assert "missing ')'" in refused("F MAO - SPA (NC").reason


# -- holds, supports, convoys -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["A YOR H", "A YOR HOLD", "a yor holds", "Army Yorkshire stands", "YOR H"])
def test_hold_words(text):
    assert parse(text) == Hold(unit("ENGLAND A YOR"))


@pytest.mark.parametrize(
    "text",
    ["F NTH S A YOR - LON", "F NTH SUPPORTS A YOR - LON", "F NTH support army yorkshire to london",
     "F NTH SUP YOR-LON", "North Sea S Yorkshire - London", "F NTH S A YOR - LON VIA CONVOY"],
)
def test_support_move_words(text):
    assert parse(text) == SupportMove(unit("ENGLAND F NTH"), unit("ENGLAND A YOR"), "LON")


@pytest.mark.parametrize("text", ["F NTH S A YOR", "F NTH S A YOR H", "F NTH supports yorkshire holds", "F NTH S YOR"])
def test_support_hold_words(text):
    assert parse(text) == SupportHold(unit("ENGLAND F NTH"), unit("ENGLAND A YOR"))


def test_supported_unit_is_the_board_unit():
    # whatever type the player wrote, the supported unit is the one standing there
    assert parse("F NTH S F BEL").supported == unit("FRANCE A BEL")
    assert parse("A PAR S A MAR - BUR", "FRANCE").supported == unit("FRANCE A MAR")


def test_supported_unit_that_is_not_there():
    order = parse("F NTH S A HOL - BEL")
    assert order == SupportMove(unit("ENGLAND F NTH"), Unit("HOL", UnitKind.ARMY, ""), "BEL")
    error = refused("F NTH S HOL - BEL")
    assert "no unit in HOL to support" in error.reason and "A or F" in error.reason


def test_support_keeps_a_written_coast_for_fleets():
    # DATC 6.B.9: a support naming the wrong coast must be recognisable
    assert parse("F POR S F MAO - SPA/NC", "FRANCE").supported_to == "SPA/NC"
    assert parse("F POR S F MAO - SPA", "FRANCE").supported_to == "SPA"
    assert parse("F WES S A MAR - SPA/SC", "FRANCE").supported_to == "SPA"  # armies have no coasts


@pytest.mark.parametrize(
    "text",
    ["F NTH C A YOR - NWY", "F NTH CONVOYS A YOR - NWY", "F NTH convoy army yorkshire to norway",
     "F NTH C YOR-NWY", "North Sea convoys Yorkshire -> Norway"],
)
def test_convoy_words(text):
    assert parse(text) == Convoy(unit("ENGLAND F NTH"), "YOR", "NWY")


def test_convoy_of_a_fleet_parses_and_is_left_to_legality():
    assert parse("F NTH C F LON - BEL") == Convoy(unit("ENGLAND F NTH"), "LON", "BEL")


# -- convoyed moves ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, route",
    [
        ("A YOR-NTH-NWY", ("NTH",)),
        ("A YOR - NTH - NWY", ("NTH",)),
        ("A Yorkshire -> North Sea -> Norway", ("NTH",)),
        ("A YOR - NTH - SKA - NWY", ("NTH", "SKA")),
    ],
)
def test_convoy_route_written_out(text, route):
    assert parse(text) == Move(unit("ENGLAND A YOR"), "NWY", via_convoy=True, route=route)


@pytest.mark.parametrize(
    "text", ["A YOR - NWY VIA CONVOY", "A YOR - NWY via convoy", "A YOR - NWY by convoy", "A YOR - NWY (via convoy)",
             "A YOR - NWY VIA C"],
)
def test_via_convoy(text):
    order = parse(text)
    assert order == Move(unit("ENGLAND A YOR"), "NWY", via_convoy=True)
    assert order.canonical() == "A YOR - NWY VIA CONVOY"


# -- units that are not there ---------------------------------------------------------------------------


def test_unit_type_may_be_left_out():
    assert parse("LON - ENG") == Move(unit("ENGLAND F LON"), "ENG")
    assert parse("london h") == Hold(unit("ENGLAND F LON"))


def test_unit_type_contradicting_the_board_is_refused():
    error = refused("A LON - ENG")
    assert error.reason == "the unit in LON is a fleet, not an army"


def test_typed_unit_that_is_not_there_parses_for_legality_to_void():
    assert parse("A WAL - LVP") == Move(Unit("WAL", UnitKind.ARMY, "ENGLAND"), "LVP")
    assert parse("F BUL/EC - RUM", "TURKEY").unit == Unit("BUL/EC", UnitKind.FLEET, "TURKEY")
    error = refused("WAL - LVP")
    assert error.reason.startswith("no unit in WAL")


def test_another_powers_unit_is_returned_as_it_stands():
    assert parse("A PAR - BUR", "ENGLAND").unit == unit("FRANCE A PAR")


# -- retreat phases --------------------------------------------------------------------------------------

RETREATS = position(
    "F1901R", "ENGLAND F LON", "GERMANY A BUR",
    dislodged=("FRANCE A PAR", "FRANCE F MAO", "ITALY A BUR"),
)


@pytest.mark.parametrize(
    "text", ["A PAR R GAS", "A PAR - GAS", "A PAR retreats to GAS", "A PAR RETREAT GAS", "RETREAT A PAR TO GAS",
             "R A PAR GAS", "Paris retreats to Gascony"],
)
def test_retreat_forms(text):
    assert parse(text, "FRANCE", RETREATS) == Retreat(unit("FRANCE A PAR"), "GAS")


@pytest.mark.parametrize("text", ["A PAR D", "A PAR DISBAND", "DISBAND A PAR", "Paris disbands", "D PAR"])
def test_disband_forms(text):
    assert parse(text, "FRANCE", RETREATS) == Disband(unit("FRANCE A PAR"))


def test_retreat_uses_the_dislodged_unit_and_fills_a_fleet_coast():
    # the dislodged army in BUR, not the German army that took its place
    assert parse("A BUR R PIC", "ITALY", RETREATS).unit == unit("ITALY A BUR")
    assert parse("F MAO R SPA", "FRANCE", RETREATS).destination == "SPA"  # both coasts reachable
    assert parse("F MAO R POR", "FRANCE", RETREATS).destination == "POR"


def test_retreat_phase_refuses_other_orders():
    assert "only retreats and disbands" in refused("A PAR S A MAR", "FRANCE", RETREATS).reason
    assert "no dislodged unit in LON" in refused("LON - ENG", "ENGLAND", RETREATS).reason
    assert "adjustment phases" in refused("BUILD A PAR", "FRANCE", RETREATS).reason
    assert "R PLACE" in refused("A PAR", "FRANCE", RETREATS).reason


# -- adjustment phases ------------------------------------------------------------------------------------

WINTER = position("W1901A", "FRANCE A PAR", "FRANCE F BRE", "TURKEY F LYO", centers={"FRANCE": {"PAR", "BRE", "MAR"}})


@pytest.mark.parametrize(
    "text, order",
    [
        ("BUILD A MAR", Build("FRANCE", UnitKind.ARMY, "MAR")),
        ("build army marseilles", Build("FRANCE", UnitKind.ARMY, "MAR")),
        ("A MAR B", Build("FRANCE", UnitKind.ARMY, "MAR")),
        ("A MAR BUILD", Build("FRANCE", UnitKind.ARMY, "MAR")),
        ("B F MAR", Build("FRANCE", UnitKind.FLEET, "MAR")),
        ("Build F stp/nc", Build("FRANCE", UnitKind.FLEET, "STP/NC")),
        ("BUILD F STP NC", Build("FRANCE", UnitKind.FLEET, "STP/NC")),
        ("build fleet St Petersburg (north coast)", Build("FRANCE", UnitKind.FLEET, "STP/NC")),
        ("Build F stp", Build("FRANCE", UnitKind.FLEET, "STP")),  # no coast: legality voids it
        ("BUILD A STP/NC", Build("FRANCE", UnitKind.ARMY, "STP")),
    ],
)
def test_build_forms(text, order):
    assert parse(text, "FRANCE", WINTER) == order


@pytest.mark.parametrize("text", ["REMOVE A PAR", "A PAR D", "remove paris", "DISBAND A PAR", "A PAR REMOVE", "Paris disband"])
def test_remove_forms(text):
    assert parse(text, "FRANCE", WINTER) == Remove(unit("FRANCE A PAR"))


def test_remove_untyped_uses_the_board_unit():
    assert parse("Remove gol", "TURKEY", WINTER) == Remove(unit("TURKEY F LYO"))  # DATC notation
    assert parse("REMOVE F BUR", "FRANCE", WINTER) == Remove(Unit("BUR", UnitKind.FLEET, "FRANCE"))
    assert "no unit in BUR" in refused("REMOVE BUR", "FRANCE", WINTER).reason


@pytest.mark.parametrize("text", ["WAIVE", "waive", "Waive build", "BUILD WAIVE", "waived"])
def test_waive_forms(text):
    assert parse(text, "FRANCE", WINTER) == Waive("FRANCE")


def test_adjustment_phase_refuses_other_orders():
    assert "say which unit to build in MAR" in refused("BUILD MAR", "FRANCE", WINTER).reason
    assert "adjustment phase" in refused("A PAR - BUR", "FRANCE", WINTER).reason
    assert "say BUILD or REMOVE" in refused("A MAR", "FRANCE", WINTER).reason


def test_movement_phase_refuses_builds_and_disbands():
    assert "adjustment phases" in refused("BUILD A LON").reason
    assert "retreat phases" in refused("A YOR D").reason


# -- errors -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "empty order"),
        ("   ", "empty order"),
        ("A YOR - XYZ", "the destination: 'XYZ' is not a province of the standard map"),
        ("A YOR - LONDN", "'LONDN' is not a province of the standard map (did you mean LON?)"),
        ("A PAR - PYC", "'PYC' is not a province of the standard map (did you mean PIC?)"),
        ("Q YOR - LON", "'Q' is not a province"),
        ("A YOR", "no order given for A YOR"),
        ("A YOR - LON please", "unexpected 'PLEASE' after the order 'A YOR - LON'"),
        ("A YOR X LON", "expected H, '-', S or C after A YOR"),
        ("A YOR -", "the destination is missing"),
        ("F NTH S", "the supported unit is missing"),
        ("F NTH C A YOR", "expected '-' and the army's destination"),
        ("F NTH S A YOR X", "expected '-' and a destination"),
    ],
)
def test_errors_say_why(text, reason):
    error = refused(text)
    assert reason in error.reason
    assert error.text == text
    assert repr(text.strip()) in str(error)  # the message quotes the offending text


def test_parser_tables_are_built_once_per_variant():
    assert parser_for(VARIANT) is parser_for(VARIANT)
    other = maps.load("standard")
    assert parser_for(other) is not parser_for(VARIANT)


def test_canonical_text_round_trips():
    texts = ["F NTH S A YOR - LON", "F NTH C A YOR - NWY", "A YOR - NWY VIA CONVOY", "F MAO - SPA/NC", "A YOR H",
             "F NTH S A YOR"]
    for text in texts:
        assert parse(text).canonical() == text
        assert parse(parse(text).canonical()) == parse(text)


def test_parser_cache_does_not_keep_variants_alive():
    import gc
    import weakref

    variant = maps.load("standard")
    parse_order(variant, BOARD, "ENGLAND", "F LON H")
    alive = weakref.ref(variant)
    del variant
    gc.collect()
    assert alive() is None
