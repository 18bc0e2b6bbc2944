"""The SVG that ``pictures.svg`` writes, drawn with cairo directly (cairocffi).

CairoSVG reads any SVG, and pays for it in Python: a copied, inherited attribute
dictionary per element and a regular expression per number (about 30,000 numbers on
twenty_twenty).  Our pictures use a small part of SVG, so this module draws that part
itself from the same element tree, with the same cairo calls CairoSVG makes (fill then
stroke; ``crispEdges`` as cairo's ANTIALIAS_NONE; a group's ``opacity`` as a group
composited with that alpha; miter limit 4), so both draw the same pixels
(tests/pictures/test_raster.py compares them).  A province outline is parsed once
and remembered by its text: a judge draws the same map's outlines phase after phase.

Anything outside that part (another element, a transform, a curve in a path, a unit on a
length) raises ``Unsupported``, and ``pictures.png`` hands the SVG to CairoSVG instead.
The texts are not drawn here: they are returned as ``Lettering`` values for
``pictures.lettering`` to write with FreeType, as on the CairoSVG path.
"""

from __future__ import annotations

import math
import struct
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any, Callable

from pictures import lettering
from pictures.lettering import Lettering

if TYPE_CHECKING:
    from PIL.Image import Image

_SVG = "{http://www.w3.org/2000/svg}"
_SVG_LENGTH = len(_SVG)
#: Presentation attributes passed down to children (SVG's inherited properties we use).
_INHERITED = frozenset({
    "fill", "stroke", "stroke-width", "stroke-dasharray", "stroke-linecap", "stroke-linejoin",
    "shape-rendering", "font-family", "font-size", "font-weight", "font-style", "text-anchor"})
#: Attributes that name, describe or place an element without changing how it is painted.
_INERT = frozenset({"id", "class", "version", "xmlns", "width", "height", "viewBox", "x", "y", "x1", "y1", "x2",
                    "y2", "cx", "cy", "r", "d", "points", "opacity"})
_KNOWN = _INHERITED | _INERT
_SHAPES = frozenset({"path", "polygon", "circle", "line", "rect"})
_LINE_CAPS = {"butt": 0, "round": 1, "square": 2}  # cairo_line_cap_t
_LINE_JOINS = {"miter": 0, "round": 1, "bevel": 2}  # cairo_line_join_t
_ANTIALIAS_DEFAULT, _ANTIALIAS_NONE = 0, 1  # cairo_antialias_t
_MITER_LIMIT = 4.0  # SVG's default (cairo's own is 10)
Subpaths = tuple[tuple[tuple[float, ...], bool], ...]  # flat coordinates, and whether closed
#: A path's text -> its cairo path (cairo_path_t and the memory it points into).
_PATHS: dict[str, tuple[Any, bytes]] = {}
_PATHS_HELD = 4096  # a few maps' provinces; cleared whole when full
_MOVE_TO, _LINE_TO, _CLOSE_PATH = 0, 1, 3  # cairo_path_data_type_t


class Unsupported(ValueError):
    """An SVG this module does not draw (CairoSVG draws it instead)."""


def _float(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise Unsupported(f"not a plain number: {value!r}") from None


def _subpaths(data: str) -> Subpaths:
    """Path data of absolute M, L and Z commands (implicit line-tos after M allowed)."""
    found: list[tuple[tuple[float, ...], bool]] = []
    head, *pieces = data.split("M")
    if head.strip():
        raise Unsupported(f"a path that does not start with M: {data[:40]!r}")
    for piece in pieces:
        body = piece.rstrip()
        closed = body.endswith("Z")
        if closed:
            body = body[:-1]
        text = body.replace("L", " ").replace(",", " ")
        try:
            numbers = tuple(map(float, text.split()))
        except ValueError:
            raise Unsupported(f"path commands other than M, L and Z: {data[:40]!r}") from None
        if len(numbers) < 2 or len(numbers) % 2:
            raise Unsupported(f"a path with an odd count of numbers: {data[:40]!r}")
        found.append((numbers, closed))
    return tuple(found)


def _compiled(ffi: Any, subpaths: Subpaths) -> tuple[Any, bytes]:
    """A cairo_path_t of ``subpaths``, for cairo_append_path: one call draws a province,
    where a call per point (through cffi) cost more than cairo's filling it.  Each
    element is 16 bytes: a header (type, length; padded) or a point (x, y)."""
    layout: list[str] = []
    values: list[float] = []
    for numbers, closed in subpaths:
        count = len(numbers) // 2
        layout.append("ii8xdd" * count + ("ii8x" if closed else ""))
        for index in range(count):
            values += (_LINE_TO if index else _MOVE_TO, 2, numbers[2 * index], numbers[2 * index + 1])
        if closed:
            values += (_CLOSE_PATH, 1)
    memory = struct.pack("=" + "".join(layout), *values)
    path = ffi.new("cairo_path_t *")
    path.status = 0
    path.data = ffi.cast("cairo_path_data_t *", ffi.from_buffer(memory))
    path.num_data = len(memory) // 16
    return path, memory


def _points(text: str) -> Subpaths:
    numbers = tuple(_float(v) for v in text.replace(",", " ").split())
    if len(numbers) < 2 or len(numbers) % 2:
        raise Unsupported(f"points with an odd count of numbers: {text[:40]!r}")
    return ((numbers, True),)


def _colour(value: str) -> tuple[float, float, float] | None:
    """``#rrggbb`` (or ``#rgb``) as cairo's 0-1 channels; None for ``none``."""
    if value == "none":
        return None
    known = _COLOURS.get(value)
    if known is not None:
        return known
    digits = value[1:] if value.startswith("#") else ""
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    try:
        channels = tuple(int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4)) if len(digits) == 6 else None
    except ValueError:
        channels = None
    if channels is None:
        raise Unsupported(f"a colour that is not #rrggbb: {value!r}")
    if len(_COLOURS) < 4096:  # a few palettes' worth
        _COLOURS[value] = (channels[0], channels[1], channels[2])
    return channels[0], channels[1], channels[2]


