"""Positions and results <-> the contract's JSON (adjudicator.jsonio)."""

from __future__ import annotations

import copy
import json

import pytest

import maps
from adjudicator import jsonio
from adjudicator.jsonio import ContractError, position_from_json, position_to_json
from adjudicator.results import Adjudication, OrderResult
from adjudicator.types import Dislodged, Phase, PhaseKind, Position, Unit, UnitKind

VARIANT = maps.load("standard")

RETREAT_DOC = {
    "map": "standard",
    "phase": "F1901R",
    "units": {"ENGLAND": ["F NTH", "F LON"], "RUSSIA": ["F STP/SC", "A MOS"], "FRANCE": ["A BUR"]},
    "centers": {"ENGLAND": ["LON", "EDI", "LVP"], "RUSSIA": ["STP", "MOS"]},
    "dislodged": {"GERMANY": [{"unit": "A BUR", "retreats": ["RUH", "MUN"], "attacker_from": "PAR"}]},
}


def test_reads_a_position():
    position = position_from_json(VARIANT, RETREAT_DOC)
    assert position.phase == Phase.parse("F1901R")
    assert position.phase.kind is PhaseKind.RETREAT
    assert Unit("STP/SC", UnitKind.FLEET, "RUSSIA") in position.units
    assert [u.province for u in position.units] == sorted(u.province for u in position.units)
    assert position.centers["RUSSIA"] == {"STP", "MOS"}
    assert position.dislodged == (Dislodged(Unit("BUR", UnitKind.ARMY, "GERMANY"), "PAR", ("MUN", "RUH")),)


def test_writes_canonical_json_and_round_trips():
    doc = position_to_json(position_from_json(VARIANT, RETREAT_DOC))
    assert doc == {
        "map": "standard",
        "phase": "F1901R",
        "units": {"ENGLAND": ["F LON", "F NTH"], "FRANCE": ["A BUR"], "RUSSIA": ["A MOS", "F STP/SC"]},
        "centers": {"ENGLAND": ["EDI", "LON", "LVP"], "RUSSIA": ["MOS", "STP"]},
        "dislodged": {"GERMANY": [{"unit": "A BUR", "retreats": ["MUN", "RUH"], "attacker_from": "PAR"}]},
    }
    assert position_to_json(position_from_json(VARIANT, doc)) == doc


def test_lenient_names_on_input_canonical_on_output():
    doc = {"phase": "s1901m", "units": {"england": ["fleet London", "a liverpool", "F St Petersburg/sc"]},
           "centers": {"ENGLAND": ["london"]}}
    written = position_to_json(position_from_json(VARIANT, doc))
    assert written["phase"] == "S1901M"
    assert written["units"] == {"ENGLAND": ["F LON", "A LVP", "F STP/SC"]}
    assert written["centers"] == {"ENGLAND": ["LON"]}
    assert "dislodged" not in written


def test_without_a_variant_only_the_shape_is_read():
    position = position_from_json({"phase": "S1901M", "units": {"FRANCE": ["A PAR", "F SPA/NC"]}})
    assert {str(u) for u in position.units} == {"A PAR", "F SPA/NC"}
    assert position.centers == {}


