"""The strategic core inside a negotiator's agreements (bot/agreements.py): options
narrowed, values changed, promises kept, and an agreement broken only when it clearly pays."""

from __future__ import annotations

from types import MappingProxyType

import maps
from adjudicator import api
from adjudicator.types import Phase, PhaseKind, Position, Season, Unit, UnitKind, province_of
from bot.agreements import Agreements
from bot.options import HOLD, unit_options
from bot.player import Budget
from bot.search import StrategicBot
from bot.values import value_map

VARIANT = maps.load("standard")
BOARD = api.prepare(VARIANT, api.initial_position(VARIANT))
BUDGET = Budget(iterations=60, seconds=None)


def _targets(options) -> dict[str, set[str]]:  # type: ignore[no-untyped-def]
    return {o.province: {province_of(i[1]) for i in o.intents if i[0] in ("M", "V")} for o in options}


def test_no_move_into_a_dmz_an_allys_unit_or_centre_or_a_forbidden_move() -> None:
    free = unit_options(BOARD, "AUSTRIA")
    assert "VEN" in _targets(free)["TRI"] and "GAL" in _targets(free)["VIE"] and "SER" in _targets(free)["BUD"]
    narrowed = Agreements(allies=frozenset({"ITALY"}), dmz=frozenset({"GAL"}),
                          forbidden=frozenset({("BUD", "SER")})).restrict(BOARD, free)
    targets = _targets(narrowed)
    assert "VEN" not in targets["TRI"] and "GAL" not in targets["VIE"] and "GAL" not in targets["BUD"]
    assert "SER" not in targets["BUD"] and "RUM" in targets["BUD"]  # only what was agreed is gone


def test_a_promise_is_the_units_only_option_and_a_unit_in_a_dmz_leaves() -> None:
    options = Agreements(promised=MappingProxyType({"BRE": ("M", "MAO")}), dmz=frozenset({"PAR"})).restrict(
        BOARD, unit_options(BOARD, "FRANCE"))
    by_province = {o.province: o.intents for o in options}
    assert by_province["BRE"] == (("M", "MAO"),)
    assert by_province["PAR"] and HOLD not in by_province["PAR"]
    assert all(i[0] in ("M", "V") for i in by_province["PAR"])


def test_allies_centres_are_worth_nothing_and_enemies_more() -> None:
    plain = value_map(BOARD, "GERMANY")
    changed = Agreements(allies=frozenset({"FRANCE"}), enemies=frozenset({"RUSSIA"})).revalue(BOARD, plain)
    assert plain.values[("A", "PAR")] > 0 and changed.values[("A", "PAR")] == 0
    assert changed.values[("A", "WAR")] == plain.values[("A", "WAR")] * 1.5
    assert changed.values[("A", "HOL")] == plain.values[("A", "HOL")]


def test_the_search_keeps_its_agreements_unless_breaking_clearly_pays() -> None:
    agreements = Agreements(dmz=frozenset({"BUR"}), promised=MappingProxyType({"BRE": ("M", "MAO")}))
    kept, report = StrategicBot(seed=3, budget=BUDGET, break_margin=float("inf")).search(BOARD, "FRANCE", agreements)
    texts = {order.canonical() for order in kept}
    assert "F BRE - MAO" in texts and not any(t.endswith("- BUR") for t in texts) and not report.broke
    again, _ = StrategicBot(seed=3, budget=BUDGET, break_margin=float("inf")).search(BOARD, "FRANCE", agreements)
    assert again == kept  # deterministic for its seed
    broken, report = StrategicBot(seed=3, budget=BUDGET, break_margin=float("-inf")).search(BOARD, "FRANCE", agreements)
    assert report.broke
    plain, report = StrategicBot(seed=3, budget=BUDGET).search(BOARD, "FRANCE")
    assert not report.broke


def test_an_alliance_keeps_the_core_off_its_allys_centres_and_sends_it_at_the_enemy() -> None:
    """Fall 1901: Austria's army in Tyrolia next to two empty centres, Italy's Venice and
    Germany's Munich; allied with one against the other, it takes the enemy's."""
    units = (Unit("TYR", UnitKind.ARMY, "AUSTRIA"), Unit("BUD", UnitKind.ARMY, "AUSTRIA"),
             Unit("TYS", UnitKind.FLEET, "ITALY"), Unit("TUN", UnitKind.ARMY, "ITALY"),
             Unit("HOL", UnitKind.ARMY, "GERMANY"), Unit("DEN", UnitKind.FLEET, "GERMANY"))
    centres = {"AUSTRIA": {"VIE", "BUD", "TRI"}, "ITALY": {"VEN", "ROM", "NAP"}, "GERMANY": {"BER", "KIE", "MUN"}}
    board = api.prepare(VARIANT, Position(Phase(1901, Season.FALL, PhaseKind.MOVEMENT), tuple(sorted(units)), centres))
    bot = StrategicBot(seed=2, budget=BUDGET, break_margin=float("inf"))
    for ally, enemy, target in (("ITALY", "GERMANY", "MUN"), ("GERMANY", "ITALY", "VEN")):
        orders, _ = bot.search(board, "AUSTRIA", Agreements(allies=frozenset({ally}), enemies=frozenset({enemy})))
        texts = {order.canonical() for order in orders}
        assert f"A TYR - {target}" in texts, texts
        ally_centres = centres[ally]
        assert not [t for t in texts if " - " in t and t.split()[-1] in ally_centres], texts
        # it supports no unit of the enemy's (its supports name its own units only)
        assert not [t for t in texts if " S " in t and t.split(" S ")[1].split()[1] not in ("TYR", "BUD")], texts
