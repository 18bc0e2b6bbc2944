"""A Scene drawn as SVG text on a map's Geometry (xml.etree: plain elements, no scripts).

Layers, bottom up: provinces (sea, land, or an owned centre's province tinted with its
owner's colour; each a path of its outlines, stroked: the borders; named on hover by a
``title``; drawn with hard edges, ``crispEdges``, so that the PNG keeps few colours),
the shore (land against sea, heavier), links (a dotted line between
adjacent provinces that do not touch), supply-centre marks, orders, units, dislodged
units (on their province's own spot, red outline), removed units (faded, crossed),
then the labels, on top so that nothing covers them.  Below the map: the title, a key
of powers (colour, initials where colours alone cannot keep them apart, centres) and
a key of the order symbols.  Every element that stands for something carries a class
(``province``, ``unit``, ``order move failed``, ``link``...) and data attributes naming
it, so tests and style sheets can find it.  Failed orders are dashed and crossed out.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from functools import lru_cache
from typing import Mapping, Sequence

from adjudicator.types import Terrain, Variant, province_of
from pictures import orders as kinds
from pictures import palette
from pictures.geometry import Geometry, Point, Segment
from pictures.orders import DrawnOrder
from pictures.scene import Scene

UNIT_RADIUS = 10.0
KEY_COLUMN = 150.0  # the key below the map: one column per power, wrapped to the map's width
KEY_ROW = 18.0
KEY_MARGIN = 8.0
TITLE_HEIGHT = 22.0
SYMBOL_ROW = 20.0
#: The order symbols' key: (symbol, caption), drawn in this order below the powers.
SYMBOLS = (("move", "move"), ("support_move", "support a move"), ("support_hold", "support to hold"),
           ("convoy", "convoy"), ("hold", "hold"), ("failed", "failed"), ("dislodged", "dislodged"),
           ("retreat", "retreat"), ("removed", "removed/disbanded"), ("build", "build"))
SYMBOL_COLUMN = 165.0
FONT = "DejaVu Sans, Verdana, sans-serif"
_SVG = "http://www.w3.org/2000/svg"


def _f(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _points(points: Sequence[Point]) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in points)


@lru_cache(maxsize=4096)  # a map's outlines are the same in every picture of it: written once
def _outlines(parts: tuple[tuple[Point, ...], ...]) -> str:
    """Path data of a province's rings, each closed."""
    return "".join(f"M{_points(part)}Z" for part in parts)


@lru_cache(maxsize=64)
def _segments(segments: tuple[Segment, ...]) -> str:
    """Path data of the segments; one that starts where the last ended goes on from it
    (fewer points for the SVG reader: the shore comes mostly in runs)."""
    data: list[str] = []
    end: tuple[float, float] | None = None
    for x0, y0, x1, y1 in segments:
        if end != (x0, y0):
            data.append(f"M{_f(x0)},{_f(y0)}")
        data.append(f"L{_f(x1)},{_f(y1)}")
        end = (x1, y1)
    return "".join(data)


def _el(parent: ET.Element, tag: str, **attributes: str) -> ET.Element:
    return ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): v for k, v in attributes.items()})


def initials(names: Sequence[str]) -> dict[str, str]:
    """A short mark for each power, distinct from the others': the name's first three
    letters, or its first letters and its last where three do not tell them apart."""
    marks = {name: name[:3] for name in names}
    for name in names:
        if sum(1 for m in marks.values() if m == marks[name]) > 1:
            marks[name] = name[:2] + name[-1]
    return marks


