"""Retreat and adjustment phases, civil disorder, phase progression, centres, victory, requirements."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from adjudicator.civil_disorder import disorder_removals, distance_home
from adjudicator.orders import Build
from adjudicator.tables import tables_for
from adjudicator.types import PhaseKind, Unit, UnitKind, Variant
from tests.adjudicator.enginehelp import board, play, position, result_of


@pytest.fixture(scope="module")
def variant() -> Variant:
    return maps.load("standard")


def _retreat_position(variant: Variant, phase: str = "S1901R"):
    return position(
        variant,
        phase,
        {"ITALY": ["A VIE", "A TYR"], "GERMANY": ["A MUN"], "RUSSIA": ["A WAR"]},
        centers={"RUSSIA": ["MOS", "SEV", "STP", "WAR"]},
        dislodged={
            "AUSTRIA": [{"unit": "A BUD", "retreats": ["GAL", "RUM"], "attacker_from": "SER"}],
            "TURKEY": [{"unit": "A UKR", "retreats": ["GAL", "RUM", "SEV"], "attacker_from": "MOS"}],
            "ENGLAND": [{"unit": "A BOH", "retreats": ["SIL"], "attacker_from": "TYR"}],
        },
    )


def test_retreats_collide_disband_and_move(variant: Variant) -> None:
    where = _retreat_position(variant)
    outcome = play(variant, where, {"AUSTRIA": ["A BUD R GAL"], "TURKEY": ["A UKR R GAL"]})
    assert result_of(outcome, "A BUD R GAL").result == "disbanded"
    assert result_of(outcome, "A UKR R GAL").result == "disbanded"
    assert result_of(outcome, "A BOH D").result == "disbanded"  # no order: disbanded
    assert board(outcome) == {"ITALY A VIE", "ITALY A TYR", "GERMANY A MUN", "RUSSIA A WAR"}
    assert str(outcome.position.phase) == "F1901M" and outcome.position.dislodged == ()

    moved = play(variant, where, {"AUSTRIA": ["A BUD R RUM"], "TURKEY": ["A UKR R GAL"], "ENGLAND": ["A BOH D"]})
    assert result_of(moved, "A BUD R RUM").result == "retreats"
    assert result_of(moved, "A UKR R GAL").result == "retreats"
    assert result_of(moved, "A BOH D").result == "disbanded"
    assert {"AUSTRIA A RUM", "TURKEY A GAL"} <= board(moved)


def test_an_illegal_retreat_is_void_and_the_unit_disbands(variant: Variant) -> None:
    where = _retreat_position(variant)
    with pytest.raises(api.IllegalOrder):
        api.parse_order(api.prepare(variant, where), "AUSTRIA", "A BUD R SER")
    from adjudicator.orders import Retreat

    bud = Unit("BUD", UnitKind.ARMY, "AUSTRIA")
    outcome = api.adjudicate(api.prepare(variant, where), {"AUSTRIA": [Retreat(bud, "SER")]})
    result = result_of(outcome, "A BUD R SER")
    assert result.result == "void" and "disbanded" in (result.reason or "")
    assert not any(u.power == "AUSTRIA" for u in outcome.position.units)


def test_centres_change_hands_after_the_fall_retreat(variant: Variant) -> None:
    where = _retreat_position(variant, "F1901R")
    outcome = play(variant, where, {"TURKEY": ["A UKR R RUM"]})
    assert outcome.position.centers["TURKEY"] == frozenset({"RUM"})
    # Occupied centres change hands too: Germany takes MUN, Italy VIE.  Turkey and Germany
    # have as many units as centres; Italy one unit too many; Russia three free home centres.
    assert outcome.position.centers["GERMANY"] == frozenset({"MUN"})
    assert outcome.position.centers["ITALY"] == frozenset({"VIE"})
    assert str(outcome.position.phase) == "W1901A"
    needed = api.requirements(api.prepare(variant, outcome.position))
    assert sorted(needed) == ["ITALY", "RUSSIA"]
    assert (needed["ITALY"].removals, needed["RUSSIA"].builds) == (1, 3)


def test_spring_leads_to_fall_and_an_idle_winter_is_skipped(variant: Variant) -> None:
    start = api.initial_position(variant)
    spring = play(variant, start, {})
    assert str(spring.position.phase) == "F1901M"
    fall = play(variant, spring.position, {})
    assert str(fall.position.phase) == "S1902M"
    assert fall.position.centers == start.centers
    assert fall.winner is None


def test_a_centre_taken_in_fall_gives_a_build(variant: Variant) -> None:
    where = position(
        variant,
        "F1901M",
        {"ENGLAND": ["F NTH", "F LON", "A YOR"]},
        centers={"ENGLAND": ["EDI", "LON", "LVP"]},
    )
    spring_like = play(variant, where, {"ENGLAND": ["F NTH - NWY"]})
    winter = spring_like.position
    assert str(winter.phase) == "W1901A"
    assert winter.centers["ENGLAND"] == frozenset({"EDI", "LON", "LVP", "NWY"})
    needed = api.requirements(api.prepare(variant, winter))
    assert needed["ENGLAND"].builds == 1 and needed["ENGLAND"].removals == 0


def test_nothing_changes_hands_in_spring(variant: Variant) -> None:
    where = position(variant, "S1901M", {"ENGLAND": ["F NTH"]}, centers={"ENGLAND": ["EDI", "LON", "LVP"]})
    outcome = play(variant, where, {"ENGLAND": ["F NTH - NWY"]})
    assert outcome.position.centers["ENGLAND"] == frozenset({"EDI", "LON", "LVP"})


def test_builds_waives_and_the_build_count(variant: Variant) -> None:
    where = position(
        variant,
        "W1901A",
        {"ENGLAND": ["F NTH", "A YOR", "F NWY"]},
        centers={"ENGLAND": ["LON", "EDI", "LVP", "NWY", "BEL"]},
    )
    assert api.requirements(api.prepare(variant, where))["ENGLAND"].builds == 2
    outcome = play(variant, where, {"ENGLAND": ["Build F LON", "waive", "Build A EDI"]})
    assert result_of(outcome, "F LON B").result == "builds"
    assert result_of(outcome, "WAIVE").result == "waived"
    assert result_of(outcome, "A EDI B").result == "void"
    assert "ENGLAND F LON" in board(outcome) and "ENGLAND A EDI" not in board(outcome)
    assert str(outcome.position.phase) == "S1902M"


def test_builds_only_in_owned_free_home_centres(variant: Variant) -> None:
    where = position(
        variant,
        "W1901A",
        {"ENGLAND": ["F LON"], "FRANCE": ["A PAR"]},
        centers={"ENGLAND": ["LON", "EDI", "NWY"], "FRANCE": ["PAR", "LVP"]},
    )
    assert api.requirements(api.prepare(variant, where))["ENGLAND"].builds == 1  # EDI is the only free owned home centre
    with pytest.raises(api.IllegalOrder, match="occupied"):
        api.parse_order(api.prepare(variant, where), "ENGLAND", "Build F LON")
    with pytest.raises(api.IllegalOrder, match="home"):
        api.parse_order(api.prepare(variant, where), "ENGLAND", "Build A NWY")
    with pytest.raises(api.IllegalOrder, match="own"):
        api.parse_order(api.prepare(variant, where), "ENGLAND", "Build A LVP")
    outcome = api.adjudicate(api.prepare(variant, where), {"FRANCE": [Build("FRANCE", UnitKind.ARMY, "LVP")]})
    assert result_of(outcome, "A LVP B").result == "void"


def test_missing_removals_follow_civil_disorder(variant: Variant) -> None:
    where = position(
        variant,
        "W1901A",
        {"FRANCE": ["A PAR", "A PIC", "F LYO", "A BUR"]},
        centers={"FRANCE": ["PAR", "BRE"]},
    )
    assert api.requirements(api.prepare(variant, where))["FRANCE"].removals == 2
    outcome = play(variant, where, {"FRANCE": ["Remove A PIC"]})
    assert result_of(outcome, "A PIC D").result == "removes"
    forced = result_of(outcome, "F LYO D")
    assert forced.result == "removes" and forced.reason == "civil disorder"
    assert board(outcome) == {"FRANCE A PAR", "FRANCE A BUR"}


def test_civil_disorder_distance_and_tie_breaks(variant: Variant) -> None:
    tables = tables_for(variant)
    homes = {"MOS", "STP", "WAR"}
    assert distance_home(tables, Unit("SWE", UnitKind.ARMY, "RUSSIA"), homes) == 2
    assert distance_home(tables, Unit("BER", UnitKind.FLEET, "RUSSIA"), homes) == 3  # fleets keep to water
    assert distance_home(tables, Unit("GRE", UnitKind.ARMY, "ITALY"), {"NAP"}) == 2  # armies count across sea
    units = [Unit("BOH", UnitKind.ARMY, "RUSSIA"), Unit("SKA", UnitKind.FLEET, "RUSSIA"), Unit("NTH", UnitKind.FLEET, "RUSSIA")]
    # All two moves from home: fleets first, then by province name (North Sea before Skagerrak).
    assert disorder_removals(tables, units, 1) == (units[2],)
    assert disorder_removals(tables, units, 2) == (units[2], units[1])
    with pytest.raises(ValueError, match="one power"):
        disorder_removals(tables, [units[0], Unit("NTH", UnitKind.FLEET, "ENGLAND")], 1)


def test_civil_disorder_measures_to_lost_home_centres_too(variant: Variant) -> None:
    """Russia has lost SEV and MOS: A ARM is next to SEV, but 3 moves from the homes it still owns."""
    where = position(
        variant,
        "W1901A",
        {"RUSSIA": ["A ARM", "A BOH", "A LVN"]},
        centers={"RUSSIA": ["STP", "WAR"], "TURKEY": ["SEV", "MOS"]},
    )
    assert api.requirements(api.prepare(variant, where))["RUSSIA"].removals == 1
    outcome = play(variant, where, {})
    forced = result_of(outcome, "A BOH D")  # two moves from WAR; A ARM one from SEV, A LVN one from STP
    assert forced.result == "removes" and forced.reason == "civil disorder"
    assert board(outcome) == {"RUSSIA A ARM", "RUSSIA A LVN"}


def test_civil_disorder_fleet_distance_is_by_water_to_any_home(variant: Variant) -> None:
    tables = tables_for(variant)
    # Russia owns MOS, STP, WAR but not SEV: F BLA is one fleet move from SEV, A BOH two army moves from WAR.
    units = [Unit("BLA", UnitKind.FLEET, "RUSSIA"), Unit("PRU", UnitKind.ARMY, "RUSSIA"), Unit("BOH", UnitKind.ARMY, "RUSSIA")]
    assert distance_home(tables, units[0], {"SEV"}) == 1
    assert disorder_removals(tables, units, 1) == (units[2],)
    # From Berlin a fleet counts only water (BAL, BOT, STP/SC); an army goes overland (SIL, WAR).
    assert distance_home(tables, Unit("BER", UnitKind.FLEET, "RUSSIA"), tables.homes["RUSSIA"]) == 3
    assert distance_home(tables, Unit("BER", UnitKind.ARMY, "RUSSIA"), tables.homes["RUSSIA"]) == 2


def test_a_winner_at_the_victory_count(variant: Variant) -> None:
    owned = ["BRE", "MAR", "PAR", "SPA", "POR", "HOL", "KIE", "BER", "MUN", "DEN", "SWE", "NWY", "LON", "EDI", "LVP", "VEN", "ROM"]
    assert len(owned) == 17 == variant.victory_centers - 1
    where = position(variant, "F1905M", {"FRANCE": ["A BUR"]}, centers={"FRANCE": owned})
    outcome = play(variant, where, {"FRANCE": ["A BUR - BEL"]})
    assert outcome.winner == "FRANCE"
    assert len(outcome.position.centers["FRANCE"]) == 18
    quiet = play(variant, where, {})
    assert quiet.winner is None


def test_requirements_of_a_movement_phase(variant: Variant) -> None:
    start = api.initial_position(variant)
    needed = api.requirements(api.prepare(variant, start))
    assert sorted(needed) == sorted(p.name for p in variant.powers)
    assert len(needed["RUSSIA"].units) == 4
    assert all(r.phase_kind is PhaseKind.MOVEMENT for r in needed.values())


def test_canonical_adjustment_and_retreat_texts_parse(variant: Variant) -> None:
    winter = position(
        variant,
        "W1901A",
        {"ENGLAND": ["F NTH"], "FRANCE": ["A PAR", "A PIC"]},
        centers={"ENGLAND": ["LON", "EDI"], "FRANCE": ["PAR"]},
    )
    assert api.parse_order(api.prepare(variant, winter), "ENGLAND", "F LON B") == Build("ENGLAND", UnitKind.FLEET, "LON")
    assert api.parse_order(api.prepare(variant, winter), "ENGLAND", "WAIVE").canonical() == "WAIVE"
    assert api.parse_order(api.prepare(variant, winter), "FRANCE", "A PIC D").canonical() == "A PIC D"
    with pytest.raises(api.IllegalOrder):
        api.parse_order(api.prepare(variant, winter), "FRANCE", "A PAR B")
    outcome = play(variant, winter, {"ENGLAND": ["F LON B", "WAIVE"], "FRANCE": ["A PIC D"]})
    assert board(outcome) == {"ENGLAND F NTH", "ENGLAND F LON", "FRANCE A PAR"}
    where = _retreat_position(variant)
    assert api.parse_order(api.prepare(variant, where), "AUSTRIA", "A BUD R RUM").canonical() == "A BUD R RUM"
    assert api.parse_order(api.prepare(variant, where), "AUSTRIA", "A BUD D").canonical() == "A BUD D"
    with pytest.raises(api.IllegalOrder):
        api.parse_order(api.prepare(variant, where), "TURKEY", "A BUD R RUM")
