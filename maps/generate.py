"""Write each map's geometry, ``maps/<name>.geo.json``, with ``pictures.generate``.

    python -m maps.generate NAME [--out FILE]      # one map
    python -m maps.generate --all                   # every map in maps/ (after changing a map)

Anchors are read from ``maps/<name>.anchors.json``, else the standard map's when they
place every province of the map (chaos, fleet_rome), else none (a graph layout).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from adjudicator.types import Variant
from maps import _DIRECTORY, available, load
from pictures.generate import generate


def anchors_for(variant: Variant, directory: Path = _DIRECTORY) -> dict[str, Any] | None:
    """The map's own anchors, else the standard map's when they place all its provinces."""
    for name in (variant.name, "standard"):
        path = directory / f"{name}.anchors.json"
        if path.is_file():
            doc = json.loads(path.read_text(encoding="utf-8"))
            if set(variant.provinces) <= {a.upper() for a in doc["provinces"]}:
                return doc
    return None


def geometry_document(name: str) -> dict[str, Any]:
    """The geometry document the generator makes for the shipped map ``name`` today."""
    variant = load(name)
    return generate(variant, anchors_for(variant))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m maps.generate", description=__doc__.split("\n\n")[0])
    parser.add_argument("name", nargs="?", help="a map shipped in maps/ (e.g. standard)")
    parser.add_argument("--all", action="store_true", help="every map shipped in maps/")
    parser.add_argument("--out", help="where to write the document (default maps/NAME.geo.json; one map only)")
    args = parser.parse_args(argv)
    if args.all == bool(args.name) or (args.all and args.out):
        parser.error("give one map NAME (optionally with --out) or --all")
    for name in available() if args.all else [args.name]:
        doc = geometry_document(name)
        out = Path(args.out) if args.out else _DIRECTORY / f"{name}.geo.json"
        out.write_text(json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {out} ({len(doc['provinces'])} provinces)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
