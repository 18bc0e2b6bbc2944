"""The players' orders: always legal (through the adjudicator's parser), complete,
deterministic for a seed; retreats and builds by the value map; the search finds tactics."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from adjudicator.orders import Build, Hold, Move, Remove, Retreat, SupportMove
from adjudicator.types import Phase, PhaseKind, Position, Season, Unit, UnitKind
from bot.dumbbot import DumbBot
from bot.evaluate import Scorer
from bot.game import play
from bot.player import Budget
from bot.randombot import RandomBot
from bot.search import StrategicBot
from bot.values import value_map

SMALL = Budget(iterations=120, seconds=None)


def players(seed: int = 0):
    return [RandomBot(seed), DumbBot(seed), StrategicBot(seed, SMALL)]


def parsed(board, power, orders):
    result = api.parse_orders(board, power, [order.canonical() for order in orders])
    assert result.errors == (), result.errors
    return result


def test_movement_orders_parse_and_cover_every_unit(standard):
    board = api.prepare(standard, api.initial_position(standard))
    for player in players():
        for power in api.requirements(board):
            orders = parsed(board, power, player.orders(board, power)).orders
            assert sorted(o.unit.location for o in orders) == sorted(u.location for u in board.position.units
                                                                       if u.power == power), player.name


@pytest.mark.parametrize("make", [RandomBot, DumbBot, lambda seed: StrategicBot(seed, Budget(iterations=30, seconds=None))])
def test_whole_games_have_no_illegal_order_in_any_phase(standard, make):
    powers = [p.name for p in standard.powers]
    seen = set()
    for seed in (1, 2):
        mixed = {p: (make(seed) if i % 2 == 0 else DumbBot(seed)) for i, p in enumerate(powers)}
        record = play(standard, _Watch(mixed, seen), last_year=1905)
        assert record.illegal_orders == 0
    assert {PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT} <= seen


class _Watch(dict):
    """The players, noting the kinds of phase they are asked about."""

    def __init__(self, players, seen):
        super().__init__({p: _Noted(player, seen) for p, player in players.items()})


class _Noted:
    def __init__(self, player, seen):
        self.player, self.seen, self.name = player, seen, player.name

    def orders(self, board, power):
        self.seen.add(board.position.phase.kind)
        return self.player.orders(board, power)


def test_a_game_on_another_variant_is_legal_throughout(triangle):
    record = play(triangle, {"RED": StrategicBot(1, SMALL), "GREEN": DumbBot(1), "BLUE": RandomBot(1)}, last_year=1906)
    assert record.illegal_orders == 0
    assert record.phases > 3


def test_orders_are_deterministic_for_a_seed(standard):
    board = api.prepare(standard, api.initial_position(standard))
    first = StrategicBot(7, Budget(iterations=100, seconds=None)).orders(board, "ITALY")
    again = StrategicBot(7, Budget(iterations=100, seconds=None)).orders(api.prepare(standard, board.position), "ITALY")
    assert first == again
    assert DumbBot(3).orders(board, "RUSSIA") == DumbBot(3).orders(board, "RUSSIA")
    assert RandomBot(3).orders(board, "RUSSIA") == RandomBot(3).orders(board, "RUSSIA")
    a = play(standard, {p.name: StrategicBot(5, Budget(iterations=20, seconds=None)) for p in standard.powers}, 1902)
    b = play(standard, {p.name: StrategicBot(5, Budget(iterations=20, seconds=None)) for p in standard.powers}, 1902)
    assert api.position_digest(a.position) == api.position_digest(b.position)


def test_a_counted_budget_stops_at_its_count_and_its_cap_only_on_a_slow_machine(standard):
    # the default budget's shape: a count of evaluations (deterministic) with a wall-time cap
    board = api.prepare(standard, api.initial_position(standard))
    counted = StrategicBot(7, Budget(iterations=100, seconds=60.0)).search(board, "ITALY")
    assert counted[1].iterations == 100
    assert counted[0] == StrategicBot(7, Budget(iterations=100, seconds=None)).orders(board, "ITALY")
    ticks = iter(range(10**6))  # a clock that advances a second each time it is read
    capped = StrategicBot(7, Budget(iterations=10**9, seconds=5.0), clock=lambda: float(next(ticks))).search(board, "ITALY")[1]
    assert capped.iterations == 4 and capped.seconds == 6.0  # read at 0 (start), 1-4 (go on), 5 (stop), 6 (report)


def _fall(units, centers):
    return Position(Phase(1901, Season.FALL, PhaseKind.MOVEMENT), tuple(sorted(units)), centers)


def test_the_search_attacks_a_lone_defender_and_values_support(standard):
    # Italy's army and fleet against a lone Austrian army in Trieste, the only centre either
    # can take this autumn: the search attacks it, and the worth it maximises prefers the
    # supported attack to a lone one against a defender that holds
    position = _fall([Unit("VEN", UnitKind.ARMY, "ITALY"), Unit("ADR", UnitKind.FLEET, "ITALY"),
                      Unit("TRI", UnitKind.ARMY, "AUSTRIA")],
                     {"ITALY": frozenset({"VEN", "ROM", "NAP"}), "AUSTRIA": frozenset({"TRI", "VIE", "BUD"})})
    board = api.prepare(standard, position)
    orders = StrategicBot(1, Budget(iterations=400, seconds=None)).orders(board, "ITALY")
    assert any(type(o) is Move and o.destination == "TRI" for o in orders)
    venice, adriatic, trieste = board.units["VEN"], board.units["ADR"], board.units["TRI"]
    values = {p: value_map(board, p) for p in ("ITALY", "AUSTRIA")}
    scorer = Scorer(board, values)
    alone = scorer(api.adjudicate(board, {"ITALY": [Move(venice, "TRI"), Hold(adriatic)], "AUSTRIA": [Hold(trieste)]}))
    supported = scorer(api.adjudicate(board, {"ITALY": [Move(venice, "TRI"), SupportMove(adriatic, venice, "TRI")],
                                              "AUSTRIA": [Hold(trieste)]}))
    assert supported["ITALY"] > alone["ITALY"] + 0.9  # a centre more
    assert supported["AUSTRIA"] < alone["AUSTRIA"] - 1.4  # a centre and a unit less


def test_the_search_convoys_an_army_to_a_free_centre(standard):
    # England's army can only reach Norway's empty centre across the North Sea
    position = _fall([Unit("YOR", UnitKind.ARMY, "ENGLAND"), Unit("NTH", UnitKind.FLEET, "ENGLAND")],
                     {"ENGLAND": frozenset({"LON", "EDI", "LVP"})})
    board = api.prepare(standard, position)
    orders = StrategicBot(1, Budget(iterations=300, seconds=None)).orders(board, "ENGLAND")
    texts = {o.canonical() for o in orders}
    assert "A YOR - NWY VIA CONVOY" in texts and "F NTH C A YOR - NWY" in texts or "F NTH - NWY" in texts


def _retreat_board(standard):
    start = Position(Phase(1901, Season.SPRING, PhaseKind.MOVEMENT),
                     tuple(sorted([Unit("MUN", UnitKind.ARMY, "GERMANY"), Unit("RUH", UnitKind.ARMY, "GERMANY"),
                                   Unit("BUR", UnitKind.ARMY, "FRANCE")])),
                     {"GERMANY": frozenset({"MUN", "BER", "KIE"}), "FRANCE": frozenset({"PAR", "MAR", "BRE"})})
    board = api.prepare(standard, start)
    munich, ruhr = board.units["MUN"], board.units["RUH"]
    outcome = api.adjudicate(board, {"GERMANY": [Move(munich, "BUR"), SupportMove(ruhr, munich, "BUR")]})
    assert outcome.position.phase.kind is PhaseKind.RETREAT
    return api.prepare(standard, outcome.position)


def test_retreats_are_legal_and_go_to_the_best_place(standard):
    board = _retreat_board(standard)
    for player in players():
        orders = parsed(board, "FRANCE", player.orders(board, "FRANCE")).orders
        assert len(orders) == 1
    chosen = StrategicBot(1, SMALL).orders(board, "FRANCE")
    assert type(chosen[0]) is Retreat  # retreating keeps the unit: never disband when a place is free


def test_builds_and_removals_are_legal(standard):
    winter = Phase(1901, Season.WINTER, PhaseKind.ADJUSTMENT)
    builds = Position(winter, (Unit("NTH", UnitKind.FLEET, "ENGLAND"), Unit("NWY", UnitKind.ARMY, "ENGLAND")),
                      {"ENGLAND": frozenset({"LON", "EDI", "LVP", "NWY"})})
    board = api.prepare(standard, builds)
    for player in players():
        orders = parsed(board, "ENGLAND", player.orders(board, "ENGLAND")).orders
        assert len(orders) == 2 and all(type(o) is Build for o in orders), player.name
    removals = Position(winter, tuple(sorted([Unit("NTH", UnitKind.FLEET, "ENGLAND"), Unit("YOR", UnitKind.ARMY, "ENGLAND"),
                                              Unit("WAL", UnitKind.ARMY, "ENGLAND")])),
                        {"ENGLAND": frozenset({"LON", "EDI"})})
    board = api.prepare(standard, removals)
    for player in players():
        orders = parsed(board, "ENGLAND", player.orders(board, "ENGLAND")).orders
        assert len(orders) == 1 and type(orders[0]) is Remove, player.name


@pytest.mark.parametrize("name", maps.available())
def test_every_shipped_map_is_played_legally(name):
    variant = maps.load(name)
    quick = StrategicBot(1, Budget(iterations=5, seconds=None), samples=0, modelled=0)
    kinds = [quick, DumbBot(1), RandomBot(1)]
    one_year_on = variant.start_year + variant.years_to_fall + variant.years_to_spring  # Hundred's turns are 5 years
    record = play(variant, {p.name: kinds[i % 3] for i, p in enumerate(variant.powers)}, one_year_on)
    assert record.illegal_orders == 0
    assert record.phases >= 4 or record.winner is not None  # a whole year at least
