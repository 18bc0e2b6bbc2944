"""The picture of the board goes with every results broadcast, and MAP sends it again.

Real path: mail through the worker, a scheduler pass processing the phase, outbox rows
read back as messages.  The picture is drawn once per phase (every copy of the
broadcast shares one body), and MAP draws the same picture from the phase's record.
"""

from __future__ import annotations

import io
import math
import threading
import xml.etree.ElementTree as ET

from PIL import Image
from sqlalchemy import text

import judge.commands.info as info_commands
import judge.phases.pictures as service_pictures
import maps
import pictures.png as png_scales
from pictures import palette, voronoi
from pictures.svg import picture_size
from tests.judge.scheduler.conftest import create_game, fill_game
from tests.judge.scheduler.driver import HOLDS
from tests.judge.commands.conftest import MASTER

MOVES = dict(HOLDS, FRANCE=["A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO"],
             GERMANY=["A MUN - BUR", "A BER - KIE", "F KIE - DEN"])


def _files(message) -> dict[str, tuple[str, str, bytes]]:
    """filename -> (content type, disposition, bytes) of a mail's attached files."""
    return {part.get_filename(): (part.get_content_type(), part.get_content_disposition(), part.get_payload(decode=True))
            for part in message.walk() if part.get_filename()}


def _play_spring(judge):
    create_game(judge)
    seats = fill_game(judge)
    for power, seat in seats.items():
        judge.orders(seat, MOVES[power])
    judge.tick()  # the settle window
    return seats, judge.tick()


def _others_can_write(judge) -> bool:
    """Whether another thread's write transaction goes through now (SQLite writers take turns)."""
    written = threading.Event()

    def write() -> None:
        with judge.store.core_unit_of_work() as connection:
            connection.execute(text("SELECT 1"))
        written.set()

    threading.Thread(target=write, daemon=True).start()
    return written.wait(5.0)


def test_every_results_copy_carries_the_one_picture_drawn_outside_the_transaction(judge, monkeypatch):
    service_pictures._drawing.cache_clear()
    png_scales._FITTED.clear()  # a busier picture drawn earlier in this process may have left a smaller scale
    drawn: list[bool] = []
    real_draw = service_pictures.draw_tree

    def spying_draw(*arguments):
        drawn.append(_others_can_write(judge))
        return real_draw(*arguments)

    monkeypatch.setattr(service_pictures, "draw_tree", spying_draw)
    _, out = _play_spring(judge)
    results = out.of_kind("results")
    assert len(results) == 8 and drawn == [True]  # drawn once, while other mail could be stored
    pictures = [_files(mail.message) for mail in results]
    assert all(p == pictures[0] for p in pictures)
    assert list(pictures[0]) == ["g1-S1901M.png", "g1-S1901M.json"]  # the PNG right after the text; no SVG
    assert all(len(mail.message.as_bytes()) <= 120_000 for mail in results)
    svg_type, svg_disposition, svg = _files(judge.send("someone@example.net", "MAP g1\n").reply.message)["g1-S1901M.svg"]
    png_type, png_disposition, png = pictures[0]["g1-S1901M.png"]
    assert (svg_type, svg_disposition, png_type, png_disposition) == ("image/svg+xml", "attachment", "image/png", "inline")
    root = ET.fromstring(svg)
    assert sum("unit" in (e.get("class") or "").split() for e in root.iter()) == 22
    moves = {e.get("data-location"): e.get("class") for e in root.iter() if "move" in (e.get("class") or "").split()}
    assert moves == {"PAR": "order move", "MUN": "order move failed", "BER": "order move", "KIE": "order move",
                     "BRE": "order move"}
    image = Image.open(io.BytesIO(png))
    geometry = maps.load_geometry("standard")
    width, height = picture_size(maps.load("standard"), geometry)
    # the whole picture, drawn smaller only as much as the mail's cap on its bytes asks
    assert image.width >= 0.8 * width and abs(image.width / image.height - width / height) < 0.01


def test_map_answers_with_the_picture_of_a_past_phase(judge):
    _, out = _play_spring(judge)
    broadcast = _files(out.of_kind("results")[0].message)
    reply = judge.send("someone@example.net", "MAP g1 S1901M\n").reply
    assert "the map of game 'g1' after S1901M is attached" in reply.body
    assert set(_files(reply.message)) == {"g1-S1901M.svg", "g1-S1901M.png"}
    assert _files(reply.message)["g1-S1901M.png"] == broadcast["g1-S1901M.png"]
    latest = judge.send("someone@example.net", "MAP g1\n").reply
    assert _files(latest.message)["g1-S1901M.png"] == broadcast["g1-S1901M.png"]

    refused = judge.send("someone@example.net", "MAP g1 F1905M\n").reply.body
    assert "ERROR" in refused and "MAP g1 F1905M" in refused
    assert "has no processed phase F1905M (processed: S1901M)" in refused
    assert "MAP needs a game" in judge.send("someone@example.net", "MAP\n").reply.body


