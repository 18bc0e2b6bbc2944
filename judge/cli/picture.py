"""``judge render [--map NAME] [--out FILE] [INPUT]``: draw a contract document as a picture."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_BAD_INPUT = 2
FORMATS = (".svg", ".png")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "render", help="draw a judge adjudicate document (input or output) as an SVG or PNG picture",
        description="Draw one document of `judge adjudicate` (shared/contracts/adjudicate.md) as a picture of "
                    "the board: an input document shows its position with its orders (not adjudicated); an "
                    "output document shows the board after the phase with every order drawn by its result "
                    "(moves, supports, convoys, failed and bounced moves crossed out, dislodged units, "
                    "retreats, builds and removals) and the supply centres coloured by owner; a phase record "
                    "as results mail attaches it (<game>-<phase>.json) is drawn as its output, on the map its "
                    "input names.  Exit status 0 "
                    "when drawn, 2 on bad input (quoted in the message).",
    )
    parser.add_argument("input", nargs="?", metavar="INPUT", help="the JSON document (default: standard input)")
    parser.add_argument("--map", metavar="NAME",
                        help="the map (default: the document's \"map\", else standard); an output document "
                             "names no map, so give it here for other maps")
    parser.add_argument("--out", metavar="FILE",
                        help="write the picture there, SVG or PNG by the name's ending (.svg, .png); "
                             "default: SVG on standard output")
    parser.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"judge render: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _drawable(doc: Any) -> Any:
    """A phase record as results mail carries it (``<game>-<phase>.json``, judge/record.py)
    is drawn as its output document, on the map its input names; anything else as it is."""
    from judge.record import FORMAT

    if not (isinstance(doc, dict) and doc.get("format") == FORMAT):
        return doc
    given, made = doc.get("input"), doc.get("output")
    if not (isinstance(given, dict) and isinstance(made, dict)):
        return doc  # refused below as a contract document, quoting what is missing
    return {"phase": doc.get("phase", ""), **made, "map": given.get("map")}


def run(args: argparse.Namespace) -> int:
    import maps
    from adjudicator.jsonio import ContractError
    from pictures import draw_svg, scene_from_document, svg_to_png

    out = Path(args.out) if args.out else None
    if out is not None and out.suffix.lower() not in FORMATS:
        return _fail(f"--out {args.out}: the name must end in .svg or .png")
    try:
        text = Path(args.input).read_text(encoding="utf-8") if args.input else sys.stdin.read()
    except OSError as problem:
        return _fail(f"cannot read {args.input}: {problem.strerror}")
    try:
        doc = json.loads(text)
    except ValueError as problem:
        return _fail(f"{args.input or 'standard input'} is not JSON: {problem}")
    doc = _drawable(doc)
    map_name = args.map or (doc.get("map") if isinstance(doc, dict) else None) or "standard"
    try:
        variant = maps.load(str(map_name))
        geometry = maps.load_geometry(variant.name)
        svg = draw_svg(variant, geometry, scene_from_document(variant, doc))
    except ContractError as problem:
        detail = f" ({json.dumps(problem.detail)})" if problem.detail is not None else ""
        return _fail(f"{problem.message}{detail}")
    except (maps.UnknownMapError, maps.MapError, maps.GeometryError) as problem:
        return _fail(str(problem).strip("'\""))
    if out is None:
        sys.stdout.write(svg)
    elif out.suffix.lower() == ".svg":
        out.write_text(svg, encoding="utf-8")
    else:
        out.write_bytes(svg_to_png(svg))
    return EXIT_OK
