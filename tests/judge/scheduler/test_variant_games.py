"""Games of every shipped variant by mail, end to end (in-process judge on SQLite, scheduler
passes): CREATE with MAP name, a JOIN for every power of the map, orders from every power,
the results broadcast; LIST, SUMMARY, HELP and the results say which variant."""

from __future__ import annotations

import pytest
from sqlalchemy import select

import maps
from adjudicator.api import initial_position
from judge.store.models_game import Membership
from tests.judge.commands.conftest import MASTER
from tests.judge.commands.harness import player

VARIANTS = [name for name in maps.available() if name != "standard"]


def first_orders(variant, power: str) -> list[str]:
    """Holds for every unit, or one build per free home centre in a builds-first map."""
    start = initial_position(variant)
    if str(start.phase).endswith("A"):
        return [f"BUILD A {site}" if variant.provinces[site].terrain.value == "land" else f"BUILD F {site}"
                for site in variant.power(power).home_centers
                if not variant.provinces[site].coasts][:1] or ["WAIVE"]
    return [f"{unit} H" for unit in sorted(start.units) if unit.power == power]


@pytest.mark.parametrize("name", VARIANTS)
def test_a_variant_game_by_mail(judge, name):
    variant = maps.load(name)
    created = judge.send(MASTER, f"CREATE g1 masterpw\nMAP {name}\nFORM\n").reply.body
    assert f"map: {name} ({variant.headline})" in created and "ERROR" not in created

    count = len(variant.powers)
    for index in range(count):
        reply = judge.send(player(index), f"JOIN g1 pw{index}\n").reply.body
        assert "ERROR" not in reply, reply
    assert f"game 'g1' is full and has started" in reply
    with judge.session() as session:
        seats = {m.power: m.address for m in session.execute(
            select(Membership).where(Membership.role == "player")).scalars()}
    assert sorted(seats) == sorted(p.name for p in variant.powers)
    first = str(variant.start_phase)
    assert judge.game()["phase"] == first

    listing = judge.send("someone@example.net", "LIST\nSUMMARY g1\nHELP\n").reply.body
    assert f"active {first}, {count}/{count} players, map {name}" in listing
    assert f"Map:      {name} ({variant.headline})" in listing
    assert all(rule in listing for rule in variant.rules)
    assert f"  {name:<24} {variant.headline}" in listing  # HELP lists the maps

    for power, address in seats.items():
        index = int(address[len("player"):].split("@")[0])
        lines = first_orders(variant, power)
        reply = judge.send(address, f"SIGNON {power.lower()}@g1 pw{index}\n" + "\n".join(lines) + "\n").reply.body
        assert "ERROR" not in reply, (power, reply)

    judge.tick()  # the settle window after the last orders
    out = judge.tick()
    results = out.of_kind("results")
    assert {m.address for m in results} == set(seats.values()) | {MASTER}
    body = results[0].body
    assert f"Results of game g1" in body and f"({first})" in body and f"Map: {name}." in body
    pictures = {part.get_filename(): part.get_content_type() for part in results[0].message.walk() if part.get_filename()}
    assert pictures == {f"g1-{first}.png": "image/png", f"g1-{first}.json": "application/json"}  # its map drawn
    assert max(len(m.message.as_bytes()) for m in results) <= 120_000  # picture and all (issue 24.8)
    expected = initial_position(variant).phase
    following = variant.fall_after(expected) if expected.season.value == "S" else variant.spring_after(expected)
    assert judge.game()["phase"] == str(following)
