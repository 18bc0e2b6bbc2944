"""Resolving power tokens against a map's powers."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from mailcmds import PowerListError, resolve_power, resolve_powers
from judge.commands.registry import parse_text


@dataclass(frozen=True)
class Power:
    name: str
    letter: str


STANDARD = tuple(Power(n, n[0]) for n in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"))


def test_names_initials_and_master():
    assert resolve_power("france", STANDARD) == "FRANCE"
    assert resolve_power("T", STANDARD) == "TURKEY"
    assert resolve_power("M", STANDARD, allow_master=True) == "MASTER"
    with pytest.raises(PowerListError, match="not a power of this game"):
        resolve_power("M", STANDARD)


def test_lists_of_initials_and_names_from_press_and_draw_commands():
    press = parse_text("SIGNON Fg pw\nPRESS TO EG, russia, M\nhi").commands[1]
    assert resolve_powers(press.recipients, STANDARD, allow_master=True) == ("ENGLAND", "GERMANY", "RUSSIA", "MASTER")
    draw = parse_text("SET DRAW AEF").commands[0]
    assert resolve_powers(draw.powers, STANDARD) == ("AUSTRIA", "ENGLAND", "FRANCE")
    assert resolve_powers(("TURKEY",), STANDARD) == ("TURKEY",)  # a name, not T-U-R-K-E-Y
    assert resolve_powers(("O",), STANDARD, allow_observers=True) == ("OBSERVERS",)


@pytest.mark.parametrize("tokens, fragment", [
    (("FX",), "'X' is not the initial"),
    (("FF",), "FRANCE twice"),
    (("E", "ENGLAND"), "ENGLAND twice"),
    (("M",), "'M' is not the initial"),
])
def test_bad_lists(tokens, fragment):
    with pytest.raises(PowerListError, match=fragment):
        resolve_powers(tokens, STANDARD)


CHAOS_LIKE = (Power("LONDON", "Q"), Power("MUNICH", "0"), Power("PORTUGAL", "1"))


def test_digit_initials_of_a_map_of_many_powers():
    signon = parse_text("SIGNON 0g1 pw\n").commands[0]
    assert (signon.power, signon.game) == ("0", "g1")
    assert resolve_power(signon.power, CHAOS_LIKE) == "MUNICH"
    draw = parse_text("SET DRAW Q01").commands[0]
    assert resolve_powers(draw.powers, CHAOS_LIKE) == ("LONDON", "MUNICH", "PORTUGAL")


def test_short_years_of_a_variant_are_phases():
    history = parse_text("HISTORY g1 S1M").commands[0]
    assert (history.game, history.phase) == ("g1", "S1M")
    rollback = parse_text("SIGNON mg1 pw\nROLLBACK F12R").commands[1]
    assert rollback.phase == "F12R"
