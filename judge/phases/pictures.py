"""The picture of a phase as two files for a mail: ``<game>-<phase>.svg`` and ``.png``.

One drawing serves the results broadcast (``phase_picture``, called by results_files.py: every
copy of the broadcast shares the one signed body; it carries the PNG alone, so that it
stays under 120 kB) and ``MAP game phase`` (``record_picture``, from the phase's record,
which holds everything the broadcast's picture was drawn from, so both are the same
picture; both files).  The PNG goes inline, for mail clients that do not show SVG.

Drawing costs several times the rest of processing a phase, so the scheduler draws a due
game's picture *before* the game's write transaction (judge/phases/draw_ahead.py,
read-only: on SQLite writers take turns, and intake must not wait for a picture).
Drawings are kept by what they show (``_drawing``: a pure function of its arguments,
memoised), so the transaction finds the picture already drawn; when it is not (a master's
PROCESS, a sealed game, orders changed in between) it is drawn there.  Either way each
results mail goes out once, with its picture.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Iterable, Mapping

import maps
from adjudicator.jsonio import position_from_json, position_to_json
from adjudicator.results import OrderResult
from adjudicator.types import Position, Variant
from judge.publish.signing import FileAttachment
from judge.store.models_game import PhaseRecord
from pictures import Geometry, draw_tree, svg_text, tree_to_png
from pictures.scene import scene_after, scene_of_position

__all__ = ["phase_picture", "position_picture", "record_picture"]

#: The largest picture for mail: with the text and the record, a results mail stays
#: under 120 kB (base64 makes the PNG 4/3 of this).
MAIL_PNG_BYTES = 72_000
#: ... and has at most the standard map's pixels (a bigger map is drawn smaller at once).
MAIL_PNG_PIXELS = 1_100_000
SVG_TYPE = "image/svg+xml"
PNG_TYPE = "image/png"


def _files(stem: str, svg: bytes, png: bytes) -> tuple[FileAttachment, FileAttachment]:
    """(PNG, SVG): the PNG first, so that a mail client shows it right after the text."""
    return (FileAttachment(f"{stem}.png", png, PNG_TYPE, disposition="inline"),
            FileAttachment(f"{stem}.svg", svg, SVG_TYPE))


@lru_cache(maxsize=32)  # a judge plays a few maps; the shipped files do not change under it
def _board(map_name: str) -> tuple[Variant, Geometry]:
    """The map and its drawing, read once: parsing them cost up to 30 ms a picture."""
    return maps.load(map_name), maps.load_geometry(map_name)


@lru_cache(maxsize=8)  # the scheduler needs one at a time (drawn ahead, then sent); about 250 kB each
def _drawing(map_name: str, title: str, phase: str, after_doc: str, results_doc: str) -> tuple[bytes, bytes]:
    """(SVG, PNG) of the board ``after_doc`` (canonical JSON) with ``results_doc`` drawn;
    empty ``phase``: the position alone, no orders."""
    variant, geometry = _board(map_name)
    after = position_from_json(variant, json.loads(after_doc))
    if phase:
        scene = scene_after(variant, phase, after, json.loads(results_doc), title=title)
    else:
        scene = scene_of_position(variant, after, title=title)
    tree = draw_tree(variant, geometry, scene)  # one drawing: the SVG is written from it, the PNG drawn from it
    return svg_text(tree).encode("utf-8"), tree_to_png(tree, max_bytes=MAIL_PNG_BYTES, max_pixels=MAIL_PNG_PIXELS)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _result_item(result: OrderResult | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(result, Mapping):
        return {k: result[k] for k in ("power", "order", "result") if k in result}
    return {"power": result.power, "order": result.order, "result": result.result}


def phase_picture(game: str, variant: Variant, phase: str, after: Position,
                  results: Iterable[OrderResult | Mapping[str, Any]]) -> tuple[FileAttachment, FileAttachment]:
    """The board after ``phase`` with its results drawn: (PNG file, SVG file)."""
    svg, png = _drawing(variant.name, f"{game} {phase}", phase, _canonical(position_to_json(after, variant.name)),
                        _canonical([_result_item(r) for r in results]))
    return _files(f"{game}-{phase}", svg, png)


def record_picture(game: str, variant: Variant, record: PhaseRecord) -> tuple[FileAttachment, FileAttachment]:
    """The picture of a processed phase, from its record (the same as its results broadcast's)."""
    after = position_from_json(variant, record.position_after)
    return phase_picture(game, variant, record.phase, after, record.results or [])


def position_picture(game: str, variant: Variant, position: Position) -> tuple[FileAttachment, FileAttachment]:
    """A position with no orders (a game that has started but has no processed phase)."""
    phase = str(position.phase)
    svg, png = _drawing(variant.name, f"{game} {phase}", "", _canonical(position_to_json(position, variant.name)), "")
    return _files(f"{game}-{phase}", svg, png)
