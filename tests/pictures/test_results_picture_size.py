"""Every map's results picture, as the judge mails it, weighs at most 100 kB."""

from __future__ import annotations

import io

import pytest
from PIL import Image

import maps
from adjudicator import api
from judge.phases.pictures import position_picture
from pictures.svg import picture_size

LIMIT = 100_000


@pytest.mark.parametrize("name", maps.available())
def test_a_results_picture_is_at_most_100_kb_of_png(name: str) -> None:
    variant = maps.load(name)
    png, svg = position_picture("g1", variant, api.initial_position(variant))
    assert png.filename == f"g1-{api.initial_position(variant).phase}.png"
    assert len(png.data) <= LIMIT
    image = Image.open(io.BytesIO(png.data))
    full = picture_size(variant, maps.load_geometry(name))[0]
    assert image.format == "PNG" and image.width >= 0.3 * full  # drawn smaller to fit, not a thumbnail