def _broken(**changes):
    doc = copy.deepcopy(RETREAT_DOC)
    for key, value in changes.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    with pytest.raises(ContractError) as caught:
        position_from_json(VARIANT, doc)
    return caught.value


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"phase": "X1901M"}, "bad phase 'X1901M'"),
        ({"phase": None}, "missing field 'phase'"),
        ({"phase": 1901}, "phase must be a string"),
        ({"units": None}, "missing field 'units'"),
        ({"units": ["F LON"]}, "units must be a JSON object"),
        ({"units": {"ENGLND": ["F LON"]}}, "unknown power 'ENGLND' in units"),
        ({"units": {"ENGLAND": "F LON"}}, "units of ENGLAND must be a JSON list"),
        ({"units": {"ENGLAND": ["X LON"]}}, "a unit is written like 'A PAR' or 'F STP/SC', not 'X LON'"),
        ({"units": {"ENGLAND": ["F XYZ"]}}, "unknown province 'XYZ'"),
        ({"units": {"ENGLAND": ["F PAR"]}}, "a fleet cannot stand on land (PAR"),
        ({"units": {"ENGLAND": ["A NTH"]}}, "an army cannot stand on NTH"),
        ({"units": {"ENGLAND": ["F SPA"]}}, "a fleet in SPA must name its coast"),
        ({"units": {"ENGLAND": ["F SPA/EC"]}}, "bad coast in 'SPA/EC'"),
        ({"units": {"ENGLAND": ["F LON"], "FRANCE": ["A LON"]}}, "two units in LON"),
        ({"centers": {"ENGLAND": ["NTH"]}}, "NTH is not a supply centre"),
        ({"centers": {"ENGLAND": ["LON"], "FRANCE": ["LON"]}}, "LON is owned by both ENGLAND and FRANCE"),
        ({"dislodged": {"GERMANY": ["A BUR"]}}, "must be a JSON object"),
        ({"dislodged": {"GERMANY": [{"retreats": []}]}}, "missing 'unit'"),
        ({"dislodged": {"GERMANY": [{"unit": "A BUR", "retreat": []}]}}, "unknown field(s) ['retreat']"),
        ({"dislodged": {"GERMANY": [{"unit": "A BUR", "retreats": ["ZZZ"]}]}}, "unknown province 'ZZZ'"),
    ],
)
def test_malformed_positions_are_refused(changes, message):
    error = _broken(**changes)
    assert message in error.message
    assert jsonio.error_to_json(error) == {"error": error.message, "detail": error.detail}


def test_phase_kind_rules():
    with pytest.raises(ContractError, match="'dislodged' is given only for retreat phases"):
        position_from_json(VARIANT, {**RETREAT_DOC, "phase": "F1901M"})
    with pytest.raises(ContractError, match="adjustment phases need centre ownership"):
        position_from_json(VARIANT, {"phase": "W1901A", "units": {}})
    assert position_from_json(VARIANT, {"phase": "S1901M", "units": {}}).centers == {}


def test_orders_and_rules():
    doc = {"orders": {"england": ["F LON - ENG", "A LVP H"]}, "rules": ["paradox_szykman"]}
    assert jsonio.order_texts_from_json(VARIANT, doc) == {"ENGLAND": ("F LON - ENG", "A LVP H")}
    assert jsonio.rules_from_json(doc, {"PARADOX_SZYKMAN"}) == {"PARADOX_SZYKMAN"}
    with pytest.raises(ContractError, match="unknown rule 'NOPE'") as caught:
        jsonio.rules_from_json({"rules": ["NOPE"]}, {"PARADOX_SZYKMAN"})
    assert caught.value.detail["known"] == ["PARADOX_SZYKMAN"]
    with pytest.raises(ContractError, match="an order of ENGLAND must be a string"):
        jsonio.order_texts_from_json(VARIANT, {"orders": {"ENGLAND": [42]}})
    with pytest.raises(ContractError, match="unknown power 'MARS' in orders"):
        jsonio.order_texts_from_json(VARIANT, {"orders": {"MARS": []}})


def test_results_document():
    army = Unit("MUN", UnitKind.ARMY, "GERMANY")
    following = Position(
        Phase.parse("S1901R"),
        (Unit("MUN", UnitKind.ARMY, "FRANCE"), Unit("BRE", UnitKind.FLEET, "FRANCE")),
        {"FRANCE": frozenset({"PAR", "BRE"}), "ITALY": frozenset()},
    )
    adjudication = Adjudication(
        results=(
            OrderResult("FRANCE", "A BUR - MUN", "moves"),
            OrderResult("GERMANY", "A MUN H", "dislodged"),
        ),
        position=following,
        dislodged=(Dislodged(army, "BUR", ("BER", "KIE")),),
        contested=("SIL", "BOH"),
    )
    unparsed = [OrderResult("FRANCE", "F BRE ~~", "void", "cannot understand 'F BRE ~~': ...")]
    doc = jsonio.results_to_json(Phase.parse("S1901M"), adjudication, unparsed)
    assert doc == {
        "phase": "S1901M",
        "results": [
            {"power": "FRANCE", "order": "A BUR - MUN", "result": "moves"},
            {"power": "FRANCE", "order": "F BRE ~~", "result": "void", "reason": "cannot understand 'F BRE ~~': ..."},
            {"power": "GERMANY", "order": "A MUN H", "result": "dislodged"},
        ],
        "units": {"FRANCE": ["F BRE", "A MUN"]},
        "dislodged": [{"power": "GERMANY", "unit": "A MUN", "attacker_from": "BUR", "retreats": ["BER", "KIE"]}],
        "contested": ["BOH", "SIL"],
        "centers": {"FRANCE": ["BRE", "PAR"]},
        "next_phase": "S1901R",
        "winner": None,
    }


