"""The value map: centres valued by their owner's size, spread monotonically over the map."""

from __future__ import annotations

from adjudicator import api
from adjudicator.types import Phase, PhaseKind, Position, Season, Unit, UnitKind
from bot.values import (
    DEFAULT_WEIGHTS,
    base_values,
    diffuse,
    graph_of,
    node_of,
    value_map,
)


def test_every_centre_of_another_power_is_valued_and_nothing_else_is(standard):
    position = api.initial_position(standard)
    season = DEFAULT_WEIGHTS.spring
    base = base_values(api.prepare(standard, position), "ENGLAND", DEFAULT_WEIGHTS, season)
    assert set(base) == set(standard.supply_centers)
    for centre, value in base.items():
        if centre in position.centers["ENGLAND"]:
            assert value == 0.0  # nobody else can reach an English centre in 1901
        else:
            assert value > 0.0
    # a three-centre power's centre (and a neutral one, counted as three) against Russia's four
    assert base["PAR"] == season.attack * DEFAULT_WEIGHTS.size(3) == base["BEL"]
    assert base["MOS"] == season.attack * DEFAULT_WEIGHTS.size(4) > base["PAR"]


def test_an_own_centre_is_worth_the_size_of_the_largest_power_next_to_it(standard):
    start = api.initial_position(standard)
    units = tuple(sorted((*start.units, Unit("ENG", UnitKind.FLEET, "RUSSIA"), Unit("WAL", UnitKind.ARMY, "FRANCE"))))
    centers = {**start.centers, "FRANCE": start.centers["FRANCE"] | {"SPA", "POR"}}
    position = Position(start.phase, units, centers)
    season = DEFAULT_WEIGHTS.spring
    base = base_values(api.prepare(standard, position), "ENGLAND", DEFAULT_WEIGHTS, season)
    # LON is next to the Russian fleet (4 centres) and the French army (5): France's size counts
    assert base["LON"] == season.defence * DEFAULT_WEIGHTS.size(5)
    assert base["EDI"] == 0.0


def test_diffusion_is_monotone_in_the_base_values(standard):
    graph = graph_of(standard)
    base = {"MUN": 10.0, "PAR": 5.0}
    raised = {**base, "MUN": 20.0}
    low, high = diffuse(graph, base, 6), diffuse(graph, raised, 6)
    for step_low, step_high in zip(low, high):
        assert all(step_high[node] >= step_low[node] for node in graph.neighbours)
    # the raise reaches MUN's neighbours in one step and spreads further with each step
    assert high[1][("A", "BUR")] > low[1][("A", "BUR")]
    assert high[1][("A", "PIC")] == low[1][("A", "PIC")]
    assert high[2][("A", "PIC")] > low[2][("A", "PIC")]


def test_places_near_a_prize_are_worth_more_than_places_far_from_it(standard):
    values = value_map(api.prepare(standard, api.initial_position(standard)), "RUSSIA")
    assert values.of(UnitKind.ARMY, "GAL") > values.of(UnitKind.ARMY, "LVN")
    assert values.of(UnitKind.FLEET, "BLA") > values.of(UnitKind.FLEET, "BAR")
    assert 0.0 <= values.relative(UnitKind.ARMY, "RUM") <= 1.0


def test_split_coasts_are_valued_apart(standard):
    values = value_map(api.prepare(standard, api.initial_position(standard)), "FRANCE")
    assert node_of(UnitKind.FLEET, "SPA/NC") in values.values
    assert values.of(UnitKind.FLEET, "SPA/NC") != values.of(UnitKind.FLEET, "SPA/SC")


def test_any_variant_gets_a_value_map(triangle):
    position = api.initial_position(triangle)
    values = value_map(api.prepare(triangle, position), "RED", season=Season.FALL)
    assert set(values.values) == set(graph_of(triangle).neighbours)
    assert values.of(UnitKind.ARMY, "MID") > 0.0  # a neutral centre
    assert values.of(UnitKind.FLEET, "CAP/NC") != values.of(UnitKind.FLEET, "CAP/SC")
    winter = Position(Phase(1901, Season.WINTER, PhaseKind.ADJUSTMENT), position.units, position.centers)
    assert value_map(api.prepare(triangle, winter), "RED").values  # every season has weights