class _Drawing:
    """One SVG being drawn: the geometry, the colours, and the layers."""

    def __init__(self, variant: Variant, geometry: Geometry) -> None:
        self.variant = variant
        self.geometry = geometry
        names = [p.name for p in variant.powers]
        self.colors = palette.power_colors(names, geometry.colors)
        # beyond the palette's dozen, colours alone cannot keep powers apart
        self.initials = initials(names) if len(names) > len(palette.POWERS) else {}
        width, height = picture_size(variant, geometry)
        self.root = ET.Element("svg", {
            "xmlns": _SVG, "version": "1.1",
            "width": _f(width), "height": _f(height),
            "viewBox": f"0 0 {_f(width)} {_f(height)}",
        })

    def layer(self, name: str) -> ET.Element:
        return _el(self.root, "g", id=name)

    def color(self, power: str) -> str:
        return self.colors.get(power, palette.INK)

    # -- the board ----------------------------------------------------------------------

    def board(self, centers: Mapping[str, frozenset[str]]) -> None:
        owner = {centre: power for power, owned in centers.items() for centre in owned}
        geometry = self.geometry
        _el(self.root, "rect", x="0", y="0", width=_f(geometry.width), height=_f(geometry.height), fill=palette.IMPASSABLE)
        # Flat fills with hard edges: the PNG keeps few colours and stays small at full
        # size; the units, orders and labels above stay smooth.
        cells = self.layer("provinces")
        cells.set("shape-rendering", "crispEdges")
        cells.set("stroke", palette.BORDER)
        cells.set("stroke-width", "1")
        for outline in geometry.impassable:
            _el(cells, "polygon", class_="impassable", points=_points(outline), fill=palette.IMPASSABLE,
                stroke=palette.BORDER, stroke_width="1")
        for abbrev, shape in sorted(geometry.provinces.items()):
            province = self.variant.provinces.get(abbrev)
            if province is None:
                continue
            holder = owner.get(abbrev)
            if holder is not None:
                fill = palette.tint(self.color(holder))
            else:
                fill = palette.SEA if province.terrain is Terrain.SEA else palette.LAND
            cell = _el(cells, "path", class_="province", data_province=abbrev,
                       d=_outlines(shape.parts), fill=fill)
            ET.SubElement(cell, "title").text = province.name
        if geometry.borders:  # a hand-made geometry may draw borders apart from the outlines
            _el(self.root, "path", class_="border", d=_segments(geometry.borders), fill="none", stroke=palette.BORDER,
                stroke_width="1", shape_rendering="crispEdges")
        _el(self.root, "path", class_="shore", d=_segments(geometry.shore), fill="none", stroke=palette.INK,
            stroke_width="2", stroke_linecap="round", stroke_linejoin="round", shape_rendering="crispEdges")
        links = self.layer("links")
        for (first, second), (a, b) in geometry.link_lines.items():
            link = _el(links, "line", class_="link", data_provinces=f"{first} {second}", x1=_f(a[0]), y1=_f(a[1]),
                       x2=_f(b[0]), y2=_f(b[1]), stroke=palette.INK, stroke_width="2", stroke_dasharray="1 3",
                       stroke_linecap="round")
            ET.SubElement(link, "title").text = f"{first} and {second} are adjacent"
        marks = self.layer("centres")
        for abbrev, shape in sorted(geometry.provinces.items()):
            province = self.variant.provinces.get(abbrev)
            if province is not None and province.supply_center and shape.supply is not None:
                holder = owner.get(abbrev)
                _el(marks, "circle", class_="centre", data_province=abbrev, data_owner=holder or "",
                    cx=_f(shape.supply[0]), cy=_f(shape.supply[1]), r="5",
                    fill=self.color(holder) if holder else palette.UNOWNED_CENTRE, stroke=palette.INK, stroke_width="1.2")

    def labels(self) -> None:
        """Province names and split coasts' names, drawn last: the geometry places them
        off every unit and mark, so on top they cover nothing and nothing covers them."""
        labels = self.layer("labels")
        labels.set("font-family", FONT)
        labels.set("text-anchor", "middle")
        labels.set("fill", palette.INK)
        for abbrev, shape in sorted(self.geometry.provinces.items()):
            if abbrev not in self.variant.provinces:
                continue
            _el(labels, "text", class_="label", data_province=abbrev, x=_f(shape.label[0]), y=_f(shape.label[1] + 3.5),
                font_size="10").text = abbrev
            for coast, at in sorted(shape.coast_labels.items()):
                _el(labels, "text", class_="coast", data_province=abbrev, data_coast=coast, x=_f(at[0]),
                    y=_f(at[1] + 2.5), font_size="7", font_style="italic").text = coast

    # -- units --------------------------------------------------------------------------

    def unit(self, parent: ET.Element, kind: str, power: str, at: Point, state: str = "") -> None:
        """A unit glyph; ``state`` "dislodged" outlines it in red, "removed" fades it
        (a unit no longer on the board: not of class ``unit``)."""
        x, y = at
        attributes = {"data_power": power, "fill": self.color(power), "stroke": palette.INK, "stroke_width": "1.5"}
        group = parent
        name = f"unit {'army' if kind == 'A' else 'fleet'}" if power else "sample"  # no power: the key's sample
        if state == "dislodged":
            attributes.update(stroke=palette.FAILED, stroke_width="2.5")
            name += " dislodged" if power else ""
        elif state == "removed":
            group = _el(parent, "g", class_="removed", data_power=power, opacity="0.45")
            name = "ghost"
        if kind == "A":
            glyph = _el(group, "circle", class_=name, cx=_f(x), cy=_f(y), r=_f(UNIT_RADIUS), **attributes)
        else:
            hull = f"M{_f(x - 12)},{_f(y + 1)} L{_f(x + 12)},{_f(y + 1)} L{_f(x + 7)},{_f(y + 8)} L{_f(x - 7)},{_f(y + 8)} Z"
            sail = f"M{_f(x - 2)},{_f(y - 1)} L{_f(x - 2)},{_f(y - 11)} L{_f(x + 8)},{_f(y - 1)} Z"
            glyph = _el(group, "path", class_=name, d=f"{hull} {sail}", **attributes)
        if power:
            what = f"{power} {'army' if kind == 'A' else 'fleet'}"
            ET.SubElement(glyph, "title").text = f"{what}, {state}" if state else what
        if power in self.initials:
            _el(group, "text", class_="initials", data_power=power, x=_f(x), y=_f(y + (2.5 if kind == "A" else 6.5)),
                font_family=FONT, font_size="6.5" if kind == "A" else "5.5", font_weight="bold", text_anchor="middle",
                fill=palette.ink_on(self.color(power))).text = self.initials[power]

    def dislodged_point(self, location: str) -> Point:
        """Where a unit dislodged from ``location`` stands: its province's own spot."""
        return self.geometry.provinces[province_of(location)].dislodged

    # -- orders -------------------------------------------------------------------------

    def line(self, parent: ET.Element, start: Point, end: Point, order: DrawnOrder, dash: str | None,
             gap_start: float, gap_end: float, head: bool, width: float = 3.0, colour: str | None = None) -> Point:
        """A line from ``start`` to ``end`` shortened by the gaps, with an arrowhead when
        ``head``; returns where it ends."""
        length = math.dist(start, end)
        if length <= gap_start + gap_end + 1:
            return end
        ux, uy = (end[0] - start[0]) / length, (end[1] - start[1]) / length
        a = (start[0] + ux * gap_start, start[1] + uy * gap_start)
        b = (end[0] - ux * gap_end, end[1] - uy * gap_end)
        colour = colour or self.color(order.power)
        shaft_end = (b[0] - ux * 9, b[1] - uy * 9) if head else b
        attributes = {"stroke": colour, "stroke_width": _f(width), "stroke_linecap": "round"}
        if order.failed:
            dash = dash or "7 5"
        if dash:
            attributes["stroke_dasharray"] = dash
        _el(parent, "line", x1=_f(a[0]), y1=_f(a[1]), x2=_f(shaft_end[0]), y2=_f(shaft_end[1]), **attributes)
        if head:
            left = (b[0] - ux * 11 - uy * 6, b[1] - uy * 11 + ux * 6)
            right = (b[0] - ux * 11 + uy * 6, b[1] - uy * 11 - ux * 6)
            _el(parent, "polygon", points=_points([b, left, right]), fill=colour, stroke=palette.INK, stroke_width="0.8")
        return b

    def cross(self, parent: ET.Element, at: Point, size: float = 6.0, colour: str = palette.FAILED) -> None:
        x, y = at
        _el(parent, "path", class_="cross",
            d=f"M{_f(x - size)},{_f(y - size)} L{_f(x + size)},{_f(y + size)} M{_f(x - size)},{_f(y + size)} L{_f(x + size)},{_f(y - size)}",
            stroke=colour, stroke_width="3", stroke_linecap="round")

    def ring(self, parent: ET.Element, at: Point, colour: str, radius: float, width: float, dash: str | None = None) -> None:
        attributes = {"stroke_dasharray": dash} if dash else {}
        _el(parent, "circle", cx=_f(at[0]), cy=_f(at[1]), r=_f(radius), fill="none", stroke=colour,
            stroke_width=_f(width), **attributes)

    def order(self, parent: ET.Element, order: DrawnOrder, dislodged: frozenset[str]) -> None:
        if order.kind == kinds.WAIVE:
            return
        group = _el(parent, "g", class_=f"order {order.kind}" + (" failed" if order.failed else ""),
                    data_power=order.power, data_location=order.location)
        point = self.geometry.point
        here = point(order.location)
        if order.kind == kinds.HOLD:
            self.ring(group, here, self.color(order.power), UNIT_RADIUS + 4, 2.0, "7 5" if order.failed else None)
        elif order.kind == kinds.MOVE:
            end = self.line(group, here, point(order.target or ""), order, None, UNIT_RADIUS + 2, UNIT_RADIUS + 1, head=True)
            if order.failed:
                self.cross(group, end)
        elif order.kind == kinds.SUPPORT_HOLD:
            there = point(order.target or "")
            self.line(group, here, there, order, "3 4", UNIT_RADIUS + 2, UNIT_RADIUS + 5, head=False, width=2.0)
            self.ring(group, there, self.color(order.power), UNIT_RADIUS + 5, 2.0, "3 3")
            if order.failed:
                self.cross(group, ((here[0] + there[0]) / 2, (here[1] + there[1]) / 2), 5)
        elif order.kind in (kinds.SUPPORT_MOVE, kinds.CONVOY):
            origin, goal = point(order.target or ""), point(order.target_to or "")
            share = 0.6 if order.kind == kinds.SUPPORT_MOVE else 0.5
            aim = (origin[0] + share * (goal[0] - origin[0]), origin[1] + share * (goal[1] - origin[1]))
            dash = "3 4" if order.kind == kinds.SUPPORT_MOVE else "1 4"
            end = self.line(group, here, aim, order, dash, UNIT_RADIUS + 2, 0, head=False, width=2.0 if dash == "3 4" else 3.0)
            _el(group, "circle", cx=_f(end[0]), cy=_f(end[1]), r="3", fill=self.color(order.power), stroke=palette.INK,
                stroke_width="0.8")
            if order.failed:
                self.cross(group, ((here[0] + end[0]) / 2, (here[1] + end[1]) / 2), 5)
        elif order.kind == kinds.RETREAT:
            start = self.dislodged_point(order.location) if order.location in dislodged else here
            end = self.line(group, start, point(order.target or ""), order, "10 3 2 3", UNIT_RADIUS, UNIT_RADIUS + 1, head=True)
            if order.failed:
                self.cross(group, end)
        elif order.kind == kinds.DISBAND:
            # the unit is gone from the board after the phase: drawn faded under its cross
            at = self.dislodged_point(order.location) if order.location in dislodged else here
            self.unit(group, order.unit_kind, order.power, at, "removed")
            self.cross(group, at, 9)
        elif order.kind == kinds.BUILD:
            self.ring(group, here, palette.FAILED if order.failed else palette.BUILT, UNIT_RADIUS + 5, 3.0)

    def key(self, centers: Mapping[str, frozenset[str]], title: str) -> None:
        """Below the map: the title; each power's colour (and initials), name and number
        of centres; each order symbol and what it means."""
        group = self.layer("key")
        top = self.geometry.height
        _el(group, "rect", x="0", y=_f(top), width=_f(self.geometry.width), height=_f(_key_height(self.variant, self.geometry)),
            fill="#ffffff", stroke=palette.INK, stroke_width="1")
        _el(group, "text", class_="title", x=_f(KEY_MARGIN), y=_f(top + 17), font_family=FONT, font_size="15",
            font_weight="bold", fill=palette.INK).text = title
        top += TITLE_HEIGHT
        columns = _key_columns(self.geometry)
        for index, power in enumerate(self.variant.powers):
            x = KEY_MARGIN + (index % columns) * KEY_COLUMN
            y = top + KEY_MARGIN + (index // columns) * KEY_ROW
            _el(group, "rect", class_="key", data_power=power.name, x=_f(x), y=_f(y), width="12", height="12",
                fill=self.color(power.name), stroke=palette.INK, stroke_width="1")
            mark = f"{self.initials[power.name]}: " if power.name in self.initials else ""
            label = _el(group, "text", x=_f(x + 17), y=_f(y + 10.5), font_family=FONT, font_size="11", fill=palette.INK)
            label.text = f"{mark}{power.name} {len(centers.get(power.name, ()))} SC"
        self.symbols(group, top + KEY_MARGIN + _rows(len(self.variant.powers), columns) * KEY_ROW + 2)

    def symbols(self, parent: ET.Element, top: float) -> None:
        """The key of order symbols, each drawn as the map draws it, in ink."""
        columns = _symbol_columns(self.geometry)
        ink = palette.INK
        for index, (symbol, caption) in enumerate(SYMBOLS):
            x = KEY_MARGIN + (index % columns) * SYMBOL_COLUMN
            y = top + (index // columns) * SYMBOL_ROW + 10
            group = _el(parent, "g", class_="legend", data_symbol=symbol)
            start, end = (x + 2, y), (x + 44, y)
            order = DrawnOrder("", symbol, "A", "")
            if symbol in ("move", "retreat", "failed"):
                failed = DrawnOrder("", symbol, "A", "", result="bounce") if symbol == "failed" else order
                self.line(group, start, end, failed, "10 3 2 3" if symbol == "retreat" else None, 0, 0, head=True, colour=ink)
                if symbol == "failed":
                    self.cross(group, end)
            elif symbol in ("support_move", "convoy"):
                support = symbol == "support_move"
                self.line(group, start, end, order, "3 4" if support else "1 4", 0, 0, head=False,
                          width=2.0 if support else 3.0, colour=ink)
                _el(group, "circle", cx=_f(end[0]), cy=_f(end[1]), r="3", fill=ink, stroke=ink, stroke_width="0.8")
            elif symbol == "support_hold":
                self.line(group, start, (x + 30, y), order, "3 4", 0, 0, head=False, width=2.0, colour=ink)
                self.ring(group, (x + 38, y), ink, 7, 2.0, "3 3")
            elif symbol == "hold":
                self.ring(group, (x + 22, y), ink, 8, 2.0)
            elif symbol in ("dislodged", "removed"):
                self.unit(group, "A", "", (x + 22, y), symbol)
                if symbol == "removed":
                    self.cross(group, (x + 22, y), 9)
            elif symbol == "build":
                self.ring(group, (x + 22, y), palette.BUILT, UNIT_RADIUS - 1, 3.0)
            _el(group, "text", x=_f(x + 52), y=_f(y + 4), font_family=FONT, font_size="11", fill=ink).text = caption


def _rows(count: int, columns: int) -> int:
    return -(-count // columns)


def _key_columns(geometry: Geometry) -> int:
    return max(1, int((geometry.width - 2 * KEY_MARGIN) // KEY_COLUMN))


def _symbol_columns(geometry: Geometry) -> int:
    return max(1, int((geometry.width - 2 * KEY_MARGIN) // SYMBOL_COLUMN))


def _key_height(variant: Variant, geometry: Geometry) -> float:
    powers = _rows(len(variant.powers), _key_columns(geometry)) * KEY_ROW
    symbols = _rows(len(SYMBOLS), _symbol_columns(geometry)) * SYMBOL_ROW
    return TITLE_HEIGHT + KEY_MARGIN + powers + 2 + symbols + KEY_MARGIN


def picture_size(variant: Variant, geometry: Geometry) -> tuple[float, float]:
    """(width, height) of a picture: the map, and the key below it."""
    return geometry.width, geometry.height + _key_height(variant, geometry)


def draw_svg(variant: Variant, geometry: Geometry, scene: Scene) -> str:
    """The scene as an SVG document (text): the board after the phase, orders drawn."""
    return svg_text(draw_tree(variant, geometry, scene))


def svg_text(root: ET.Element) -> str:
    """The SVG document of a ``draw_tree`` element."""
    return ET.tostring(root, encoding="unicode", xml_declaration=False)


def draw_tree(variant: Variant, geometry: Geometry, scene: Scene) -> ET.Element:
    """The scene as an SVG element tree (``svg_text`` writes it; ``pictures.png.tree_to_png``
    draws it): the one drawing both the SVG and the PNG are made from."""
    drawing = _Drawing(variant, geometry)
    drawing.board(scene.centers)
    dislodged_places = frozenset(str(d.unit.location) for d in scene.dislodged)
    retreating = {o.location for o in scene.orders if o.kind in (kinds.RETREAT, kinds.DISBAND)}
    orders = drawing.layer("orders")
    for order in scene.orders:
        drawing.order(orders, order, dislodged_places | retreating)
    units = drawing.layer("units")
    for unit in scene.units:
        drawing.unit(units, unit.kind.value, unit.power, geometry.point(unit.location))
    for entry in scene.dislodged:
        drawing.unit(units, entry.unit.kind.value, entry.unit.power, drawing.dislodged_point(entry.unit.location), "dislodged")
    drawing.labels()
    drawing.key(scene.centers, scene.title)
    return drawing.root
