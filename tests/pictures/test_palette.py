"""Power colours that stay apart for every player, colour-blind ones included."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import maps
from adjudicator import api
from pictures import draw_svg, palette, vision
from pictures.scene import scene_of_position

# Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula", table 1: pairs of
# CIELAB colours and their published difference.
SHARMA = [
    ((50.0000, 2.6772, -79.7751), (50.0000, 0.0000, -82.7485), 2.0425),
    ((50.0000, 2.8361, -74.0200), (50.0000, 0.0000, -82.7485), 3.4412),
    ((50.0000, 0.0000, 0.0000), (50.0000, -1.0000, 2.0000), 2.3669),
    ((50.0000, 2.5000, 0.0000), (73.0000, 25.0000, -18.0000), 27.1492),
    ((50.0000, 2.5000, 0.0000), (50.0000, 3.1736, 0.5854), 1.0000),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ((90.9257, -0.5406, -0.9208), (88.6381, -0.8985, -0.7239), 1.5381),
]


@pytest.mark.parametrize(("first", "second", "published"), SHARMA)
def test_the_colour_difference_is_ciede2000_as_published(first, second, published) -> None:
    assert vision.lab_difference(first, second) == pytest.approx(published, abs=1e-4)
    assert vision.lab_difference(second, first) == pytest.approx(published, abs=1e-4)


def test_red_and_green_merge_for_a_deuteranope_and_not_otherwise() -> None:
    red, green = (200, 60, 40), (110, 110, 40)
    assert vision.difference(red, green) > 20
    assert vision.difference(vision.seen(red, "deuteranopia"), vision.seen(green, "deuteranopia")) < 8


def test_the_palette_keeps_every_pair_apart_under_every_vision_and_off_sea_and_land() -> None:
    colours = [palette.to_rgb(c) for c in palette.POWERS]
    least, _ = vision.least_difference(colours)
    assert least >= palette.LEAST_DIFFERENCE
    for ground in (palette.SEA, palette.LAND):
        for colour in colours:
            assert vision.least_difference([colour, palette.to_rgb(ground)])[0] >= palette.LEAST_DIFFERENCE


#: The maps whose powers the palette colours alone; those with more carry initials too
#: (test_many_powers...).
PALETTE_MAPS = [name for name in maps.available() if len(maps.load(name).powers) <= len(palette.POWERS)]


@pytest.mark.parametrize("name", PALETTE_MAPS)
def test_each_map_of_up_to_a_dozen_powers_draws_colours_apart(name: str) -> None:
    variant = maps.load(name)
    colours = palette.power_colors([p.name for p in variant.powers], maps.load_geometry(name).colors)
    assert len(set(colours.values())) == len(colours)
    least, seen_by = vision.least_difference([palette.to_rgb(c) for c in colours.values()])
    assert least >= palette.LEAST_DIFFERENCE, (least, seen_by)


@pytest.mark.parametrize("name", PALETTE_MAPS)
def test_no_map_makes_three_powers_shades_of_green(name: str) -> None:
    """Youngstown's three greens: now at most two, and those far apart."""
    variant = maps.load(name)
    colours = palette.power_colors([p.name for p in variant.powers], maps.load_geometry(name).colors)
    lab = {power: vision.lab(palette.to_rgb(c)) for power, c in colours.items()}
    greens = [p for p, (_, a, b) in lab.items() if a < -15 and b > 0]
    assert len(greens) <= 2, greens
    if len(greens) == 2:
        assert vision.lab_difference(lab[greens[0]], lab[greens[1]]) >= 2 * palette.LEAST_DIFFERENCE


@pytest.mark.parametrize("name", [n for n in maps.available() if len(maps.load(n).powers) > len(palette.POWERS)])
def test_many_powers_mark_each_unit_with_its_powers_initials(name: str) -> None:
    variant = maps.load(name)
    position = api.initial_position(variant)
    root = ET.fromstring(draw_svg(variant, maps.load_geometry(name), scene_of_position(variant, position)))
    marks = [e for e in root.iter() if e.get("class") == "initials"]
    assert len(marks) == len(position.units)
    by_power = {e.get("data-power"): e.text for e in marks}
    assert len(set(by_power.values())) == len(by_power)  # one mark, one power
    key = " ".join(e.text or "" for e in root.iter("{http://www.w3.org/2000/svg}text"))
    assert all(f"{mark}: {power}" in key for power, mark in by_power.items())
