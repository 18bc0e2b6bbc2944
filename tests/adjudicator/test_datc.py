"""Every case of the DATC through the engine facade: version 2.4 (jDip format,
shared/datc/datc_v2.4_06.txt) under the default rules, version 3.0 (the same format,
tests/adjudicator/data/datc_v3.0_06.txt) under rule DATC_3.

The cases are read from the file at collection time.  Each case builds the
position it describes, parses its orders with ``api.parse_order`` (orders the
parser or legality refuses are left out, exactly as a judge would leave them
out: the unit holds / disbands), adjudicates with ``api.adjudicate`` under the
DATC's preferred choices, and compares the board afterwards (and the dislodged
units that may retreat) with the case's POSTSTATE.

Retreat-phase cases give the previous movement's results (PRESTATE_RESULTS);
the retreat options are derived from them with ``retreats.retreat_options``:
the attacker's origin is excluded unless it came by convoy, and a province left
empty with two or more failed moves into it was a standoff.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

import maps
from adjudicator import api
from adjudicator.mapdata import normalise_name
from adjudicator.retreats import retreat_options
from adjudicator.tables import tables_for
from adjudicator.types import Dislodged, Phase, PhaseKind, Position, Season, Unit, UnitKind, Variant, province_of
from tests.adjudicator.datc_reader import DatcCase, read_cases
from tests.fixtures.shared import shared_path

# The DATC cases as data: the project's shared copy (shared/datc) when a folder above this
# checkout has it, else the byte-identical copy kept with the tests so a lone clone runs them.
_SHARED_DATC = shared_path("datc", "datc_v2.4_06.txt")
_KEPT_DATC = Path(__file__).resolve().parent / "data" / "datc_v2.4_06.txt"
DATC_FILE = _SHARED_DATC or _KEPT_DATC
# DATC 3.0: the cases it keeps from 2.4, its new ones, 6.G.8 and 6.J as 3.0 prefers them.
DATC_3_FILE = Path(__file__).resolve().parent / "data" / "datc_v3.0_06.txt"

# Each edition's cases and the rules its preferred outcomes need.
EDITIONS: dict[str, tuple[Path, frozenset[str]]] = {
    "2.4": (DATC_FILE, frozenset()),
    "3.0": (DATC_3_FILE, frozenset({"DATC_3"})),
}

# Cases whose stated expectation we believe is wrong: (edition, id) -> reason.
EXPECTED_WRONG: dict[tuple[str, str], str] = {}

_PHASES = {
    "Spring 1901, Movement": Phase(1901, Season.SPRING, PhaseKind.MOVEMENT),
    "Fall 1901, Movement": Phase(1901, Season.FALL, PhaseKind.MOVEMENT),
    "Spring 1901, Retreat": Phase(1901, Season.SPRING, PhaseKind.RETREAT),
    "Fall 1901, Retreat": Phase(1901, Season.FALL, PhaseKind.RETREAT),
    "Fall 1901, Adjustment": Phase(1901, Season.WINTER, PhaseKind.ADJUSTMENT),
}


def _cases(edition: str) -> list[DatcCase]:
    path = EDITIONS[edition][0]
    return read_cases(path) if path.exists() else []


CASES = {edition: _cases(edition) for edition in EDITIONS}


@pytest.fixture(scope="module")
def variant() -> Variant:
    return maps.load("standard")


def _power(variant: Variant, name: str) -> str:
    names = [p.name for p in variant.powers]
    upper = name.upper()
    if upper in names:
        return upper
    close = difflib.get_close_matches(upper, names, n=1, cutoff=0.7)  # the file has "Germnay"
    assert close, f"unknown power {name!r} in the DATC file"
    return close[0]


def _location(variant: Variant, text: str) -> str:
    name, _, coast = text.partition("/")
    province = variant.aliases.get(normalise_name(name))
    if province is None:
        province = name.upper()
    assert province in variant.provinces, f"unknown province {text!r}"
    return f"{province}/{coast.upper()}" if coast else province


def _unit(variant: Variant, power: str, text: str) -> Unit:
    kind, where = text.split(None, 1)
    return Unit(_location(variant, where.split()[0]), UnitKind(kind.upper()), _power(variant, power))


def _units(variant: Variant, case: DatcCase, section: str) -> frozenset[Unit]:
    return frozenset(_unit(variant, power, text) for power, text in case.entries(section))


def _key(units: frozenset[Unit] | tuple[Unit, ...]) -> list[str]:
    return sorted(f"{u.power} {u}" for u in units)


def _dislodged(variant: Variant, case: DatcCase, board: frozenset[Unit]) -> tuple[Dislodged, ...]:
    tables = tables_for(variant)
    occupied = {u.province for u in board}
    failed_into: dict[str, int] = {}
    attacks: dict[str, tuple[str, bool]] = {}  # province -> (attacker origin, came by convoy)
    for success, _power_name, text in case.results():
        words = text.replace("-", " - ").split()
        if len(words) < 4 or words[0].upper() not in ("A", "F") or words[2] != "-":
            continue  # holds, supports and convoys neither attack nor stand off
        origin = province_of(_location(variant, words[1]))
        target = province_of(_location(variant, words[words.index("-") + 1]))
        if success:
            by_convoy = "convoy" in text.lower() or (
                words[0].upper() == "A" and target not in tables.army_adj[origin]
            )
            attacks[target] = (origin, by_convoy)
        else:
            failed_into[target] = failed_into.get(target, 0) + 1
    standoffs = {p for p, count in failed_into.items() if count >= 2 and p not in occupied}
    entries = []
    for unit in sorted(_units(variant, case, "PRESTATE_DISLODGED")):
        origin, by_convoy = attacks.get(unit.province, (None, False))
        excluded = set(standoffs)
        if origin is not None and not by_convoy:
            excluded.add(origin)
        entries.append(Dislodged(unit, origin, retreat_options(tables, unit, occupied, excluded)))
    return tuple(entries)


def _position(variant: Variant, case: DatcCase) -> Position:
    phase = _PHASES[case.phase]
    board = _units(variant, case, "PRESTATE")
    centers: dict[str, set[str]] = {}
    for power, text in case.entries("PRESTATE_SUPPLYCENTER_OWNERS"):
        centers.setdefault(_power(variant, power), set()).add(_unit(variant, power, text).province)
    dislodged = _dislodged(variant, case, board) if phase.kind is PhaseKind.RETREAT else ()
    return Position(phase, tuple(sorted(board)), {p: frozenset(c) for p, c in centers.items()}, dislodged)


def _parse(variant: Variant, position: Position, case: DatcCase) -> tuple[dict[str, list], list[str]]:
    orders: dict[str, list] = {}
    refused: list[str] = []
    for power_name, text in case.entries("ORDERS"):
        power = _power(variant, power_name)
        try:
            orders.setdefault(power, []).append(api.parse_order(api.prepare(variant, position), power, text))
        except (api.OrderSyntaxError, api.IllegalOrder) as problem:
            refused.append(f"{power}: {text} -> {problem.reason}")
    return orders, refused


def _params() -> list:
    params = []
    for edition, cases in CASES.items():
        if not cases:
            reason = f"DATC {edition} file not found at {EDITIONS[edition][0]}"
            params.append(pytest.param(edition, None, marks=pytest.mark.skip(reason=reason)))
        for case in cases:
            marks = []
            if (edition, case.case_id) in EXPECTED_WRONG:
                marks.append(pytest.mark.xfail(reason=EXPECTED_WRONG[edition, case.case_id], strict=True))
            params.append(pytest.param(edition, case, id=f"{edition}-{case.case_id}", marks=marks))
    return params


@pytest.mark.parametrize(("edition", "count"), [("2.4", 167), ("3.0", 172)])
def test_the_datc_files_have_all_their_cases(edition: str, count: int) -> None:
    cases = CASES[edition]
    if not cases:
        pytest.skip(f"DATC {edition} file not found at {EDITIONS[edition][0]}")
    assert len(cases) == count
    assert len({c.case_id for c in cases}) == count


def test_datc_3_adds_its_new_cases_and_drops_no_case_of_2_4() -> None:
    if not (CASES["2.4"] and CASES["3.0"]):
        pytest.skip("a DATC file is missing")
    old = {c.case_id for c in CASES["2.4"]} - {"6.G.11.mod"}  # a jDip addition, not a DATC case
    new = {c.case_id for c in CASES["3.0"]}
    assert new - old == {"6.B.15", "6.C.8", "6.C.9", "6.F.25", "6.G.19", "6.G.20"}
    assert old <= new


def _outcome(variant: Variant, edition: str, case: DatcCase, rules: frozenset[str]) -> tuple[Position, api.Adjudication]:
    position = _position(variant, case)
    orders, _ = _parse(variant, position, case)
    return position, api.adjudicate(api.prepare(variant, position), orders, rules)


@pytest.mark.parametrize(("edition", "case"), _params())
def test_datc_case(variant: Variant, edition: str, case: DatcCase) -> None:
    position = _position(variant, case)
    orders, refused = _parse(variant, position, case)
    outcome = api.adjudicate(api.prepare(variant, position), orders, EDITIONS[edition][1])

    expected = _units(variant, case, "PRESTATE" if case.poststate_same else "POSTSTATE")
    context = f"DATC {edition} case {case.case_id} (line {case.line}); refused orders: {refused}; results: {outcome.results}"
    assert _key(outcome.position.units) == _key(expected), context

    if position.phase.kind is PhaseKind.MOVEMENT:
        may_retreat = frozenset(d.unit for d in outcome.dislodged if d.retreats)
        assert _key(may_retreat) == _key(_units(variant, case, "POSTSTATE_DISLODGED")), context
    else:
        assert outcome.position.dislodged == (), context


# The 3.0 cases each DATC_3 rule is needed for: without it (the 2.4 preference, the
# DPjudge's, still selectable) exactly these come out otherwise.
NEEDS: dict[str, set[str]] = {
    "CONVOY_NO_FALLBACK": {"6.G.8"},
    "CONVOY_NEEDED_ONLY": {"6.G.19"},
    "CD_REMOVE_2023": {"6.J.3", "6.J.6", "6.J.10", "6.J.11"},
}


@pytest.mark.parametrize("rule", sorted(NEEDS))
def test_each_datc_3_rule_decides_the_cases_it_is_for(variant: Variant, rule: str) -> None:
    if not CASES["3.0"]:
        pytest.skip("no DATC 3.0 file")
    without = frozenset(NEEDS) - {rule}
    failing = set()
    for case in CASES["3.0"]:
        _, outcome = _outcome(variant, "3.0", case, without)
        if _key(outcome.position.units) != _key(_units(variant, case, "PRESTATE" if case.poststate_same else "POSTSTATE")):
            failing.add(case.case_id)
    assert failing == NEEDS[rule]


def test_kept_copy_of_the_datc_file_matches_the_shared_one() -> None:
    if _SHARED_DATC is None:  # a lone clone: CI lays shared/ beside its clone, so it compares there
        pytest.skip("no shared/datc/datc_v2.4_06.txt above this checkout to compare with")
    assert _KEPT_DATC.read_bytes() == _SHARED_DATC.read_bytes()