_COLOURS: dict[str, tuple[float, float, float]] = {"black": (0.0, 0.0, 0.0), "white": (1.0, 1.0, 1.0)}


def _stroke(ffi: Any, width: str, cap: str, join: str, dasharray: str) -> tuple[float, int, int, Any, int]:
    """cairo's arguments for a stroke's width, cap, join and dashes (none: NULL, 0)."""
    cap_value, join_value = _LINE_CAPS.get(cap), _LINE_JOINS.get(join)
    if cap_value is None or join_value is None:
        raise Unsupported(f"a line cap or join: {cap!r}, {join!r}")
    dashes = [_float(v) for v in dasharray.replace(",", " ").split() if v != "none"]
    if sum(dashes) > 0:
        return _float(width), cap_value, join_value, ffi.new("double[]", dashes), len(dashes)
    return _float(width), cap_value, join_value, ffi.NULL, 0


#: (stroke-width, -linecap, -linejoin, -dasharray) -> ``_stroke``'s arguments.
_STROKES: dict[tuple[str, str, str, str], tuple[float, int, int, Any, int]] = {}


class _Painter:
    """One picture being painted: cairo's context, called through cffi directly (the
    wrapper's status check after every call costs more than the call)."""

    def __init__(self, size: tuple[float, float], scale: float) -> None:
        import cairocffi  # type: ignore[import-untyped]

        pixels = (int(round(size[0] * scale)), int(round(size[1] * scale)))
        if min(pixels) <= 0:
            raise Unsupported("a picture of no size")
        self.pixels = pixels
        self.surface = cairocffi.ImageSurface(cairocffi.FORMAT_RGB24, *pixels)
        self.context = cairocffi.Context(self.surface)
        # as CairoSVG: the picture is clipped to its size (overflow hidden), which the
        # whole pixels round
        self.context.rectangle(0, 0, size[0] * scale, size[1] * scale)
        self.context.clip()
        self.context.scale(scale, scale)
        self.lib: Any = cairocffi.cairo
        self.ffi: Any = cairocffi.ffi
        self.pointer: Any = self.context._pointer
        self.letterings: list[Lettering] = []
        self.lib.cairo_set_miter_limit(self.pointer, _MITER_LIMIT)

    def element(self, node: ET.Element, style: dict[str, str], opacity: float, outermost: bool = False) -> None:
        tag = node.tag[_SVG_LENGTH:] if node.tag.startswith(_SVG) else node.tag
        if tag == "title":
            return
        own = node.attrib
        names = own.keys()
        for name in names - _KNOWN:
            if not name.startswith("data-"):
                raise Unsupported(f"attribute {name!r} on <{tag}>")
        inherited = names & _INHERITED
        if inherited:
            style = {**style, **{name: own[name] for name in inherited}}
        if tag == "text":
            if len(node):
                raise Unsupported("a <text> with children")
            self.letterings.append(lettering.of(node, style, opacity * _float(own.get("opacity", "1"))))
            return
        alpha = _float(own["opacity"]) if "opacity" in own else 1.0
        grouped = alpha < 1.0 and tag in ("g", "svg")
        if tag in _SHAPES:
            self.shape(tag, own, style, alpha)
        elif tag != "g" and not (tag == "svg" and outermost):
            raise Unsupported(f"element <{tag}>")  # an <svg> inside the picture among them
        if grouped:
            self.lib.cairo_push_group(self.pointer)
        for child in node:
            self.element(child, style, opacity * alpha)
        if grouped:
            self.lib.cairo_pop_group_to_source(self.pointer)
            self.lib.cairo_paint_with_alpha(self.pointer, alpha)

    def shape(self, tag: str, own: dict[str, str], style: dict[str, str], alpha: float) -> None:
        lib, pointer = self.lib, self.pointer
        fill = _colour(style.get("fill", "black"))
        stroke = _colour(style["stroke"]) if "stroke" in style else None
        if fill is None and stroke is None:
            return
        lib.cairo_new_path(pointer)
        if tag == "path":
            data = own.get("d", "")
            known = _PATHS.get(data)
            if known is None:
                if len(_PATHS) >= _PATHS_HELD:
                    _PATHS.clear()
                known = _PATHS[data] = _compiled(self.ffi, _subpaths(data))
            lib.cairo_append_path(pointer, known[0])
        elif tag == "polygon":
            self.trace(_points(own.get("points", "")))
        elif tag == "circle":
            radius = _float(own.get("r", "0"))
            if radius <= 0:
                return
            lib.cairo_new_sub_path(pointer)
            lib.cairo_arc(pointer, _float(own.get("cx", "0")), _float(own.get("cy", "0")), radius, 0.0, 2 * math.pi)
            lib.cairo_close_path(pointer)
        elif tag == "line":
            lib.cairo_move_to(pointer, _float(own.get("x1", "0")), _float(own.get("y1", "0")))
            lib.cairo_line_to(pointer, _float(own.get("x2", "0")), _float(own.get("y2", "0")))
        else:  # rect
            lib.cairo_rectangle(pointer, _float(own.get("x", "0")), _float(own.get("y", "0")),
                                _float(own.get("width", "0")), _float(own.get("height", "0")))
        crisp = style.get("shape-rendering") == "crispEdges"
        lib.cairo_set_antialias(pointer, _ANTIALIAS_NONE if crisp else _ANTIALIAS_DEFAULT)
        if fill is not None:
            lib.cairo_set_source_rgba(pointer, *fill, alpha)
            lib.cairo_fill_preserve(pointer)
        if stroke is not None:
            self.stroke_style(style)
            lib.cairo_set_source_rgba(pointer, *stroke, alpha)
            lib.cairo_stroke(pointer)
        else:
            lib.cairo_new_path(pointer)

    def stroke_style(self, style: dict[str, str]) -> None:
        key = (style.get("stroke-width", "1"), style.get("stroke-linecap", "butt"),
               style.get("stroke-linejoin", "miter"), style.get("stroke-dasharray", "none"))
        known = _STROKES.get(key)
        if known is None:
            known = _stroke(self.ffi, *key)
            if len(_STROKES) < 1024:  # a picture uses a dozen
                _STROKES[key] = known
        width, cap, join, dashes, count = known
        lib, pointer = self.lib, self.pointer
        lib.cairo_set_line_width(pointer, width)
        lib.cairo_set_line_cap(pointer, cap)
        lib.cairo_set_line_join(pointer, join)
        lib.cairo_set_dash(pointer, dashes, count, 0.0)

    def trace(self, subpaths: Subpaths) -> None:
        lib, pointer = self.lib, self.pointer
        move_to: Callable[..., None] = lib.cairo_move_to
        line_to: Callable[..., None] = lib.cairo_line_to
        for numbers, closed in subpaths:
            move_to(pointer, numbers[0], numbers[1])
            for index in range(2, len(numbers), 2):
                line_to(pointer, numbers[index], numbers[index + 1])
            if closed:
                lib.cairo_close_path(pointer)


