"""The picture of a phase as two files for a mail: ``<game>-<phase>.svg`` and ``.png``.

One drawing serves the results broadcast (``phase_picture``, drawn once per phase: every
copy of the broadcast shares the one signed body) and ``MAP game phase``
(``record_picture``, from the phase's record, which holds everything the broadcast's
picture was drawn from, so both are the same picture).  The PNG goes inline, for mail
clients that do not show SVG.  Drawing is pure (pictures/); this module only names the
files and reads the map's geometry (maps.load_geometry).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import maps
from adjudicator.jsonio import position_from_json
from adjudicator.results import OrderResult
from adjudicator.types import Position, Variant
from judge.services.signing import FileAttachment
from judge.store.models_game import PhaseRecord
from pictures import draw_svg, svg_to_png
from pictures.scene import Scene, scene_after, scene_of_position

__all__ = ["phase_picture", "position_picture", "record_picture"]

SVG_TYPE = "image/svg+xml"
PNG_TYPE = "image/png"


def _files(variant: Variant, scene: Scene, stem: str) -> tuple[FileAttachment, FileAttachment]:
    svg = draw_svg(variant, maps.load_geometry(variant.name), scene)
    return (FileAttachment(f"{stem}.svg", svg.encode("utf-8"), SVG_TYPE),
            FileAttachment(f"{stem}.png", svg_to_png(svg), PNG_TYPE, disposition="inline"))


def phase_picture(game: str, variant: Variant, phase: str, after: Position,
                  results: Iterable[OrderResult | Mapping[str, Any]]) -> tuple[FileAttachment, FileAttachment]:
    """The board after ``phase`` with its results drawn: (SVG file, PNG file)."""
    return _files(variant, scene_after(variant, phase, after, results, title=f"{game} {phase}"), f"{game}-{phase}")


def record_picture(game: str, variant: Variant, record: PhaseRecord) -> tuple[FileAttachment, FileAttachment]:
    """The picture of a processed phase, from its record (the same as its results broadcast's)."""
    after = position_from_json(variant, record.position_after)
    return phase_picture(game, variant, record.phase, after, record.results or [])


def position_picture(game: str, variant: Variant, position: Position) -> tuple[FileAttachment, FileAttachment]:
    """A position with no orders (a game that has started but has no processed phase)."""
    phase = str(position.phase)
    return _files(variant, scene_of_position(variant, position, title=f"{game} {phase}"), f"{game}-{phase}")
