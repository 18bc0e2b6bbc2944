"""The values the results mail shows, from stored documents (no store involved)."""

from __future__ import annotations

from adjudicator.api import adjudicate, parse_order, prepare
from adjudicator.jsonio import position_from_json, position_to_json, results_to_json
from judge.store.queries import variant_named
from judge.phases.turn_views import phase_name, results_view, summary_table

VARIANT = variant_named("standard")


def play(doc, orders):
    before = position_from_json(VARIANT, doc)
    parsed = {p: [parse_order(prepare(VARIANT, before), p, line) for line in lines] for p, lines in orders.items()}
    done = adjudicate(prepare(VARIANT, before), parsed)
    return before, done, results_to_json(before.phase, done)["results"]


def test_an_eliminated_power_and_the_winter_adjustments_are_shown():
    # Germany's last unit is dislodged with every retreat blocked: destroyed, and Germany,
    # owning no centre, is out.
    doc = {"map": "standard", "phase": "F1905M",
           "units": {"FRANCE": ["A BUR", "A MUN", "A BEL", "A HOL", "F KIE"], "GERMANY": ["A RUH"]},
           "centers": {"FRANCE": ["BRE", "MAR", "PAR"], "GERMANY": []}}
    before, done, results = play(doc, {"FRANCE": ["A BUR - RUH", "A MUN S A BUR - RUH"], "GERMANY": ["A RUH H"]})
    view = results_view(game="g1", variant=VARIANT, before=before, before_doc=doc, results=results,
                        after=done.position, after_doc=position_to_json(done.position))
    assert [(d.power, d.unit, d.retreats) for d in view.dislodged] == [("GERMANY", "A RUH", ())]
    assert view.phase_name == "Fall 1905 movement" and view.next_phase == "W1905A"
    rows = {row.power: row for row in view.centres}
    assert (rows["FRANCE"].count, rows["FRANCE"].change, rows["FRANCE"].adjustment) == (7, "+4", "builds 2")
    assert "GERMANY" not in rows and view.neutral == 34 - 7
    assert view.eliminated == ("GERMANY",)


def test_the_summary_counts_centres_by_year():
    start = position_from_json(VARIANT, {"map": "standard", "phase": "S1901M", "units": {"FRANCE": ["A PAR"]},
                                         "centers": {"FRANCE": ["PAR"]}})
    later = position_from_json(VARIANT, {"map": "standard", "phase": "S1903M", "units": {"FRANCE": ["A PAR"]},
                                         "centers": {"FRANCE": ["PAR", "BRE"]}})
    table = summary_table(VARIANT, start, [(1901, start), (1902, later)])
    assert table.years == ("start", "1901", "1902")
    assert dict(table.rows)["FRANCE"] == (1, 1, 2) and dict(table.rows)["ENGLAND"] == (0, 0, 0)
    assert phase_name("W1901A") == "Winter 1901 adjustments"