def test_map_before_any_phase_shows_the_start_and_owners(judge):
    create_game(judge)
    seats = fill_game(judge)
    seat = seats["FRANCE"]
    reply = judge.send(seat.address, f"SIGNON F@g1 {seat.password}\nMAP\n").reply
    assert "at the start (S1901M) is attached" in reply.body
    png = _files(reply.message)["g1-S1901M.png"][2]
    shape = maps.load_geometry("standard").provinces["PAR"]
    marks = [shape.unit, shape.label, shape.dislodged, *([shape.supply] if shape.supply else [])]
    # a point 70 % of the way from the unit to a corner, away from every mark and label
    outline = next(p for p in shape.parts if voronoi.contains(p, shape.unit))
    clear = next(q for q in ((shape.unit[0] + 0.7 * (c[0] - shape.unit[0]), shape.unit[1] + 0.7 * (c[1] - shape.unit[1]))
                             for c in outline) if all(math.dist(q, m) > 16 for m in marks))
    image = Image.open(io.BytesIO(png))
    scale = image.width / maps.load_geometry("standard").width  # a mail's picture may be drawn a little smaller
    point = (round(scale * clear[0]), round(scale * clear[1]))
    colours = palette.power_colors([p.name for p in maps.load("standard").powers], maps.load_geometry("standard").colors)
    expected = palette.to_rgb(palette.tint(colours["FRANCE"]))
    assert all(abs(a - b) <= 3 for a, b in zip(image.convert("RGB").getpixel(point), expected))


def test_a_phase_processed_by_the_master_is_drawn_in_its_mail_and_sent_once(judge):
    service_pictures._drawing.cache_clear()
    create_game(judge)
    fill_game(judge)
    out = judge.send(MASTER, "SIGNON master@g1 masterpw\nPROCESS!\n")
    results = out.of_kind("results")
    assert len(results) == 8
    assert all(_files(m.message)["g1-S1901M.png"][1] == "inline" for m in results)


def test_a_master_writing_map_and_a_map_name_still_sets_the_map(judge):
    create_game(judge, form=False)
    body = judge.send(MASTER, "SIGNON master@g1 masterpw\nMAP standard\n").reply.body
    assert "map: standard" in body


def test_results_go_out_without_a_picture_when_the_map_has_no_usable_drawing(judge, monkeypatch):
    service_pictures._drawing.cache_clear()
    service_pictures._board.cache_clear()  # the drawing is read again, and fails

    def broken(name):
        raise maps.GeometryError(f"{name}.geo.json: not JSON")

    monkeypatch.setattr(service_pictures.maps, "load_geometry", broken)
    _, out = _play_spring(judge)
    results = out.of_kind("results")
    assert len(results) == 8
    assert set(_files(results[0].message)) == {"g1-S1901M.json"}
    assert judge.game()["phase"] == "F1901M"


def test_a_reply_carries_each_picture_once_and_at_most_a_few(judge, monkeypatch):
    monkeypatch.setattr(info_commands, "MAX_PICTURES_PER_MAIL", 1)
    seats, _ = _play_spring(judge)
    create_game(judge, name="g2")
    fill_game(judge, "g2")  # started: its picture is the start
    seat = seats["ITALY"]
    reply = judge.send(seat.address, f"MAP g1 S1901M\nSIGNON I@g1 {seat.password}\nMAP\nMAP g2\n")
    names = [part.get_filename() for part in reply.reply.message.walk() if part.get_filename()]
    assert names == ["g1-S1901M.png", "g1-S1901M.svg"]  # MAP (the last phase) is the same picture
    assert reply.reply.body.count("is attached") == 2
    assert "at most 1 pictures in one reply: ask for this one in another mail" in reply.reply.body, reply.reply.body


def test_the_record_a_results_mail_carries_is_drawn_by_judge_render(judge, tmp_path):
    """A player saves ``g1-S1901M.json`` from the results mail and draws it (issue 29.12)."""
    from judge.cli import main

    _, out = _play_spring(judge)
    [results, *_] = out.of_kind("results")
    record = tmp_path / "g1-S1901M.json"
    record.write_bytes(_files(results.message)["g1-S1901M.json"][2])
    assert main(["render", "--out", str(tmp_path / "drawn.svg"), str(record)]) == 0
    root = ET.fromstring((tmp_path / "drawn.svg").read_text(encoding="utf-8"))
    moves = [e for e in root.iter() if "move" in (e.get("class") or "").split()]
    assert moves, "the phase's moves are drawn"
    assert main(["render", "--out", str(tmp_path / "drawn.png"), str(record)]) == 0
    assert (tmp_path / "drawn.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
