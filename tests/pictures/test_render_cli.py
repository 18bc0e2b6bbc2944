"""``judge render``: a contract document to an SVG or PNG file."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from judge.cli.adjudicate import Adjudicator
from judge.cli import main
from tests.pictures.scenes import MOVEMENT


def _write(path: Path, doc: object) -> str:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def test_an_output_document_is_drawn_to_png_and_an_input_to_svg(tmp_path: Path) -> None:
    output = _write(tmp_path / "out.json", Adjudicator().answer(MOVEMENT))
    assert main(["render", "--map", "standard", "--out", str(tmp_path / "after.png"), output]) == 0
    image = Image.open(io.BytesIO((tmp_path / "after.png").read_bytes()))
    assert image.format == "PNG" and image.width == 1000

    source = _write(tmp_path / "in.json", {"map": "standard", **MOVEMENT})
    assert main(["render", "--out", str(tmp_path / "before.svg"), source]) == 0
    root = ET.fromstring((tmp_path / "before.svg").read_text(encoding="utf-8"))
    assert sum("unit" in (e.get("class") or "").split() for e in root.iter()) == 12


def test_without_out_the_svg_goes_to_standard_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", _write(tmp_path / "in.json", MOVEMENT)]) == 0
    assert capsys.readouterr().out.startswith("<svg")


@pytest.mark.parametrize(("arguments", "doc", "message"), [
    (["--out", "picture.gif"], MOVEMENT, "--out picture.gif: the name must end in .svg or .png"),
    (["--map", "atlantis"], MOVEMENT, "unknown map 'atlantis'"),
    ([], {"phase": "S1901M", "units": {"FRANCE": ["A PAR", "A PARIS"]}}, "two units in PAR"),
])
def test_bad_input_exits_2_saying_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                arguments: list[str], doc: object, message: str) -> None:
    assert main(["render", *arguments, _write(tmp_path / "in.json", doc)]) == 2
    assert message in capsys.readouterr().err


def test_a_file_that_is_not_json_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.json").write_text("{units: none}", encoding="utf-8")
    assert main(["render", str(tmp_path / "in.json")]) == 2
    assert "in.json is not JSON" in capsys.readouterr().err


def test_an_output_document_of_another_map_is_drawn_on_that_map(tmp_path: Path) -> None:
    import maps
    from adjudicator.api import initial_position
    from adjudicator.jsonio import position_to_json

    variant = maps.load("hundred")
    output = Adjudicator().answer({**position_to_json(initial_position(variant), "hundred"), "orders": {}})
    source = _write(tmp_path / "out.json", output)
    assert main(["render", "--map", "hundred", "--out", str(tmp_path / "after.svg"), source]) == 0
    root = ET.fromstring((tmp_path / "after.svg").read_text(encoding="utf-8"))
    provinces = {e.get("data-province") for e in root.iter() if e.get("class") == "province"}
    assert provinces == set(variant.provinces)
