"""The files a results broadcast carries (and the text that names them): the verifiable
record of judge/record.py, which this module attaches, is one of them.

``results_extras`` is called by the turns layer's ``process_phase`` just before it
broadcasts the results: it returns the text to add to the results and the files to
attach: ``<game>-<phase>.json`` (position before, orders, results, digests) for every
game, for a sealed game each power's commitment, revealed orders and verdict, and the
picture of the board after the phase (``<game>-<phase>.svg`` and ``.png``,
judge/phases/pictures.py).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any, Mapping, Sequence

from sqlalchemy.orm import Session

from adjudicator.api import position_digest
from adjudicator.jsonio import results_to_json
from adjudicator.results import Adjudication
from adjudicator.types import Position, Variant
from maps import GeometryError, UnknownMapError
from judge.phases.pictures import phase_picture
from judge.phases.sealed_flow import is_sealed, sealed_results
from judge.record import phase_document, record_name
from judge.publish.signing import FileAttachment
from judge.store.models_game import Game

__all__ = ["record_attachment", "results_extras"]

log = logging.getLogger("judge.records")


def record_attachment(document: Mapping[str, Any]) -> FileAttachment:
    data = (json.dumps(document, indent=1, sort_keys=True, ensure_ascii=True) + "\n").encode("ascii")
    return FileAttachment(record_name(str(document["game"]), str(document["phase"])), data, "application/json")


def results_extras(session: Session, game: Game, *, variant: Variant, before: Position,
                   before_doc: Mapping[str, Any], orders: Mapping[str, Sequence[str]],
                   adjudication: Adjudication, results: Sequence[Mapping[str, Any]],
                   engine_rules: frozenset[str], now: datetime) -> tuple[str, tuple[FileAttachment, ...]]:
    """(text to append to the results, files to attach) for the phase just adjudicated."""
    extensions: dict[str, Any] = {}
    text = ""
    files: list[FileAttachment] = []
    if is_sealed(game):
        sealed = sealed_results(session, game, variant, before, now)
        extensions["sealed"] = sealed.section
        text = sealed.text
        files.extend(sealed.attachments)
    input_doc = dict(before_doc)
    input_doc["map"] = game.map_name
    input_doc["orders"] = {power: list(lines) for power, lines in sorted(orders.items())}
    input_doc["rules"] = sorted(engine_rules)
    output_doc = results_to_json(before.phase, adjudication)
    output_doc["results"] = [dict(item) for item in results]
    document = phase_document(
        game=game.name, phase=str(before.phase), input_doc=input_doc, output_doc=output_doc,
        digest_before=position_digest(before), digest_after=position_digest(adjudication.position),
        extensions=extensions,
    )
    files.append(record_attachment(document))
    # The picture, from what the record holds (MAP draws it again from the record); usually
    # drawn already, before this transaction (judge/phases/draw_ahead.py).  The PNG alone:
    # every player gets this mail, which stays under 120 kB so (MAP game phase sends the SVG).
    try:  # first, so that the PNG shows right after the text
        png, _svg = phase_picture(game.name, variant, str(before.phase), adjudication.position, results)
        files.insert(0, png)
    except (UnknownMapError, GeometryError):  # a map shipped without its drawing: results go out all the same
        log.exception("game %s %s: no picture (map %r has no usable geometry)", game.name, before.phase, variant.name)
    return text, tuple(files)
