"""Movement adjudication through the facade: rule options, result codes, void orders, retreat options."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from adjudicator.orders import Move
from adjudicator.types import PhaseKind, Unit, UnitKind, Variant
from tests.adjudicator.enginehelp import board, play, position, result_of


@pytest.fixture(scope="module")
def variant() -> Variant:
    return maps.load("standard")


SIMPLE_PARADOX = (
    {"ENGLAND": ["F LON", "F WAL"], "FRANCE": ["A BRE", "F ENG"]},
    {
        "ENGLAND": ["F LON S F WAL - ENG", "F WAL - ENG"],
        "FRANCE": ["A BRE - LON", "F ENG C A BRE - LON"],
    },
)

PANDINS_EXTENDED = (
    {"ENGLAND": ["F LON", "F WAL"], "FRANCE": ["A BRE", "F ENG", "F YOR"], "GERMANY": ["F NTH", "F BEL"]},
    {
        "ENGLAND": ["F LON S F WAL - ENG", "F WAL - ENG"],
        "FRANCE": ["A BRE - LON", "F ENG C A BRE - LON", "F YOR S A BRE - LON"],
        "GERMANY": ["F NTH S F BEL - ENG", "F BEL - ENG"],
    },
)

BETRAYAL = (
    {"ENGLAND": ["F NTH", "A LON", "F ENG"], "FRANCE": ["F BEL"], "GERMANY": ["F HEL", "F SKA"]},
    {
        "ENGLAND": ["F NTH C A LON - BEL", "A LON - BEL", "F ENG S A LON - BEL"],
        "FRANCE": ["F BEL S F NTH"],
        "GERMANY": ["F HEL S F SKA - NTH", "F SKA - NTH"],
    },
)

BELEAGUERED_CONVOY = (
    {"ENGLAND": ["F NTH", "A LON"], "FRANCE": ["F ENG", "F BEL"], "GERMANY": ["F SKA", "F DEN"]},
    {
        "ENGLAND": ["F NTH C A LON - HOL", "A LON - HOL"],
        "FRANCE": ["F ENG - NTH", "F BEL S F ENG - NTH"],
        "GERMANY": ["F SKA - NTH", "F DEN S F SKA - NTH"],
    },
)


def _spring(variant: Variant, units: dict[str, list[str]]):
    return position(variant, "S1901M", units)


def test_szykman_is_the_default_for_the_simple_paradox(variant: Variant) -> None:
    units, orders = SIMPLE_PARADOX
    outcome = play(variant, _spring(variant, units), orders)
    assert board(outcome) == {"ENGLAND F LON", "ENGLAND F ENG", "FRANCE A BRE"}
    assert result_of(outcome, "A BRE - LON").result == "no_convoy"
    assert result_of(outcome, "F ENG C A BRE - LON").result == "dislodged"
    assert result_of(outcome, "F LON S F WAL - ENG").result == "supports"
    explicit = play(variant, _spring(variant, units), orders, ["PARADOX_SZYKMAN"])
    assert board(explicit) == board(outcome)


def test_all_fail_rule_makes_every_unit_of_the_paradox_hold(variant: Variant) -> None:
    units, orders = SIMPLE_PARADOX
    outcome = play(variant, _spring(variant, units), orders, ["PARADOX_ALL_FAIL"])
    assert board(outcome) == {"ENGLAND F LON", "ENGLAND F WAL", "FRANCE A BRE", "FRANCE F ENG"}
    assert result_of(outcome, "F WAL - ENG").result == "bounce"
    assert outcome.dislodged == ()


def test_1982_dpjudge_rule_on_pandins_extended_paradox(variant: Variant) -> None:
    units, orders = PANDINS_EXTENDED
    szykman = play(variant, _spring(variant, units), orders)
    assert board(szykman) == {f"{p} {u}" for p, listed in units.items() for u in listed}
    # 1982 + DPjudge: the convoyed army does not cut London's support for the attack on the
    # convoying fleet's space, so the Channel stands off, the convoy arrives, London falls.
    dpjudge = play(variant, _spring(variant, units), orders, ["PARADOX_1982_DPJUDGE"])
    assert "FRANCE A LON" in board(dpjudge)
    assert "FRANCE F ENG" in board(dpjudge)
    assert [str(d.unit) for d in dpjudge.dislodged] == ["F LON"]
    assert result_of(dpjudge, "F WAL - ENG").result == "bounce"


def test_1982_dpjudge_support_survives_dislodgement_by_the_convoyed_army(variant: Variant) -> None:
    units, orders = BETRAYAL
    szykman = play(variant, _spring(variant, units), orders)
    assert "ENGLAND A LON" in board(szykman) and szykman.dislodged == ()
    dpjudge = play(variant, _spring(variant, units), orders, ["PARADOX_1982_DPJUDGE"])
    # Belgium is dislodged by the convoyed army, yet its support of the convoying fleet holds.
    assert "ENGLAND A BEL" in board(dpjudge)
    assert "ENGLAND F NTH" in board(dpjudge)
    assert [f"{d.unit.power} {d.unit}" for d in dpjudge.dislodged] == ["FRANCE F BEL"]
    assert result_of(dpjudge, "F SKA - NTH").result == "bounce"


def test_a_beleaguered_fleet_may_not_convoy_when_the_rule_is_on(variant: Variant) -> None:
    units, orders = BELEAGUERED_CONVOY
    default = play(variant, _spring(variant, units), orders)
    assert "ENGLAND A HOL" in board(default)
    assert result_of(default, "F NTH C A LON - HOL").result == "convoys"
    ruled = play(variant, _spring(variant, units), orders, ["NO_BELEAGUERED_CONVOY"])
    assert "ENGLAND A LON" in board(ruled) and "ENGLAND F NTH" in board(ruled)
    assert result_of(ruled, "A LON - HOL").result == "no_convoy"
    assert result_of(ruled, "F NTH C A LON - HOL").result == "no_convoy"


LONG_CONVOY = (
    {"ENGLAND": ["A LON", "F ENG", "F MAO", "F WES", "F IRI"], "FRANCE": ["F NAO"]},
    {
        "ENGLAND": ["A LON - TUN", "F ENG C A LON - TUN", "F MAO C A LON - TUN", "F WES C A LON - TUN",
                    "F IRI C A LON - TUN"],
        "FRANCE": ["F NAO C A LON - TUN"],
    },
)


def test_only_the_fleets_a_route_needs_convoy_under_convoy_needed_only(variant: Variant) -> None:
    # ENG-MAO-WES is the route; IRI lies beside it (ENG-IRI-MAO would skip nothing), NAO too.
    units, orders = LONG_CONVOY
    default = play(variant, _spring(variant, units), orders)
    ruled = play(variant, _spring(variant, units), orders, ["CONVOY_NEEDED_ONLY"])
    for outcome in (default, ruled):
        assert "ENGLAND A TUN" in board(outcome)
        assert {result_of(outcome, f"F {sea} C A LON - TUN").result for sea in ("ENG", "MAO", "WES")} == {"convoys"}
    assert result_of(default, "F IRI C A LON - TUN").result == "convoys"
    for idle in ("F IRI C A LON - TUN", "F NAO C A LON - TUN"):
        voided = result_of(ruled, idle)
        assert voided.result == "void" and voided.reason == "no convoy route of that army needs this fleet (rule CONVOY_NEEDED_ONLY)"


def test_datc_3_is_its_three_rules(variant: Variant) -> None:
    assert api.check_rules(["DATC_3", "PARADOX_ALL_FAIL"]) == {
        "CONVOY_NO_FALLBACK", "CONVOY_NEEDED_ONLY", "CD_REMOVE_2023", "PARADOX_ALL_FAIL"}
    units, orders = LONG_CONVOY
    together = play(variant, _spring(variant, units), orders, ["DATC_3"])
    apart = play(variant, _spring(variant, units), orders, ["CONVOY_NO_FALLBACK", "CONVOY_NEEDED_ONLY", "CD_REMOVE_2023"])
    assert together.results == apart.results and api.position_digest(together.position) == api.position_digest(apart.position)


def test_unknown_or_conflicting_rules_are_refused(variant: Variant) -> None:
    start = api.initial_position(variant)
    assert api.RULES == {"PARADOX_SZYKMAN", "PARADOX_1982_DPJUDGE", "PARADOX_ALL_FAIL", "NO_BELEAGUERED_CONVOY",
                         "CONVOY_NO_FALLBACK", "CONVOY_NEEDED_ONLY", "CD_REMOVE_2023", "DATC_3"}
    with pytest.raises(ValueError, match="NO_SUCH_RULE"):
        api.adjudicate(api.prepare(variant, start), {}, frozenset({"NO_SUCH_RULE"}))
    with pytest.raises(ValueError, match="at most one"):
        api.adjudicate(api.prepare(variant, start), {}, frozenset({"PARADOX_SZYKMAN", "PARADOX_ALL_FAIL"}))


def test_result_codes_of_a_supported_attack(variant: Variant) -> None:
    where = _spring(variant, {"AUSTRIA": ["F ADR", "A TRI", "A VIE"], "ITALY": ["A VEN", "A TYR"]})
    outcome = play(
        variant,
        where,
        {"AUSTRIA": ["F ADR S A TRI - VEN", "A TRI - VEN", "A VIE - TYR"], "ITALY": ["A VEN H", "A TYR S A VEN"]},
    )
    codes = {r.order: r.result for r in outcome.results}
    assert codes == {
        "F ADR S A TRI - VEN": "supports",
        "A TRI - VEN": "moves",
        "A VIE - TYR": "bounce",
        "A VEN H": "dislodged",
        "A TYR S A VEN": "cut",
    }
    assert [r.power for r in outcome.results] == sorted(r.power for r in outcome.results)


def test_unordered_units_hold_and_every_unit_gets_one_result(variant: Variant) -> None:
    start = api.initial_position(variant)
    outcome = play(variant, start, {"ENGLAND": ["F LON - NTH"]})
    assert len(outcome.results) == len(start.units)
    assert result_of(outcome, "F LON - NTH").result == "moves"
    assert result_of(outcome, "A PAR H").result == "holds"
    assert outcome.position.phase.kind is PhaseKind.MOVEMENT and str(outcome.position.phase) == "F1901M"


def test_an_illegal_order_given_directly_is_void_with_a_reason_and_the_unit_holds(variant: Variant) -> None:
    where = _spring(variant, {"ENGLAND": ["F NTH"], "FRANCE": ["A PIC"]})
    fleet = Unit("NTH", UnitKind.FLEET, "ENGLAND")
    outcome = api.adjudicate(api.prepare(variant, where), {"ENGLAND": [Move(fleet, "PIC")]})
    result = result_of(outcome, "F NTH - PIC")
    assert result.result == "void" and "PIC" in (result.reason or "")
    assert board(outcome) == {"ENGLAND F NTH", "FRANCE A PIC"}


def test_ordering_another_powers_unit_is_void_and_that_unit_holds(variant: Variant) -> None:
    where = _spring(variant, {"ENGLAND": ["F LON"]})
    fleet = Unit("LON", UnitKind.FLEET, "ENGLAND")
    outcome = api.adjudicate(api.prepare(variant, where), {"GERMANY": [Move(fleet, "NTH")]})
    by_power = {r.power: r for r in outcome.results}
    assert by_power["GERMANY"].result == "void" and "ENGLAND" in (by_power["GERMANY"].reason or "")
    assert by_power["ENGLAND"] == api.OrderResult("ENGLAND", "F LON H", "holds", None)
    assert board(outcome) == {"ENGLAND F LON"}


def test_a_support_that_does_not_match_is_void(variant: Variant) -> None:
    where = _spring(variant, {"GERMANY": ["A MUN", "A BER"]})
    outcome = play(variant, where, {"GERMANY": ["A MUN S A BER - SIL", "A BER H"]})
    result = result_of(outcome, "A MUN S A BER - SIL")
    assert result.result == "void" and result.reason


def test_dislodged_wins_over_void(variant: Variant) -> None:
    where = _spring(variant, {"ENGLAND": ["F NTH"], "GERMANY": ["F HEL", "F DEN"]})
    fleet = Unit("NTH", UnitKind.FLEET, "ENGLAND")
    helper = api.parse_orders(api.prepare(variant, where), "GERMANY", ["F HEL - NTH", "F DEN S F HEL - NTH"]).orders
    outcome = api.adjudicate(api.prepare(variant, where), {"ENGLAND": [Move(fleet, "PIC")], "GERMANY": helper})
    result = result_of(outcome, "F NTH - PIC")
    assert result.result == "dislodged" and "PIC" in (result.reason or "")


def test_the_last_order_for_a_unit_counts(variant: Variant) -> None:
    outcome = play(variant, api.initial_position(variant), {"ENGLAND": ["F LON - NTH", "F LON - ENG"]})
    assert "ENGLAND F ENG" in board(outcome)
    assert [r.order for r in outcome.results if r.power == "ENGLAND" and "LON" in r.order] == ["F LON - ENG"]


def test_a_convoy_that_carries_its_army(variant: Variant) -> None:
    where = _spring(variant, {"ENGLAND": ["F NTH", "A LON"]})
    outcome = play(variant, where, {"ENGLAND": ["F NTH C A LON - NWY", "A LON - NWY"]})
    assert result_of(outcome, "F NTH C A LON - NWY").result == "convoys"
    assert result_of(outcome, "A LON - NWY").result == "moves"
    assert board(outcome) == {"ENGLAND F NTH", "ENGLAND A NWY"}


def test_retreat_options_exclude_attacker_origin_occupied_and_standoff(variant: Variant) -> None:
    where = _spring(
        variant,
        {"AUSTRIA": ["A VIE"], "ITALY": ["A TRI", "A TYR"], "GERMANY": ["A MUN"], "RUSSIA": ["A GAL"]},
    )
    outcome = play(
        variant,
        where,
        {
            "ITALY": ["A TRI - VIE", "A TYR S A TRI - VIE"],
            "GERMANY": ["A MUN - BOH"],
            "RUSSIA": ["A GAL - BOH"],
        },
    )
    assert outcome.contested == ("BOH",)
    [entry] = outcome.dislodged
    assert (str(entry.unit), entry.attacker_from, entry.retreats) == ("A VIE", "TRI", ("BUD",))
    assert str(outcome.position.phase) == "S1901R"
    assert outcome.position.dislodged == (entry,)
    needed = api.requirements(api.prepare(variant, outcome.position))
    assert list(needed) == ["AUSTRIA"] and needed["AUSTRIA"].units == (entry.unit,)


def test_a_unit_dislodged_by_convoy_may_retreat_to_the_attackers_origin(variant: Variant) -> None:
    where = _spring(variant, {"FRANCE": ["A GAS", "A BUR", "F MAO", "F WES", "F LYO"], "ITALY": ["A MAR"]})
    outcome = play(
        variant,
        where,
        {
            "FRANCE": [
                "A GAS - MAR VIA CONVOY",
                "A BUR S A GAS - MAR",
                "F MAO C A GAS - MAR",
                "F WES C A GAS - MAR",
                "F LYO C A GAS - MAR",
            ]
        },
    )
    [entry] = outcome.dislodged
    assert entry.attacker_from == "GAS" and "GAS" in entry.retreats


def test_a_unit_without_retreats_is_destroyed_and_no_retreat_phase_follows(variant: Variant) -> None:
    where = _spring(variant, {"TURKEY": ["A GRE", "A BUL"], "AUSTRIA": ["A SER", "A ALB"]})
    outcome = play(variant, where, {"AUSTRIA": ["A SER S A ALB - GRE", "A ALB - GRE"]})
    [entry] = outcome.dislodged
    assert str(entry.unit) == "A GRE" and entry.retreats == ()
    assert str(outcome.position.phase) == "F1901M"
    assert "TURKEY A GRE" not in board(outcome) and "AUSTRIA A GRE" in board(outcome)


def test_position_digest_is_stable_and_tracks_the_board(variant: Variant) -> None:
    first = api.initial_position(variant)
    again = api.initial_position(variant)
    assert first is not again
    assert api.position_digest(first) == api.position_digest(again)
    assert len(api.position_digest(first)) == 64
    moved = play(variant, first, {"ENGLAND": ["F LON - NTH"]}).position
    assert api.position_digest(moved) != api.position_digest(first)


def test_parse_orders_reports_refused_lines_with_reasons(variant: Variant) -> None:
    start = api.initial_position(variant)
    parsed = api.parse_orders(api.prepare(variant, start), "ENGLAND", ["F LON - NTH", "", "A LVP - NTH", "F EDI - PIC"])
    assert [o.canonical() for o in parsed.orders] == ["F LON - NTH"]
    assert [line for line, _ in parsed.errors] == ["A LVP - NTH", "F EDI - PIC"]
    assert "sea" in parsed.errors[0][1]
    with pytest.raises(api.IllegalOrder) as refused:
        api.parse_order(api.prepare(variant, start), "GERMANY", "F LON - NTH")
    assert "ENGLAND" in refused.value.reason


def test_a_fleet_cannot_be_convoyed(variant: Variant) -> None:
    start = api.initial_position(variant)
    for text in ("F LON - NTH VIA CONVOY", "F LON - ENG - BRE"):
        with pytest.raises((api.IllegalOrder, api.OrderSyntaxError)):
            api.parse_order(api.prepare(variant, start), "ENGLAND", text)
    fleet = Unit("LON", UnitKind.FLEET, "ENGLAND")
    outcome = api.adjudicate(api.prepare(variant, start), {"ENGLAND": [Move(fleet, "NTH", via_convoy=True)]})
    assert result_of(outcome, "F LON - NTH VIA CONVOY").result == "void"
    assert "ENGLAND F LON" in board(outcome)


def test_a_unit_beaten_head_to_head_does_not_stop_a_third_move_into_the_province_emptied(variant: Variant) -> None:
    # Burgundy wins its head-to-head with Paris and leaves; Paris, beaten, prevents nothing,
    # so Munich's unsupported move into the emptied Burgundy succeeds.
    units = {"FRANCE": ["A PAR"], "GERMANY": ["A BUR", "A PIC", "A MUN"]}
    orders = {"FRANCE": ["A PAR - BUR"], "GERMANY": ["A BUR - PAR", "A PIC S A BUR - PAR", "A MUN - BUR"]}
    outcome = play(variant, _spring(variant, units), orders)
    assert result_of(outcome, "A MUN - BUR").result == "moves"
    assert result_of(outcome, "A BUR - PAR").result == "moves"
    assert [str(d.unit) for d in outcome.dislodged] == ["A PAR"]
    assert board(outcome) == {"GERMANY A PAR", "GERMANY A BUR", "GERMANY A PIC"}


def test_moves_along_a_chain_into_a_province_left_empty_all_succeed_and_a_blocked_chain_all_fails(variant: Variant) -> None:
    free = {"GERMANY": ["A KIE", "A BER", "A MUN"]}
    moved = play(variant, _spring(variant, free), {"GERMANY": ["A KIE - BER", "A BER - MUN", "A MUN - BOH"]})
    assert board(moved) == {"GERMANY A BER", "GERMANY A MUN", "GERMANY A BOH"}
    blocked = {"GERMANY": ["A KIE", "A BER", "A MUN"], "AUSTRIA": ["A BOH"]}
    held = play(variant, _spring(variant, blocked), {"GERMANY": ["A KIE - BER", "A BER - MUN", "A MUN - BOH"]})
    assert board(held) == {f"{p} {u}" for p, listed in blocked.items() for u in listed}
    assert {result_of(held, o).result for o in ("A KIE - BER", "A BER - MUN", "A MUN - BOH")} == {"bounce"}


def test_the_fleets_a_convoy_needs_are_those_on_chains_with_no_shortcut(variant: Variant, monkeypatch) -> None:
    from adjudicator import matching
    from adjudicator.tables import tables_for

    tables = tables_for(variant)
    fleets = [Unit(sea, UnitKind.FLEET, "ITALY") for sea in ("LYO", "WES")]
    assert matching._needed_seas(tables, fleets, "MAR", "SPA") == {"LYO"}  # DATC 3.0 6.G.19
    everywhere = [Unit(sea, UnitKind.FLEET, "ENGLAND") for sea in sorted(tables.sea)]
    needed = matching._needed_seas(tables, everywhere, "LON", "SYR")  # every sea holds a fleet
    assert {"ENG", "NTH", "EAS"} <= needed and "BAR" not in needed  # BAR: every chain through it has a shortcut
    monkeypatch.setattr(matching, "_NEEDED_SEARCH_STEPS", 5)  # past the bound every fleet counts as needed
    assert matching._needed_seas(tables, everywhere, "LON", "SYR") == {u.province for u in everywhere}
