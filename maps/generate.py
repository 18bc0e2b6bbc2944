"""Write each map's geometry, ``maps/<name>.geo.json``, with ``pictures.generate``.

    python -m maps.generate NAME [--out FILE]      # one map
    python -m maps.generate --all                   # every map in maps/ (after changing a map)

Anchors are read from ``maps/<name>.anchors.json``, else the standard map's when they
place every province of the map (chaos, fleet_rome), else none (a graph layout).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from adjudicator.types import Variant
from maps import _DIRECTORY, available, load
from pictures import generate as pictures_generate
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


#: The generator's own code: a change to any of these may change every picture.
GENERATOR = ("generate.py", "layout.py", "outline.py", "palette.py", "planar.py", "vision.py", "voronoi.py")


def inputs_digest(variant: Variant, anchors: Mapping[str, Any] | None) -> str:
    """A digest of everything a map's geometry is made from: what the generator reads of
    the map (provinces, terrain, coasts, centres, moves, powers), its anchors, and the
    generator's code.  Stored in the document, it tells a stale geometry without
    generating it again (tests/pictures/test_geometry.py)."""
    facts = {
        "map": variant.name,
        "provinces": {a: [p.terrain.value, p.supply_center, list(p.coasts)] for a, p in sorted(variant.provinces.items())},
        "army": {a: sorted(t) for a, t in sorted(variant.army_moves.items())},
        "fleet": {a: sorted(t) for a, t in sorted(variant.fleet_moves.items())},
        "powers": [p.name for p in variant.powers],
        "anchors": anchors,
    }
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True).encode("utf-8"))
    code = Path(pictures_generate.__file__).resolve().parent
    for filename in GENERATOR:
        digest.update((code / filename).read_bytes())
    return digest.hexdigest()


def geometry_document(name: str) -> dict[str, Any]:
    """The geometry document the generator makes for the shipped map ``name`` today,
    with the digest of its inputs (``inputs``)."""
    variant = load(name)
    anchors = anchors_for(variant)
    return {**generate(variant, anchors), "inputs": inputs_digest(variant, anchors)}


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
