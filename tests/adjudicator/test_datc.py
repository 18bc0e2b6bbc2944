"""Every case of the DATC (jDip format, shared/datc/datc_v2.4_06.txt) through the engine facade.

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

# The DATC cases as data: the project's shared copy (../shared/datc) when this checkout sits
# beside it, else the byte-identical copy kept with the tests so a lone clone (CI) runs them.
_SHARED_DATC = Path(__file__).resolve().parents[2].parent / "shared" / "datc" / "datc_v2.4_06.txt"
_KEPT_DATC = Path(__file__).resolve().parent / "data" / "datc_v2.4_06.txt"
DATC_FILE = _SHARED_DATC if _SHARED_DATC.exists() else _KEPT_DATC

# Cases whose expectation needs a rule other than the defaults (none so far: the
# file follows the DATC's preferred Szykman rule throughout).
RULES_BY_CASE: dict[str, frozenset[str]] = {}

# Cases whose stated expectation we believe is wrong: id -> reason.
EXPECTED_WRONG: dict[str, str] = {}

_PHASES = {
    "Spring 1901, Movement": Phase(1901, Season.SPRING, PhaseKind.MOVEMENT),
    "Fall 1901, Movement": Phase(1901, Season.FALL, PhaseKind.MOVEMENT),
    "Spring 1901, Retreat": Phase(1901, Season.SPRING, PhaseKind.RETREAT),
    "Fall 1901, Retreat": Phase(1901, Season.FALL, PhaseKind.RETREAT),
    "Fall 1901, Adjustment": Phase(1901, Season.WINTER, PhaseKind.ADJUSTMENT),
}


def _cases() -> list[DatcCase]:
    return read_cases(DATC_FILE) if DATC_FILE.exists() else []


CASES = _cases()


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
    if not CASES:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"DATC file not found at {DATC_FILE}"))]
    params = []
    for case in CASES:
        marks = []
        if case.case_id in EXPECTED_WRONG:
            marks.append(pytest.mark.xfail(reason=EXPECTED_WRONG[case.case_id], strict=True))
        params.append(pytest.param(case, id=case.case_id, marks=marks))
    return params


def test_the_datc_file_has_all_its_cases() -> None:
    if not CASES:
        pytest.skip(f"DATC file not found at {DATC_FILE}")
    assert len(CASES) == 167
    assert len({c.case_id for c in CASES}) == 167


@pytest.mark.parametrize("case", _params())
def test_datc_case(variant: Variant, case: DatcCase) -> None:
    position = _position(variant, case)
    orders, refused = _parse(variant, position, case)
    rules = RULES_BY_CASE.get(case.case_id, frozenset())
    outcome = api.adjudicate(api.prepare(variant, position), orders, rules)

    expected = _units(variant, case, "PRESTATE" if case.poststate_same else "POSTSTATE")
    context = f"case {case.case_id} (line {case.line}); refused orders: {refused}; results: {outcome.results}"
    assert _key(outcome.position.units) == _key(expected), context

    if position.phase.kind is PhaseKind.MOVEMENT:
        may_retreat = frozenset(d.unit for d in outcome.dislodged if d.retreats)
        assert _key(may_retreat) == _key(_units(variant, case, "POSTSTATE_DISLODGED")), context
    else:
        assert outcome.position.dislodged == (), context


def test_kept_copy_of_the_datc_file_matches_the_shared_one() -> None:
    if not _SHARED_DATC.exists():
        pytest.skip(f"no shared DATC file at {_SHARED_DATC} to compare with")
    assert _KEPT_DATC.read_bytes() == _SHARED_DATC.read_bytes()