def test_results_as_text_are_the_json_encoding_of_the_results_document():
    following = Position(
        Phase.parse("F1901R"),
        (Unit("MUN", UnitKind.ARMY, "FRANCE"), Unit("BRE", UnitKind.FLEET, "FRANCE"), Unit("STP/SC", UnitKind.FLEET, "RUSSIA")),
        {"FRANCE": frozenset({"PAR", "BRE"}), "ITALY": frozenset(), "RUSSIA": frozenset({"STP"})},
    )
    army = Unit("MUN", UnitKind.ARMY, "GERMANY")
    for winner, dislodged, contested, unparsed in [
        (None, (), (), []),
        ("FRANCE", (Dislodged(army, "BUR", ("BER", "KIE")), Dislodged(Unit("BOH", UnitKind.ARMY, "AUSTRIA"), None, ())),
         ("SIL", "BOH"), [OrderResult("GERMANY", 'A "MUN" \\ ~ é\n', "void", "cannot understand 'A \"MUN\"': \u2192")]),
    ]:
        adjudication = Adjudication(
            results=(OrderResult("FRANCE", "A BUR - MUN", "moves"), OrderResult("GERMANY", "A MUN H", "dislodged", "why")),
            position=following, dislodged=dislodged, contested=contested, winner=winner,
        )
        document = jsonio.results_to_json(Phase.parse("F1901M"), adjudication, unparsed)
        assert jsonio.results_to_text(Phase.parse("F1901M"), adjudication, unparsed) == json.dumps(document, ensure_ascii=False)


@pytest.mark.parametrize(
    "units, centers",
    [
        ({"ENGLAND": ["F LON", "A LVP"], "RUSSIA": ["F STP/SC"]}, {"ENGLAND": ["LON", "EDI"], "RUSSIA": ["STP"]}),
        ({"england": ["F LON"]}, {"ENGLAND": ["LON"]}),  # a power not written canonically
        ({"ENGLAND": ["fleet london", "A LVP"]}, {"ENGLAND": ["london"]}),  # names
        ({"ENGLAND": [], "FRANCE": ["A PAR"]}, {"ENGLAND": [], "FRANCE": ["PAR", "PAR"]}),
    ],
)
def test_the_quick_reading_gives_the_careful_reading(units, centers):
    doc = {"phase": "W1901A", "units": units, "centers": centers}
    position = position_from_json(VARIANT, doc)
    carefully = jsonio._units_carefully(VARIANT, doc)
    assert repr(position.units) == repr(carefully)
    assert dict(position.centers) == {p: frozenset(c) for p, c in jsonio._centers_carefully(VARIANT, doc, position.phase).items()}


@pytest.mark.parametrize(
    "units, centers, message",
    [
        ({"ENGLAND": ["F LON", "A LON"]}, {}, "two units in LON"),
        ({"ENGLAND": ["F STP/SC"], "RUSSIA": ["A STP"]}, {}, "two units in STP"),
        ({"ENGLAND": ["A NTH"]}, {}, "an army cannot stand on NTH"),
        ({"ENGLAND": [["A LON"]]}, {}, "must be a string"),
        ({"ENGLAND": ["A LON"]}, {"ENGLAND": ["LON"], "FRANCE": ["LON"]}, "LON is owned by both"),
        ({"ENGLAND": ["A LON"]}, {"ENGLAND": ["NTH"]}, "NTH is not a supply centre"),
        ({"ENGLAND": ["A LON"]}, {"ENGLAND": [{"LON": 1}]}, "must be a string"),
    ],
)
def test_what_the_quick_reading_declines_the_careful_reading_refuses(units, centers, message):
    with pytest.raises(ContractError) as refused:
        position_from_json(VARIANT, {"phase": "S1901M", "units": units, "centers": centers})
    assert message in refused.value.message
