"""Property tests: random boards and random (often illegal) order texts never break the engine."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import maps
from adjudicator import api
from adjudicator.orders import Order
from adjudicator.legality import illegality
from adjudicator.resolve import _Resolver
from adjudicator.results import RESULT_CODES
from adjudicator.forms import forms_for
from adjudicator.tables import tables_for
from adjudicator.types import Phase, PhaseKind, Position, Season, Terrain, Unit, UnitKind, province_of

VARIANT = maps.load("standard")
TABLES = tables_for(VARIANT)
POWERS = [p.name for p in VARIANT.powers]
PROVINCES = sorted(VARIANT.provinces)
CENTERS = sorted(VARIANT.supply_centers)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _unit_at(rng: random.Random, province: str, power: str) -> Unit:
    data = VARIANT.provinces[province]
    if data.terrain is Terrain.SEA:
        return Unit(province, UnitKind.FLEET, power)
    if data.terrain is Terrain.LAND or rng.random() < 0.5:
        return Unit(province, UnitKind.ARMY, power)
    if data.coasts:
        return Unit(f"{province}/{rng.choice(data.coasts)}", UnitKind.FLEET, power)
    return Unit(province, UnitKind.FLEET, power)


def _board(seed: int, count: int, phase: Phase) -> Position:
    rng = random.Random(seed)
    provinces = rng.sample(PROVINCES, count)
    units = tuple(sorted(_unit_at(rng, p, rng.choice(POWERS)) for p in provinces))
    owners: dict[str, set[str]] = {}
    for center in rng.sample(CENTERS, rng.randint(0, len(CENTERS))):
        owners.setdefault(rng.choice(POWERS), set()).add(center)
    return Position(phase, units, {p: frozenset(c) for p, c in owners.items()})


def _near(rng: random.Random, province: str) -> str:
    near = sorted(TABLES.any_adj[province])
    return rng.choice(near) if near and rng.random() < 0.85 else rng.choice(PROVINCES)


def _order_text(rng: random.Random, unit: Unit, others: list[Unit]) -> str:
    here = unit.province
    near = [u for u in others if u.province in TABLES.any_adj[here]]
    other = rng.choice(near) if near and rng.random() < 0.9 else rng.choice(others)
    choice = rng.randrange(10)
    if choice == 0:
        return f"{unit} H"
    if choice in (1, 2, 3):
        target = _near(rng, here)
        coasts = VARIANT.provinces[target].coasts
        if coasts and rng.random() < 0.5:
            target += "/" + rng.choice(coasts)
        suffix = " via convoy" if rng.random() < 0.15 else ""
        return f"{unit} - {target}{suffix}"
    if choice == 4 and unit.kind is UnitKind.ARMY and here in TABLES.coastal:
        # Two steps over water: a move that needs a convoy.
        seas = sorted(TABLES.sea_touching[here])
        if seas:
            landing = sorted(p for p in TABLES.any_adj[rng.choice(seas)] if p in TABLES.coastal and p != here)
            if landing:
                return f"{unit} - {rng.choice(landing)}"
    if choice == 5:
        return f"{unit} S {other.kind.value} {other.province}"
    if choice in (4, 5, 6):
        shared = sorted(TABLES.any_adj[other.province] & TABLES.any_adj[here]) or [_near(rng, other.province)]
        return f"{unit} S {other.kind.value} {other.province} - {rng.choice(shared)}"
    if choice == 7 and here in TABLES.sea:
        armies = [u for u in others if u.kind is UnitKind.ARMY and here in TABLES.sea_touching[u.province]]
        shores = sorted(p for p in TABLES.any_adj[here] if p in TABLES.coastal)
        if armies and shores:
            return f"{unit} C A {rng.choice(armies).province} - {rng.choice(shores)}"
        return f"{unit} C A {other.province} - {rng.choice(PROVINCES)}"
    if choice == 8:
        return f"{rng.choice('AF')} {rng.choice(PROVINCES)} - {rng.choice(PROVINCES)}"
    return rng.choice(["", "hold everything", "F XYZ - ABC", f"{unit} S", f"{unit} -", "A - - -", f"{unit} H"])


def _planned_texts(rng: random.Random, where: Position) -> list[tuple[Unit, str]]:
    """Mostly coordinated orders (supports of planned moves, convoys of planned convoy moves)."""
    units = list(where.units)
    at = {u.province: u for u in units}
    plan: dict[str, str] = {}  # province -> destination province
    for unit in units:
        roll = rng.random()
        if unit.kind is UnitKind.ARMY and unit.province in TABLES.coastal and roll < 0.15:
            seas = sorted(TABLES.sea_touching[unit.province])
            shores = sorted({p for s in seas for p in TABLES.any_adj[s] if p in TABLES.coastal} - {unit.province})
            if shores:
                plan[unit.province] = rng.choice(shores)
        elif roll < 0.6:
            reach = sorted(TABLES.reachable(unit.location, unit.kind is UnitKind.FLEET))
            if reach:
                plan[unit.province] = rng.choice(reach)
    texts: list[tuple[Unit, str]] = []
    for unit in units:
        here = unit.province
        if here in plan:
            target = plan[here]
            if unit.kind is UnitKind.FLEET:
                coasts = [loc for loc in TABLES.fleet_adj.get(unit.location, ()) if province_of(loc) == target]
                target = rng.choice(sorted(coasts)) if coasts else target
            texts.append((unit, f"{unit} - {target}" + (" via convoy" if rng.random() < 0.1 else "")))
            continue
        reach = TABLES.reachable(unit.location, unit.kind is UnitKind.FLEET)
        helpable = [u for u in units if u.province in plan and plan[u.province] in reach and u is not unit]
        holders = [u for u in units if u.province in reach and u.province not in plan]
        carried = [
            u for u in units
            if here in TABLES.sea and u.province in plan and u.kind is UnitKind.ARMY
            and here in TABLES.sea_touching[u.province] and plan[u.province] in TABLES.coastal
        ]
        roll = rng.random()
        if carried and roll < 0.8:
            army = rng.choice(carried)
            texts.append((unit, f"{unit} C A {army.province} - {plan[army.province]}"))
        elif helpable and roll < 0.6:
            other = rng.choice(helpable)
            texts.append((unit, f"{unit} S {other} - {plan[other.province]}"))
        elif holders and roll < 0.8:
            texts.append((unit, f"{unit} S {rng.choice(holders)}"))
        else:
            texts.append((unit, f"{unit} H"))
    del at
    return texts


def _orders(seed: int, where: Position) -> dict[str, list[Order]]:
    rng = random.Random(seed)
    units = list(where.units)
    texts = _planned_texts(rng, where) if rng.random() < 0.7 else [(u, _order_text(rng, u, units)) for u in units]
    orders: dict[str, list[Order]] = {}
    for unit, text in texts:
        if rng.random() < 0.1:
            text = _order_text(rng, unit, units)  # noise: random, often illegal or garbled
        power = unit.power if rng.random() < 0.95 else rng.choice(POWERS)
        try:
            orders.setdefault(power, []).append(api.parse_order(api.prepare(VARIANT, where), power, text))
        except (api.OrderSyntaxError, api.IllegalOrder):
            pass
    return orders


def _rules(seed: int) -> frozenset[str]:
    rng = random.Random(seed)
    chosen = set()
    paradox = rng.choice([None, "PARADOX_SZYKMAN", "PARADOX_1982_DPJUDGE", "PARADOX_ALL_FAIL"])
    if paradox:
        chosen.add(paradox)
    if rng.random() < 0.3:
        chosen.add("NO_BELEAGUERED_CONVOY")
    for datc_3 in ("CONVOY_NO_FALLBACK", "CONVOY_NEEDED_ONLY"):  # DATC 3.0's movement rules
        if rng.random() < 0.3:
            chosen.add(datc_3)
    return frozenset(chosen)


MOVEMENT = Phase(1903, Season.FALL, PhaseKind.MOVEMENT)


@SETTINGS
@given(st.integers(0, 2**32), st.integers(1, 40), st.integers(0, 2**32))
def test_movement_never_raises_and_keeps_the_board_consistent(board_seed: int, count: int, order_seed: int) -> None:
    where = _board(board_seed, count, MOVEMENT)
    orders = _orders(order_seed, where)
    outcome = api.adjudicate(api.prepare(VARIANT, where), orders, _rules(order_seed))

    assert {r.result for r in outcome.results} <= RESULT_CODES
    assert all(r.reason for r in outcome.results if r.result == "void")
    # Exactly one result per unit on the board, by its owner (stray orders come on top).
    for unit in where.units:
        mine = [r for r in outcome.results if r.power == unit.power and r.order.startswith(f"{unit} ")]
        assert len(mine) == 1, (unit, outcome.results)
    after = outcome.position.units
    # Units are conserved except the dislodged ones, and never share a province.
    assert len(after) + len(outcome.dislodged) == len(where.units)
    provinces = [province_of(u.location) for u in after]
    assert len(provinces) == len(set(provinces))
    for entry in outcome.dislodged:
        for location in entry.retreats:
            assert province_of(location) not in provinces
            assert province_of(location) not in outcome.contested
    assert not set(outcome.contested) & set(provinces)
    # Deterministic, and independent of the order in which powers are listed.
    again = api.adjudicate(api.prepare(VARIANT, where), dict(reversed(list(orders.items()))), _rules(order_seed))
    assert Counter(again.results) == Counter(outcome.results)
    assert api.position_digest(again.position) == api.position_digest(outcome.position)


@SETTINGS
@given(st.integers(0, 2**32), st.integers(2, 34), st.integers(0, 2**32))
def test_retreat_phases_never_raise(board_seed: int, count: int, order_seed: int) -> None:
    where = _board(board_seed, count, MOVEMENT)
    moved = api.adjudicate(api.prepare(VARIANT, where), _orders(order_seed, where))
    retreat = moved.position
    if retreat.phase.kind is not PhaseKind.RETREAT:
        return
    rng = random.Random(order_seed)
    orders: dict[str, list[Order]] = {}
    for entry in retreat.dislodged:
        choices = [*entry.retreats, _near(rng, entry.unit.province)]
        text = rng.choice([f"{entry.unit} R {rng.choice(choices)}", f"{entry.unit} D", f"{entry.unit} H"])
        try:
            orders.setdefault(entry.unit.power, []).append(api.parse_order(api.prepare(VARIANT, retreat), entry.unit.power, text))
        except (api.OrderSyntaxError, api.IllegalOrder):
            pass
    outcome = api.adjudicate(api.prepare(VARIANT, retreat), orders)
    assert len(outcome.results) == len(retreat.dislodged)
    assert len(retreat.units) <= len(outcome.position.units) <= len(retreat.units) + len(retreat.dislodged)
    provinces = [province_of(u.location) for u in outcome.position.units]
    assert len(provinces) == len(set(provinces))
    assert outcome.position.phase.kind is not PhaseKind.RETREAT


@SETTINGS
@given(st.integers(0, 2**32), st.integers(0, 34), st.integers(0, 2**32))
def test_adjustments_end_with_units_matching_centres_where_removals_were_due(board_seed: int, count: int, order_seed: int) -> None:
    where = _board(board_seed, count, Phase(1903, Season.WINTER, PhaseKind.ADJUSTMENT))
    rng = random.Random(order_seed)
    orders: dict[str, list[Order]] = {}
    for power in POWERS:
        for _ in range(rng.randint(0, 3)):
            home = rng.choice(VARIANT.power(power).home_centers)
            mine = [u for u in where.units if u.power == power] or list(where.units) or [None]
            victim = rng.choice(mine)
            text = rng.choice(
                [f"Build A {home}", f"Build F {home}", "waive", f"Remove {victim}" if victim else "waive", "Build A XYZ"]
            )
            try:
                orders.setdefault(power, []).append(api.parse_order(api.prepare(VARIANT, where), power, text))
            except (api.OrderSyntaxError, api.IllegalOrder):
                pass
    needed = api.requirements(api.prepare(VARIANT, where))
    outcome = api.adjudicate(api.prepare(VARIANT, where), orders)
    after = Counter(u.power for u in outcome.position.units)
    before = Counter(u.power for u in where.units)
    for power in POWERS:
        requirement = needed.get(power)
        if requirement is not None and requirement.removals:
            assert after[power] == len(where.centers.get(power, ()))
        else:
            allowed = requirement.builds if requirement is not None else 0
            assert before[power] <= after[power] <= before[power] + allowed
    assert str(outcome.position.phase) == "S1904M"


@SETTINGS
@given(st.integers(0, 2**32), st.integers(1, 34), st.integers(0, 2**32))
def test_the_canonical_fast_path_reads_orders_as_the_lenient_parser_does(board_seed: int, count: int, text_seed: int) -> None:
    from adjudicator.canonical_lines import read_canonical
    from adjudicator.notation import parse_order as lenient

    where = _board(board_seed, count, MOVEMENT)
    rng = random.Random(text_seed)
    units = list(where.units)
    texts = [text for _, text in _planned_texts(rng, where)] + [_order_text(rng, u, units) for u in units]
    texts += [t.replace(" ", "  ") for t in texts[:3]] + [t + " VIA CONVOY" for t in texts[:3]]
    board = api.prepare(VARIANT, where)
    for text in texts:
        found = read_canonical(board, "", text)  # in a movement phase, the power is checked later
        if found is None:
            continue
        fast = found[0]
        power = fast.unit.power  # type: ignore[union-attr]
        slow = lenient(VARIANT, where, power, text)
        assert repr(fast) == repr(slow), text
        for who in (power, POWERS[(POWERS.index(power) + 1) % len(POWERS)]):
            # The fast path's legality verdict (with its shortcut) is the full check's.
            expected = illegality(TABLES, where, who, slow)
            try:
                api.parse_order(api.prepare(VARIANT, where), who, text)
                assert expected is None, (text, who, expected)
            except api.IllegalOrder as refused:
                assert refused.reason == expected, (text, who)
        parsed = api.parse_orders(board, power, [text])
        # Lower case and other spacing take the fast path too, and read the same.
        lowered = api.parse_orders(board, power, [" " + text.lower().replace(" ", "  ")])
        assert repr(lowered.orders) == repr(parsed.orders) and lowered.canonical == parsed.canonical, text
        assert [reason for _, reason in lowered.errors] == [reason for _, reason in parsed.errors], text
        if not parsed.orders:
            continue
        assert parsed.canonical == (parsed.orders[0].canonical(),), text  # the text the fast path kept is canonical
        outcome = api.adjudicate(board, {power: parsed})
        assert parsed.canonical[0] in [r.order for r in outcome.results], text


def _canonical_texts(rng: random.Random, where: Position) -> list[str]:
    """Lines in canonical form for the units of ``where``: forms of the map (holds, moves,
    supports, some naming a supported fleet by its coast), with units of the wrong kind or
    place, and convoys and moves by convoy (``VIA CONVOY``)."""
    forms = sorted(forms_for(VARIANT))
    texts = []
    for unit in where.units:
        head = f"{unit.kind.value} {unit.location} "
        own = [text for text in forms if text.startswith(head)]
        texts += rng.sample(own, min(4, len(own)))
        wrong = f"{'F' if unit.kind is UnitKind.ARMY else 'A'} {unit.location} "
        texts += rng.sample([t for t in forms if t.startswith(wrong)] or [head + "H"], 1)
        if unit.kind is UnitKind.ARMY and unit.province in TABLES.coastal:
            texts.append(f"{unit} - {rng.choice(sorted(TABLES.coastal))} VIA CONVOY")
        if unit.province in TABLES.sea:
            texts.append(f"{unit} C A {rng.choice(sorted(TABLES.coastal))} - {rng.choice(sorted(TABLES.coastal))}")
    return texts


@SETTINGS
@given(st.integers(0, 2**32), st.integers(1, 34), st.integers(0, 2**32))
def test_canonical_lines_are_read_as_the_lenient_parser_and_the_full_check_read_them(
    board_seed: int, count: int, text_seed: int
) -> None:
    """adjudicator.canonical_lines (map forms, convoy lines) against the long way, line by line,
    for every power: the same order (or the same error and reason), canonical text and note."""
    from adjudicator.api import _parse_in
    from adjudicator.resolve import order_shape

    where = _board(board_seed, count, MOVEMENT)
    rng = random.Random(text_seed)
    units = list(where.units)
    texts = _canonical_texts(rng, where) + [t for _, t in _planned_texts(rng, where)]
    texts += [_order_text(rng, u, units) for u in units]
    board = api.prepare(VARIANT, where)
    prov_of = TABLES.prov_of
    for text in filter(str.strip, texts):  # parse_orders skips blank lines
        for power in POWERS:
            parsed = api.parse_orders(board, power, [text])
            try:
                order, canonical = _parse_in(board, power, text)
            except (api.OrderSyntaxError, api.IllegalOrder) as problem:
                assert (parsed.orders, parsed.errors) == ((), ((text, problem.reason),)), (text, power)
                continue
            assert repr(parsed.orders) == repr((order,)) and parsed.errors == (), (text, power)
            assert parsed.canonical == (canonical or order.canonical(),) == (order.canonical(),), (text, power)
            assert [note[:3] for note in parsed.notes] == [(prov_of[order.unit.location], *order_shape(order, prov_of))], (text, power)


_ALIASES: dict[str, list[str]] = {}
for _alias, _place in VARIANT.aliases.items():
    _ALIASES.setdefault(province_of(_place), []).append(_alias)
_WORDS = {"A": ["army", "A", "Army"], "F": ["fleet", "F", "FLEET"], "-": ["to", "moves to", "-", "->", "MOVE TO"],
          "S": ["supports", "s", "S"], "C": ["convoys", "c"], "H": ["holds", "h", "HOLD"]}


def _spelled(rng: random.Random, text: str) -> str:
    """``text`` (canonical) written as players do: kinds and verbs in words, provinces by any
    of their names and aliases, coasts as ``(nc)`` or ``/nc``, any case."""
    words = text.replace(" VIA CONVOY", "").split()
    out = [rng.choice(_WORDS[word]) if word in _WORDS else word for word in words]
    for i, word in enumerate(words):
        province, slash, coast = word.partition("/")
        if word not in _WORDS and province in VARIANT.provinces:
            name = rng.choice(_ALIASES.get(province, [province]) + [VARIANT.provinces[province].name])
            out[i] = name + (rng.choice([f" ({coast.lower()})", f"/{coast}", f" {coast.lower()}"]) if slash else "")
    line = " ".join(out) + (rng.choice([" via convoy", " VIA CONVOY", " by convoy"]) if text.endswith(" VIA CONVOY") else "")
    return line.lower() if rng.random() < 0.3 else line


@SETTINGS
@given(st.integers(0, 2**32), st.integers(1, 34), st.integers(0, 2**32))
def test_orders_written_with_names_read_as_the_lenient_parser_and_the_full_check_read_them(
    board_seed: int, count: int, text_seed: int
) -> None:
    """Lines with full names, aliases and words (``army paris to burgundy``) take the fast path
    through their canonical spelling (notation.OrderParser.canonical_spelling); what they give,
    for every power, is what the lenient parser and the full legality check give."""
    from adjudicator.notation import OrderSyntaxError
    from adjudicator.notation import parse_order as lenient

    where = _board(board_seed, count, MOVEMENT)
    rng = random.Random(text_seed)
    texts = [_spelled(rng, text) for text in _canonical_texts(rng, where) + [t for _, t in _planned_texts(rng, where)] if text.strip()]
    board = api.prepare(VARIANT, where)
    for text in texts:
        for power in POWERS:
            parsed = api.parse_orders(board, power, [text])
            try:
                order = lenient(VARIANT, where, power, text)
            except OrderSyntaxError as problem:
                assert (parsed.orders, parsed.errors) == ((), ((text, problem.reason),)), (text, power)
                continue
            reason = illegality(TABLES, where, power, order)
            if reason is not None:
                assert (parsed.orders, parsed.errors) == ((), ((text, reason),)), (text, power)
                continue
            assert repr(parsed.orders) == repr((order,)) and parsed.canonical == (order.canonical(),), (text, power)


@SETTINGS
@given(st.integers(0, 2**32), st.integers(1, 34), st.integers(0, 2**32))
def test_orders_parsed_on_a_board_adjudicate_as_the_same_orders_checked_again(board_seed: int, count: int, text_seed: int) -> None:
    where = _board(board_seed, count, MOVEMENT)
    rng = random.Random(text_seed)
    units = list(where.units)
    by_power: dict[str, list[str]] = {}
    for unit, text in _planned_texts(rng, where) + [(u, _order_text(rng, u, units)) for u in units]:
        by_power.setdefault(unit.power if rng.random() < 0.9 else rng.choice(POWERS), []).append(text)
    board = api.prepare(VARIANT, where)
    parsed = {power: api.parse_orders(board, power, lines) for power, lines in by_power.items()}
    for power, lines in by_power.items():
        again = api.parse_orders(api.prepare(VARIANT, where), power, lines)
        assert repr(again.orders) == repr(parsed[power].orders) and again.errors == parsed[power].errors
        assert parsed[power].canonical == tuple(order.canonical() for order in parsed[power].orders)
    trusted = api.adjudicate(board, parsed)
    checked = api.adjudicate(api.prepare(VARIANT, where), {power: list(p.orders) for power, p in parsed.items()})
    assert trusted.results == checked.results
    assert api.position_digest(trusted.position) == api.position_digest(checked.position)
    assert not hasattr(where, "__dict__")  # slots only: nothing can be kept on the position


@SETTINGS
@given(st.integers(0, 2**32), st.integers(2, 34), st.integers(0, 2**32))
def test_canonical_retreat_and_adjustment_orders_read_as_the_lenient_parser_reads_them(
    board_seed: int, count: int, order_seed: int
) -> None:
    from adjudicator.canonical_lines import read_canonical
    from adjudicator.notation import parse_order as lenient

    def fast(board: api.Board, power: str, text: str) -> Order | None:
        found = read_canonical(board, power, text)
        return None if found is None else found[0]

    rng = random.Random(order_seed)
    where = _board(board_seed, count, MOVEMENT)
    retreat = api.adjudicate(api.prepare(VARIANT, where), _orders(order_seed, where)).position
    checked: list[tuple[Position, str, str, Order | None]] = []
    if retreat.phase.kind is PhaseKind.RETREAT:
        for entry in retreat.dislodged:
            for text in (f"{entry.unit} D", *(f"{entry.unit} R {loc}" for loc in entry.retreats), f"{entry.unit} R XYZ"):
                checked.append((retreat, entry.unit.power, text, fast(api.prepare(VARIANT, retreat), entry.unit.power, text)))
    winter = _board(board_seed, count, Phase(1903, Season.WINTER, PhaseKind.ADJUSTMENT))
    board = api.prepare(VARIANT, winter)
    for power in POWERS:
        home = rng.choice(VARIANT.power(power).home_centers)
        coasts = VARIANT.provinces[home].coasts
        texts = [f"A {home} B", f"F {home} B", "WAIVE", *(f"F {home}/{c} B" for c in coasts)]
        texts += [f"{u} D" for u in winter.units if u.power == power][:3]
        for text in texts:
            checked.append((winter, power, text, fast(board, power, text)))
    for where_now, power, text, read in checked:
        if read is not None:
            assert repr(read) == repr(lenient(VARIANT, where_now, power, text)), text


class _MachineryOnly(_Resolver):
    """The resolver with every decision left to the guess machinery (no plain cases settled first)."""

    __slots__ = ()

    def _settle_plain_cases(self, helpers: list[int]) -> None:
        pass


@SETTINGS
@given(st.integers(0, 2**32), st.integers(1, 40), st.integers(0, 2**32))
def test_the_plain_cases_settled_first_are_decided_as_the_guess_machinery_decides_them(
    board_seed: int, count: int, order_seed: int
) -> None:
    """resolve._Resolver._settle_plain_cases (moves, cut supports, unattacked helpers decided
    without the machinery) against the machinery alone, under every rule choice."""
    where = _board(board_seed, count, MOVEMENT)
    orders = _orders(order_seed, where)
    board = api.prepare(VARIANT, where)
    chosen: list[Order | None] = [None] * len(where.units)
    for power, given in orders.items():
        for order in given:
            if order.unit.power == power and illegality(TABLES, where, power, order, board.units, board.fleet_seas) is None:
                chosen[board.index[order.unit.province]] = order
    for rules in (_rules(order_seed), frozenset({"PARADOX_1982_DPJUDGE", "NO_BELEAGUERED_CONVOY"}), frozenset({"PARADOX_ALL_FAIL"}),
                  frozenset({"CONVOY_NO_FALLBACK", "CONVOY_NEEDED_ONLY"})):
        settled = _Resolver(TABLES, where.units, chosen, rules, None).run()
        alone = _MachineryOnly(TABLES, where.units, chosen, rules, None).run()
        assert settled == alone, (where.units, chosen, rules)
