"""Western World 901's special rules, DATC style: a neutral army in each neutral centre
(it holds, no one orders it, it is disbanded when dislodged, and it comes back after a
Fall while its centre is empty and untaken), builds in any owned centre, the split
coasts; and the neutral armies as DAIDE shows them."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from adjudicator.types import NEUTRAL
from adjudicator.tables import tables_for
from daide import render
from daide.messages import from_text
from daide.orders import read_order
from daide.tokens import TokenTable
from tests.adjudicator.enginehelp import board, parse_errors, play, position, result_of


@pytest.fixture(scope="module")
def ww():
    return maps.load("western_world_901")


def test_opening_position(ww):
    start = api.initial_position(ww)
    assert str(start.phase) == "S901M"
    neutral = sorted(u.location for u in start.units if u.power == NEUTRAL)
    assert len(neutral) == 28 and set(neutral) == ww.neutral_centres
    assert all(u.kind.value == "A" for u in start.units if u.power == NEUTRAL)
    assert NEUTRAL not in start.centers and len(start.units) == 28 + 36
    assert NEUTRAL not in api.requirements(api.prepare(ww, start))  # no one orders them


def test_no_one_orders_a_neutral_army(ww):
    where = position(ww, "S901M", {NEUTRAL: ["A PEC"], "KHAZARIA": ["A TAM"]})
    assert parse_errors(ww, where, NEUTRAL, ["A PEC - CRN"])
    outcome = play(ww, where, {"KHAZARIA": ["A TAM - PEC"]})
    assert result_of(outcome, "A TAM - PEC").result == "bounce"  # the army holds: one against one
    assert f"{NEUTRAL} A PEC" in board(outcome)


def test_a_dislodged_neutral_army_is_disbanded_and_its_centre_taken(ww):
    where = position(ww, "F901M", {NEUTRAL: ["A PEC"], "KHAZARIA": ["A TAM", "A SEV"]},
                     {"KHAZARIA": ["ATI", "BNJ", "SAK", "TAM"]})
    outcome = play(ww, where, {"KHAZARIA": ["A TAM - PEC", "A SEV S A TAM - PEC"]})
    assert [d.unit.power for d in outcome.dislodged] == [NEUTRAL] and not outcome.dislodged[0].retreats
    assert outcome.position.phase.kind.value != "R"  # no retreat phase for it
    assert "KHAZARIA A PEC" in board(outcome) and "PEC" in outcome.position.centers["KHAZARIA"]


def test_a_neutral_army_comes_back_while_its_centre_is_untaken(ww):
    emptied = position(ww, "F901M", {"BYZANTIUM": ["F CRN"]}, {"BYZANTIUM": ["ATT", "CON", "CRN", "TAR"]})
    after = play(ww, emptied, {"BYZANTIUM": ["F CRN - EAS"]}).position
    assert f"{NEUTRAL} A PEC" in {f"{u.power} {u}" for u in after.units}
    taken = position(ww, "F901M", {"BYZANTIUM": ["F CRN"]}, {"BYZANTIUM": ["ATT", "CON", "CRN", "TAR", "PEC"]})
    after = play(ww, taken, {"BYZANTIUM": ["F CRN - EAS"]}).position
    assert not any(u.province == "PEC" for u in after.units)  # owned by Byzantium, though empty
    spring = position(ww, "S902M", {"BYZANTIUM": ["F CRN"]}, {"BYZANTIUM": ["ATT", "CON", "CRN", "TAR"]})
    after = play(ww, spring, {"BYZANTIUM": ["F CRN - EAS"]}).position
    assert not any(u.province == "PEC" for u in after.units)  # only after a Fall


def test_builds_in_any_owned_centre(ww):
    where = position(ww, "W901A", {"KHAZARIA": ["A TAM"]}, {"KHAZARIA": ["ATI", "TAM", "PEC"]})
    outcome = play(ww, where, {"KHAZARIA": ["BUILD A PEC"]})
    assert result_of(outcome, "A PEC B").result == "builds"


def test_split_coasts(ww):
    assert {a for a, p in ww.provinces.items() if p.coasts} == {"JOR", "PEC", "ROM", "SAA", "VEL"}


def test_a_daide_build_in_any_owned_centre(ww):
    table = TokenTable.for_variant(ww)
    where = position(ww, "W901A", {"KHAZARIA": ["A TAM"]}, {"KHAZARIA": ["ATI", "TAM", "PEC"]})
    order = from_text(f"(({table.power_names['KHAZARIA']} AMY {table.province_names['PEC']}) BLD)")[0]
    assert read_order(table, tables_for(ww), where, "KHAZARIA", order).note == "MBV"


def test_daide_shows_the_neutral_armies_as_no_power_s(ww):
    table = TokenTable.for_variant(ww)
    units = render.now(table, api.initial_position(ww))[2:]
    assert sum(1 for u in units if u[0] == "UNO") == 28
