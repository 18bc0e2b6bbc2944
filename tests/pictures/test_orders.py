"""Canonical order text -> DrawnOrder."""

from __future__ import annotations

import pytest

from pictures.orders import DrawnOrder, drawn_order


@pytest.mark.parametrize(("text", "expected"), [
    ("A PAR H", DrawnOrder("FRANCE", "hold", "A", "PAR")),
    ("F SPA/NC - MAO", DrawnOrder("FRANCE", "move", "F", "SPA/NC", "MAO")),
    ("A LON - NWY VIA CONVOY", DrawnOrder("FRANCE", "move", "A", "LON", "NWY")),
    ("F LON S F NTH", DrawnOrder("FRANCE", "support_hold", "F", "LON", "NTH")),
    ("A MAR S A PAR - BUR", DrawnOrder("FRANCE", "support_move", "A", "MAR", "PAR", "BUR")),
    ("F NTH C A LON - NWY", DrawnOrder("FRANCE", "convoy", "F", "NTH", "LON", "NWY")),
    ("A MUN R SIL", DrawnOrder("FRANCE", "retreat", "A", "MUN", "SIL")),
    ("F BRE D", DrawnOrder("FRANCE", "disband", "F", "BRE")),
    ("F STP/NC B", DrawnOrder("FRANCE", "build", "F", "STP/NC")),
    ("WAIVE", DrawnOrder("FRANCE", "waive", "", "")),
])
def test_every_canonical_form_is_read(text: str, expected: DrawnOrder) -> None:
    assert drawn_order("FRANCE", text) == expected


@pytest.mark.parametrize("text", ["", "army paris to burgundy", "A PAR", "A PAR S BUR", "X PAR H", "A PAR - BUR VIA"])
def test_text_that_is_not_canonical_is_not_drawn(text: str) -> None:
    assert drawn_order("FRANCE", text) is None


@pytest.mark.parametrize(("result", "failed"), [
    (None, False), ("moves", False), ("supports", False), ("builds", False), ("bounce", True), ("cut", True),
    ("void", True), ("no_convoy", True), ("dislodged", True),
])
def test_failure_follows_the_result_code(result: str | None, failed: bool) -> None:
    order = drawn_order("FRANCE", "A PAR - BUR", result)
    assert order is not None and order.failed is failed
