"""Supports written canonically are checked by set lookups (canonical_lines.plainly_legal, Tables.reach);
the verdicts and reasons must be those of the full legality check."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from adjudicator.legality import illegality
from adjudicator.notation import parse_order
from adjudicator.types import Phase, PhaseKind, Position, Season, Unit, UnitKind

VARIANT = maps.load("standard")
UNITS = (
    Unit("BUR", UnitKind.ARMY, "FRANCE"),
    Unit("MAR", UnitKind.ARMY, "FRANCE"),
    Unit("PAR", UnitKind.ARMY, "FRANCE"),
    Unit("SPA/SC", UnitKind.FLEET, "FRANCE"),
    Unit("MUN", UnitKind.ARMY, "GERMANY"),
)
POSITION = Position(Phase(1901, Season.SPRING, PhaseKind.MOVEMENT), UNITS, {"FRANCE": frozenset(), "GERMANY": frozenset()})


@pytest.mark.parametrize(
    "text, legal",
    [
        ("A PAR S A MAR - BUR", True),  # legal: PAR reaches BUR
        ("A BUR S A MUN", True),  # legal: support of another power's unit holding
        ("F SPA/SC S A MAR", True),  # legal: the fleet reaches MAR from the south coast
        ("A PAR S A MAR - GAS", True),  # legal: PAR reaches GAS
        ("A PAR S A MAR - SPA", False),  # illegal: PAR does not reach SPA
        ("A PAR S A PAR - BUR", False),  # illegal: a unit cannot support its own move
        ("A BUR S A MAR - BUR", False),  # illegal: support into its own province
        ("A MAR S A BUR - BUR", False),  # illegal: the supported unit would not move
        ("F SPA/SC S A PAR - GAS", False),  # illegal: the south coast does not reach GAS
        ("A MUN S A BUR", False),  # illegal for FRANCE: not its unit
    ],
)
def test_a_canonical_support_gets_the_full_checks_verdict(text: str, legal: bool) -> None:
    board = api.prepare(VARIANT, POSITION)
    parsed = api.parse_orders(board, "FRANCE", [text])
    # The same order from the lenient parser (lower case misses the fast path), fully checked.
    understood = parse_order(VARIANT, POSITION, "FRANCE", text.lower(), board.units)
    reason = illegality(board.tables, POSITION, "FRANCE", understood, board.units, board.fleet_seas)
    assert (reason is None) == legal
    if legal:
        assert parsed.orders == (understood,) and parsed.errors == ()
    else:
        assert parsed.orders == () and parsed.errors == ((text, reason),)
