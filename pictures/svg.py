"""A Scene drawn as SVG text on a map's Geometry (xml.etree: plain elements, no scripts).

Layers, bottom up: provinces (sea, land, or an owned centre's province tinted with its
owner's colour), supply-centre marks (the owner's colour, white when unowned), labels,
orders, units, dislodged units (beside their province, red outline), the title; below
the map, a key: each power's colour, name and number of supply centres.
Every element that stands for something carries a class (``province``, ``unit``,
``order move failed``...) and data attributes naming it, so tests and style sheets
can find it.  Failed orders are dashed and crossed out in red.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Mapping

from adjudicator.types import Terrain, Variant
from pictures import orders as kinds
from pictures import palette
from pictures.geometry import Geometry, Point
from pictures.orders import DrawnOrder
from pictures.scene import Scene

UNIT_RADIUS = 10.0
KEY_COLUMN = 150.0  # the key below the map: one column per power, wrapped to the map's width
KEY_ROW = 18.0
KEY_MARGIN = 8.0
DISLODGED_OFFSET = (15.0, -15.0)
FONT = "DejaVu Sans, Verdana, sans-serif"
_SVG = "http://www.w3.org/2000/svg"


def _f(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _points(points: tuple[Point, ...] | list[Point]) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in points)


def _el(parent: ET.Element, tag: str, **attributes: str) -> ET.Element:
    return ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): v for k, v in attributes.items()})


class _Drawing:
    """One SVG being drawn: the geometry, the colours, and the layers."""

    def __init__(self, variant: Variant, geometry: Geometry) -> None:
        self.variant = variant
        self.geometry = geometry
        self.colors = palette.power_colors([p.name for p in variant.powers], geometry.colors)
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
        _el(self.root, "rect", x="0", y="0", width=_f(self.geometry.width), height=_f(self.geometry.height),
            fill=palette.IMPASSABLE)
        cells = self.layer("provinces")
        for outline in self.geometry.impassable:
            _el(cells, "polygon", class_="impassable", points=_points(outline), fill=palette.IMPASSABLE,
                stroke=palette.BORDER, stroke_width="1")
        marks = self.layer("centres")
        labels = self.layer("labels")
        labels.set("font-family", FONT)
        labels.set("font-size", "10")
        labels.set("text-anchor", "middle")
        labels.set("fill", palette.INK)
        for abbrev, shape in sorted(self.geometry.provinces.items()):
            province = self.variant.provinces.get(abbrev)
            if province is None:
                continue
            holder = owner.get(abbrev)
            if holder is not None:
                fill = palette.tint(self.color(holder))
            else:
                fill = palette.SEA if province.terrain is Terrain.SEA else palette.LAND
            _el(cells, "polygon", class_="province", data_province=abbrev, points=_points(shape.outline),
                fill=fill, stroke=palette.BORDER, stroke_width="1")
            if province.supply_center and shape.supply is not None:
                _el(marks, "circle", class_="centre", data_province=abbrev, data_owner=holder or "",
                    cx=_f(shape.supply[0]), cy=_f(shape.supply[1]), r="5",
                    fill=self.color(holder) if holder else palette.UNOWNED_CENTRE, stroke=palette.INK, stroke_width="1.2")
            text = _el(labels, "text", x=_f(shape.label[0]), y=_f(shape.label[1] + 3.5))
            text.text = abbrev

    # -- units --------------------------------------------------------------------------

    def unit(self, parent: ET.Element, kind: str, power: str, at: Point, extra: str = "") -> None:
        x, y = at
        attributes = {"data_power": power, "fill": self.color(power), "stroke": palette.INK, "stroke_width": "1.5"}
        if extra:
            attributes.update(stroke=palette.FAILED, stroke_width="2.5")
        if kind == "A":
            _el(parent, "circle", class_=f"unit army{extra}", cx=_f(x), cy=_f(y), r=_f(UNIT_RADIUS), **attributes)
        else:
            hull = f"M{_f(x - 12)},{_f(y + 1)} L{_f(x + 12)},{_f(y + 1)} L{_f(x + 7)},{_f(y + 8)} L{_f(x - 7)},{_f(y + 8)} Z"
            sail = f"M{_f(x - 2)},{_f(y - 1)} L{_f(x - 2)},{_f(y - 11)} L{_f(x + 8)},{_f(y - 1)} Z"
            _el(parent, "path", class_=f"unit fleet{extra}", d=f"{hull} {sail}", **attributes)

    def dislodged_point(self, location: str) -> Point:
        x, y = self.geometry.point(location)
        return (x + DISLODGED_OFFSET[0], y + DISLODGED_OFFSET[1])

    # -- orders -------------------------------------------------------------------------

    def line(self, parent: ET.Element, start: Point, end: Point, order: DrawnOrder, dash: str | None,
             gap_start: float, gap_end: float, head: bool, width: float = 3.0) -> Point:
        """A line from ``start`` to ``end`` shortened by the gaps, with an arrowhead when
        ``head``; returns where it ends."""
        length = math.dist(start, end)
        if length <= gap_start + gap_end + 1:
            return end
        ux, uy = (end[0] - start[0]) / length, (end[1] - start[1]) / length
        a = (start[0] + ux * gap_start, start[1] + uy * gap_start)
        b = (end[0] - ux * gap_end, end[1] - uy * gap_end)
        colour = self.color(order.power)
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
            self.cross(group, self.dislodged_point(order.location) if order.location in dislodged else here, 9)
        elif order.kind == kinds.BUILD:
            self.ring(group, here, palette.FAILED if order.failed else palette.BUILT, UNIT_RADIUS + 5, 3.0)

    def key(self, centers: Mapping[str, frozenset[str]]) -> None:
        """Below the map: each power's colour, name and number of centres."""
        group = self.layer("key")
        top = self.geometry.height
        _el(group, "rect", x="0", y=_f(top), width=_f(self.geometry.width), height=_f(_key_height(self.variant, self.geometry)),
            fill="#ffffff")
        columns = _key_columns(self.geometry)
        for index, power in enumerate(self.variant.powers):
            x = KEY_MARGIN + (index % columns) * KEY_COLUMN
            y = top + KEY_MARGIN + (index // columns) * KEY_ROW
            _el(group, "rect", class_="key", data_power=power.name, x=_f(x), y=_f(y), width="12", height="12",
                fill=self.color(power.name), stroke=palette.INK, stroke_width="1")
            label = _el(group, "text", x=_f(x + 17), y=_f(y + 10.5), font_family=FONT, font_size="11", fill=palette.INK)
            label.text = f"{power.name} {len(centers.get(power.name, ()))} SC"

    def title(self, text: str) -> None:
        group = self.layer("title")
        width = 10 + 8.5 * len(text)
        _el(group, "rect", x="6", y="6", width=_f(width), height="24", rx="4", fill="#ffffff", stroke=palette.INK,
            stroke_width="1", fill_opacity="0.85")
        label = _el(group, "text", x="14", y="23", font_family=FONT, font_size="15", font_weight="bold", fill=palette.INK)
        label.text = text


def _key_columns(geometry: Geometry) -> int:
    return max(1, int((geometry.width - 2 * KEY_MARGIN) // KEY_COLUMN))


def _key_height(variant: Variant, geometry: Geometry) -> float:
    rows = -(-len(variant.powers) // _key_columns(geometry))
    return 2 * KEY_MARGIN + rows * KEY_ROW - (KEY_ROW - 12)


def picture_size(variant: Variant, geometry: Geometry) -> tuple[float, float]:
    """(width, height) of a picture: the map, and the key of powers below it."""
    return geometry.width, geometry.height + _key_height(variant, geometry)


def draw_svg(variant: Variant, geometry: Geometry, scene: Scene) -> str:
    """The scene as an SVG document (text): the board after the phase, orders drawn."""
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
        drawing.unit(units, entry.unit.kind.value, entry.unit.power, drawing.dislodged_point(entry.unit.location), " dislodged")
    drawing.key(scene.centers)
    drawing.title(scene.title)
    return ET.tostring(drawing.root, encoding="unicode", xml_declaration=False)
