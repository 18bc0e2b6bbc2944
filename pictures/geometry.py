"""A map's geometry: where each province is drawn, as a frozen value read from JSON.

The document (``maps/<name>.geo.json``, made by ``pictures.generate``, written by maps/generate.py)::

    {"map": "standard", "width": 1000, "height": 900,
     "licence": "...", "provenance": "...",
     "colors": {"ENGLAND": "#1f3a93", ...},                 # optional; else a palette
     "provinces": {"SPA": {"parts": [[[x, y], ...], ...],   # outlines: pieces, the first holding the unit, then holes
                           "unit": [x, y], "label": [x, y],
                           "dislodged": [x, y],              # where a dislodged unit stands
                           "supply": [x, y],                 # supply centres only
                           "coasts": {"NC": [x, y], "SC": [x, y]},
                           "coast_labels": {"NC": [x, y], "SC": [x, y]}}, ...},
     "links": [["BUR", "MUN"], ...],                         # adjacent provinces that do not touch
     "borders": [[x0, y0, x1, y1], ...],                     # optional: lines beside the outlines
     "shore": [[x0, y0, x1, y1], ...],                       # where land meets a sea it borders
     "impassable": [[[x, y], ...], ...]}                     # optional outlines

Coordinates are SVG user units, origin top left.  A province's rings are filled by the
non-zero rule (a hole is wound against its pieces) and stroked: the outlines are the
borders.  Two provinces' parts share an edge
if and only if the map makes them adjacent, unless the pair is in ``links``.  ``check_against`` says whether a
geometry covers a variant (every province drawn, every split coast placed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from adjudicator.types import Variant, coast_of, province_of
from pictures.voronoi import contains

Point = tuple[float, float]
Segment = tuple[float, float, float, float]


class GeometryError(ValueError):
    """A geometry document that is malformed or does not fit its map; says what and where."""


@dataclass(frozen=True, slots=True)
class ProvinceShape:
    parts: tuple[tuple[Point, ...], ...]
    unit: Point
    label: Point
    dislodged: Point
    supply: Point | None = None
    coasts: Mapping[str, Point] = field(default_factory=lambda: MappingProxyType({}))
    coast_labels: Mapping[str, Point] = field(default_factory=lambda: MappingProxyType({}))

    def contains(self, point: Point) -> bool:
        """Whether ``point`` lies inside the province: within an odd number of its rings
        (in one of its pieces and in none of its holes)."""
        return sum(contains(part, point) for part in self.parts) % 2 == 1


@dataclass(frozen=True, slots=True)
class Geometry:
    map_name: str
    width: float
    height: float
    provinces: Mapping[str, ProvinceShape]
    impassable: tuple[tuple[Point, ...], ...] = ()
    links: tuple[tuple[str, str], ...] = ()
    borders: tuple[Segment, ...] = ()
    shore: tuple[Segment, ...] = ()
    colors: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    licence: str = ""
    provenance: str = ""
    #: Where each of ``links`` between drawn provinces is drawn: from the corner of the
    #: first nearest the second's unit to the corner of the second nearest the first's.
    link_lines: Mapping[tuple[str, str], tuple[Point, Point]] = field(default_factory=lambda: MappingProxyType({}))

    def point(self, location: str) -> Point:
        """Where a unit at ``location`` (``"SPA/NC"`` or ``"PAR"``) is drawn."""
        shape = self.provinces[province_of(location)]
        coast = coast_of(location)
        if coast is not None and coast in shape.coasts:
            return shape.coasts[coast]
        return shape.unit

    def check_against(self, variant: Variant) -> None:
        """Raise GeometryError unless every province and split coast of ``variant`` is placed."""
        missing = sorted(set(variant.provinces) - set(self.provinces))
        if missing:
            raise GeometryError(f"geometry of {self.map_name!r} lacks provinces {', '.join(missing)} of map {variant.name!r}")
        for abbrev, province in variant.provinces.items():
            absent = [c for c in province.coasts if c not in self.provinces[abbrev].coasts]
            if absent:
                raise GeometryError(f"geometry of {self.map_name!r} places no coast {', '.join(absent)} of {abbrev}")
            if province.supply_center and self.provinces[abbrev].supply is None:
                raise GeometryError(f"geometry of {self.map_name!r} has no supply-centre mark for {abbrev}")
        unknown = sorted({p for pair in self.links for p in pair} - set(self.provinces))
        if unknown:
            raise GeometryError(f"geometry of {self.map_name!r} links provinces it does not draw: {', '.join(unknown)}")


def _segments(value: Any, where: str) -> tuple[Segment, ...]:
    if not isinstance(value, list) or not all(
            isinstance(s, list) and len(s) == 4 and all(isinstance(v, (int, float)) for v in s) for s in value):
        raise GeometryError(f"{where} must be a list of segments [x0, y0, x1, y1]")
    return tuple((float(s[0]), float(s[1]), float(s[2]), float(s[3])) for s in value)


def _links(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
        raise GeometryError("'links' must be a list of province pairs [\"BUR\", \"MUN\"]")
    return tuple((str(a).upper(), str(b).upper()) for a, b in value)


def _point(value: Any, where: str) -> Point:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value)):
        raise GeometryError(f"{where} must be a point [x, y], not {value!r}")
    return (float(value[0]), float(value[1]))


def _outline(value: Any, where: str) -> tuple[Point, ...]:
    if not isinstance(value, list) or len(value) < 3:
        raise GeometryError(f"{where} must be a list of at least 3 points")
    return tuple(_point(p, where) for p in value)


def _shape(abbrev: str, doc: Any) -> ProvinceShape:
    if not isinstance(doc, Mapping):
        raise GeometryError(f"province {abbrev} must be an object with outline, unit and label")
    for key in ("parts", "unit", "label", "dislodged"):
        if key not in doc:
            raise GeometryError(f"province {abbrev} has no {key!r}")
    coasts, coast_labels = doc.get("coasts", {}), doc.get("coast_labels", {})
    if not isinstance(coasts, Mapping) or not isinstance(coast_labels, Mapping):
        raise GeometryError(f"coasts and coast_labels of {abbrev} must be objects like {{\"NC\": [x, y]}}")
    if not isinstance(doc["parts"], list) or not doc["parts"]:
        raise GeometryError(f"parts of {abbrev} must be a list of outlines")
    return ProvinceShape(
        parts=tuple(_outline(part, f"outline of {abbrev}") for part in doc["parts"]),
        unit=_point(doc["unit"], f"unit of {abbrev}"),
        label=_point(doc["label"], f"label of {abbrev}"),
        dislodged=_point(doc["dislodged"], f"dislodged of {abbrev}"),
        supply=_point(doc["supply"], f"supply of {abbrev}") if doc.get("supply") is not None else None,
        coasts=MappingProxyType({c.upper(): _point(p, f"coast {c} of {abbrev}") for c, p in coasts.items()}),
        coast_labels=MappingProxyType({c.upper(): _point(p, f"coast label {c} of {abbrev}") for c, p in coast_labels.items()}),
    )


def _facing(provinces: Mapping[str, ProvinceShape], province: str, other: str) -> Point:
    """The corner of ``province`` nearest ``other``'s unit: where a link leaves it."""
    goal = provinces[other].unit
    return min((p for part in provinces[province].parts for p in part),
               key=lambda p: (p[0] - goal[0]) ** 2 + (p[1] - goal[1]) ** 2)


