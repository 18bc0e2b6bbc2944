"""The picture of a phase as two files for a mail: ``<game>-<phase>.svg`` and ``.png``.

One drawing serves the results broadcast (``phase_picture``, called by records.py: every
copy of the broadcast shares the one signed body) and ``MAP game phase``
(``record_picture``, from the phase's record, which holds everything the broadcast's
picture was drawn from, so both are the same picture).  The PNG goes inline, for mail
clients that do not show SVG.

Drawing takes about as long as the rest of processing a phase, so the scheduler draws a
due game's picture *before* the game's write transaction (``draw_ahead``, read-only: on
SQLite writers take turns, and intake must not wait for a picture).  Drawings are kept
by what they show (``_drawing``: a pure function of its arguments, memoised), so the
transaction finds the picture already drawn; when it is not (a master's PROCESS, a sealed
game, orders changed in between) it is drawn there.  Either way each results mail goes
out once, with its picture.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any, Iterable, Mapping

from sqlalchemy.orm import Session

import maps
from adjudicator.jsonio import position_from_json, position_to_json
from adjudicator.results import OrderResult
from adjudicator.types import Position, Variant
from judge.services.signing import FileAttachment
from judge.store.models_game import ACTIVE, Game, PhaseRecord
from pictures import draw_svg, svg_to_png
from pictures.scene import scene_after, scene_of_position

__all__ = ["draw_ahead", "phase_picture", "position_picture", "record_picture"]

SVG_TYPE = "image/svg+xml"
PNG_TYPE = "image/png"


def _files(stem: str, svg: bytes, png: bytes) -> tuple[FileAttachment, FileAttachment]:
    return (FileAttachment(f"{stem}.svg", svg, SVG_TYPE),
            FileAttachment(f"{stem}.png", png, PNG_TYPE, disposition="inline"))


@lru_cache(maxsize=32)
def _drawing(map_name: str, title: str, phase: str, after_doc: str, results_doc: str) -> tuple[bytes, bytes]:
    """(SVG, PNG) of the board ``after_doc`` (canonical JSON) with ``results_doc`` drawn;
    empty ``phase``: the position alone, no orders."""
    variant = maps.load(map_name)
    after = position_from_json(variant, json.loads(after_doc))
    if phase:
        scene = scene_after(variant, phase, after, json.loads(results_doc), title=title)
    else:
        scene = scene_of_position(variant, after, title=title)
    svg = draw_svg(variant, maps.load_geometry(map_name), scene)
    return svg.encode("utf-8"), svg_to_png(svg)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _result_item(result: OrderResult | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(result, Mapping):
        return {k: result[k] for k in ("power", "order", "result") if k in result}
    return {"power": result.power, "order": result.order, "result": result.result}


def phase_picture(game: str, variant: Variant, phase: str, after: Position,
                  results: Iterable[OrderResult | Mapping[str, Any]]) -> tuple[FileAttachment, FileAttachment]:
    """The board after ``phase`` with its results drawn: (SVG file, PNG file)."""
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


def draw_ahead(session: Session, game_id: int, now: datetime) -> bool:
    """Draw the picture of a due game's phase if this scheduler pass is about to process it.

    Read-only (nothing is flushed; the session's transaction ends before drawing): the same decision
    and the same adjudication as the pass's transaction, whose ``phase_picture`` then finds
    the drawing made.  Sealed games are left to the transaction (their orders come from
    reveals checked there).  Returns whether a picture was drawn."""
    from judge.services.processing import adjudicate_current
    from judge.services.sealed_flow import is_sealed
    from judge.services.turnstate import progress_of, turn_state_and_seats
    from judge.turns import Action, decide

    game = session.get(Game, game_id)
    if game is None or game.status != ACTIVE or game.position is None or game.deadline is None or is_sealed(game):
        return False
    with session.no_autoflush:
        state, _ = turn_state_and_seats(session, game, now, progress=progress_of(session, game))
        if decide(state).action is not Action.PROCESS:
            return False
        done = adjudicate_current(session, game)
    name = game.name
    session.rollback()  # end the read before drawing: a reader can hold up SQLite writers
    phase_picture(name, done.variant, str(done.before.phase), done.after, done.results)
    return True
