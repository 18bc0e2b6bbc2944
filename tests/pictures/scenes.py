"""Phases for the picture tests: real adjudications covering every kind of order."""

from __future__ import annotations

from typing import Any

from adjudicator import api
from adjudicator.jsonio import position_from_json
from adjudicator.results import VOID, Adjudication, OrderResult
from adjudicator.types import Variant
from pictures.scene import Scene, scene_after

# A spring movement phase with a move, a bounce, supports (one cut), a convoy and a move by
# convoy, a unit dislodged, a hold and a void order.
MOVEMENT = {
    "phase": "S1901M",
    "units": {
        "ENGLAND": ["F NTH", "A YOR", "F LON"],
        "FRANCE": ["A PAR", "A MAR", "F BRE"],
        "GERMANY": ["A BUR", "A MUN", "A RUH", "F KIE"],
        "AUSTRIA": ["A TYR"],
        "ITALY": ["A VEN"],
    },
    "centers": {"ENGLAND": ["LON", "EDI", "LVP"], "FRANCE": ["PAR", "MAR", "BRE"], "GERMANY": ["MUN", "KIE", "BER"],
                "AUSTRIA": ["VIE"], "ITALY": ["VEN"]},
    "orders": {
        "ENGLAND": ["A YOR - BEL VIA CONVOY", "F NTH C A YOR - BEL", "F LON S F NTH"],
        "FRANCE": ["A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - ENG"],
        "GERMANY": ["A BUR H", "A MUN S A BUR", "A RUH - HOL", "F KIE - HOL"],
        "AUSTRIA": ["A TYR - MUN"],
        "ITALY": ["A VEN - MOS"],
    },
}

# A retreat phase: one dislodged unit retreats, the other disbands.
RETREAT = {
    "phase": "F1901R",
    "units": {"FRANCE": ["A BUR", "A MAR"], "ITALY": ["A TYR"], "GERMANY": ["A BER"]},
    "centers": {"FRANCE": ["PAR", "MAR", "BRE"], "GERMANY": ["MUN", "KIE", "BER"], "ITALY": ["VEN", "ROM", "NAP"]},
    "dislodged": {"GERMANY": [{"unit": "A MUN", "retreats": ["KIE", "SIL"], "attacker_from": "BUR"}],
                  "ITALY": [{"unit": "A PIE", "retreats": [], "attacker_from": "MAR"}]},
    "orders": {"GERMANY": ["A MUN R SIL"], "ITALY": ["A PIE D"]},
}

# A winter: France builds (it took Munich), Germany removes, England waives.
ADJUSTMENT = {
    "phase": "W1901A",
    "units": {"FRANCE": ["A MUN", "A MAR"], "GERMANY": ["A KIE", "A BER", "F BAL"], "ENGLAND": ["F NTH"]},
    "centers": {"FRANCE": ["PAR", "MAR", "BRE", "MUN"], "GERMANY": ["KIE", "BER"], "ENGLAND": ["LON", "EDI"]},
    "orders": {"FRANCE": ["BUILD A PAR", "BUILD F BRE"], "GERMANY": ["REMOVE F BAL"], "ENGLAND": ["WAIVE"]},
}


def adjudicated(variant: Variant, doc: dict[str, Any]) -> tuple[Scene, Adjudication]:
    """The scene after adjudicating ``doc`` on ``variant`` (lines the parser refuses are
    reported void, as ``judge adjudicate`` does), and the Adjudication."""
    position = position_from_json(variant, doc)
    board = api.prepare(variant, position)
    parsed = {power: api.parse_orders(board, power, lines) for power, lines in doc["orders"].items()}
    outcome = api.adjudicate(board, parsed)
    void = [OrderResult(power, line, VOID, reason) for power, p in parsed.items() for line, reason in p.errors]
    results = [*outcome.results, *void]
    return scene_after(variant, doc["phase"], outcome.position, results), outcome