def link_ends(provinces: Mapping[str, ProvinceShape],
              links: tuple[tuple[str, str], ...]) -> Mapping[tuple[str, str], tuple[Point, Point]]:
    """Each link's line, as ``Geometry.link_lines`` holds it (found once, when loaded);
    a link naming a province not drawn has none (``check_against`` reports it)."""
    return MappingProxyType({(a, b): (_facing(provinces, a, b), _facing(provinces, b, a)) for a, b in links
                             if a in provinces and b in provinces})


def geometry_from_json(doc: Mapping[str, Any]) -> Geometry:
    """The Geometry of a decoded ``.geo.json`` document; raises GeometryError."""
    if not isinstance(doc, Mapping):
        raise GeometryError("a geometry document is a JSON object")
    for key in ("map", "width", "height", "provinces"):
        if key not in doc:
            raise GeometryError(f"geometry document has no {key!r}")
    provinces = doc["provinces"]
    if not isinstance(provinces, Mapping) or not provinces:
        raise GeometryError("'provinces' must be an object of province -> shape")
    colors = doc.get("colors", {})
    if not isinstance(colors, Mapping):
        raise GeometryError("'colors' must be an object of power -> '#rrggbb'")
    shapes = MappingProxyType({a.upper(): _shape(a.upper(), s) for a, s in provinces.items()})
    links = _links(doc.get("links", []))
    return Geometry(
        map_name=str(doc["map"]),
        width=float(doc["width"]),
        height=float(doc["height"]),
        provinces=shapes,
        impassable=tuple(_outline(o, "an impassable outline") for o in doc.get("impassable", [])),
        links=links,
        link_lines=link_ends(shapes, links),
        borders=_segments(doc.get("borders", []), "'borders'"),
        shore=_segments(doc.get("shore", []), "'shore'"),
        colors=MappingProxyType({p.upper(): str(c) for p, c in colors.items()}),
        licence=str(doc.get("licence", "")),
        provenance=str(doc.get("provenance", "")),
    )
