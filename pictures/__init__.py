"""Pictures of the board: a phase drawn as SVG (and PNG) from a map's geometry.

Pure drawing code (the geometry files are read by ``maps.load_geometry``).  The facade::

    from pictures import draw_svg, scene_after, svg_to_png
    scene = scene_after(variant, "S1901M", position_after, results)   # pictures.scene
    svg = draw_svg(variant, geometry, scene)                            # pictures.svg
    png = svg_to_png(svg)                                               # pictures.png

or, drawing once for both files (the judge's way)::

    tree = draw_tree(variant, geometry, scene)
    svg, png = svg_text(tree), tree_to_png(tree)                        # pictures.raster draws it

``scene_from_document(variant, doc)`` makes the scene of a ``judge adjudicate`` document.
"""

from __future__ import annotations

from pictures.geometry import Geometry, GeometryError, geometry_from_json
from pictures.png import svg_to_png, tree_to_png
from pictures.scene import Scene, scene_after, scene_from_document
from pictures.svg import draw_svg, draw_tree, svg_text

__all__ = [
    "Geometry",
    "GeometryError",
    "Scene",
    "draw_svg",
    "draw_tree",
    "geometry_from_json",
    "scene_after",
    "scene_from_document",
    "svg_text",
    "svg_to_png",
    "tree_to_png",
]