def picture_size(root: ET.Element) -> tuple[float, float]:
    """(width, height) of the SVG root in user units; it must have no other viewBox."""
    width, height = _float(root.get("width", "0")), _float(root.get("height", "0"))
    box = root.get("viewBox")
    if box is not None and tuple(map(_float, box.split())) != (0.0, 0.0, width, height):
        raise Unsupported(f"a viewBox other than the picture's size: {box!r}")
    return width, height


def draw(root: ET.Element, scale: float) -> tuple["Image", tuple[Lettering, ...]]:
    """The picture of ``root`` (an SVG element tree) ``scale`` times its size, as an RGB
    image, and its texts, not yet written; raises Unsupported where it would not draw
    what CairoSVG draws."""
    from PIL import Image

    if not lettering.available():
        raise Unsupported("no DejaVu faces to write the texts with")
    if root.tag not in (f"{_SVG}svg", "svg"):
        raise Unsupported("not an <svg> document")
    painter = _Painter(picture_size(root), scale)
    painter.element(root, {}, 1.0, outermost=True)
    surface = painter.surface
    surface.flush()
    image = Image.frombuffer("RGB", painter.pixels, surface.get_data(), "raw", "BGRX", surface.get_stride(), 1).copy()
    return image, tuple(painter.letterings)
