"""The map facts of one of godip's variants (github.com/zond/godip), read from its Go
source, as a JSON document that the map tests compare our maps with.

    python -m maps.godip_facts GODIP_CHECKOUT VARIANT [--commit SHA] [--graph DIR] > facts.json
    python -m maps.godip_facts GODIP_CHECKOUT VARIANT --game N [--commit SHA] > game.json

GODIP_CHECKOUT is a checkout of godip; VARIANT a folder of ``variants/`` (``coldwar``);
``--graph classical/start`` reads the graph (and the starting position, when the variant
has none of its own) from another folder too, for variants that reuse the classical map.

The document keeps godip's own model, not ours, so that the tests judge our maps by the
source's rules rather than by a translation of them: ``provinces`` (each node and coast,
``"stp/nc"``, with its flags ``Land``/``Sea``/``Convoyable`` and the owner of its supply
centre, ``"Neutral"`` for none), ``edges`` (directed: godip allows a move from A to B
when A has an edge to B carrying the unit's flag and B carries it too), ``names`` (long
names), ``units`` (location -> [kind, nation]) and ``owners`` (centre -> nation at the
start).  Only facts are taken; nothing of godip's code.

With ``--game N``, the record of a game godip keeps (``games/game_N.txt``; ``game`` says,
from ``games/info.txt``, where it was played or how it was made): ``phases``, each with ``phase`` (``"S1901M"``;
godip's "Fall Adjustment" is our Winter; Hundred's "Year" turns are Springs in the years
ending in 5, Falls in those ending in 0), the ``units`` (``"A par"``, ``"F stp/sc"``) and
``dislodged`` of each nation, the ``centres`` each owns, and the ``orders`` given, as the
record writes them (``"par move bur"``, ``"build Fleet bre"``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Sequence

_CHAIN = re.compile(r'Prov\("([^"]+)"\)((?:\s*\.\s*(?:Conn|Flag|SC)\([^)]*\))*)')
_CALL = re.compile(r"\.(Conn|Flag|SC)\(([^)]*)\)")
_NATION_CONST = re.compile(r'(\w+)\s+godip\.Nation\s*=\s*"([^"]*)"')
_LONG_NAME = re.compile(r'"([a-z0-9]+(?:/[a-z]+)?)"\s*:\s*"([^"]+)"')
_UNIT = re.compile(r'"([a-z0-9]+(?:/[a-z]+)?)"\s*:\s*godip\.Unit\{\s*(?:Type:\s*)?godip\.(Army|Fleet)\s*,\s*(?:Nation:\s*)?([\w.]+)\s*,?\s*\}')
_COMMENTED_PROV = re.compile(r'//\s*([^\n]+?)\s*\n\s*Prov\("([a-z0-9]+(?:/[a-z]+)?)"\)')
_OWNER = re.compile(r'"([a-z0-9]+)"\s*:\s*([\w.]+)\s*,')
_FLAG_WORDS = {"godip.Land": ["Land"], "godip.Sea": ["Sea"], "godip.Coast...": ["Land", "Sea"],
               "godip.Archipelago...": ["Land", "Sea", "Convoyable"], "godip.Convoyable": ["Convoyable"]}


def _flags(arguments: str) -> list[str]:
    result: list[str] = []
    for word in (w.strip() for w in arguments.split(",")):
        if word:
            result.extend(_FLAG_WORDS[word])
    return sorted(set(result))


def _block(text: str, opener: str) -> str:
    """The text of the first ``{...}`` after ``opener`` (empty when absent)."""
    start = text.find(opener)
    if start < 0:
        return ""
    start = text.index("{", start + len(opener))
    depth = 0
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start + 1:index]
    raise ValueError(f"unbalanced braces after {opener!r}")


def extract(files: Sequence[Path]) -> dict[str, Any]:
    """The facts document of the Go source files given (a variant's own first)."""
    texts = [path.read_text(encoding="utf-8") for path in files]
    nations: dict[str, str] = {}
    for text in texts:
        nations.update(_NATION_CONST.findall(text))

    def nation(word: str) -> str:
        return word.split(".", 1)[1] if word.startswith("godip.") else nations.get(word, word)

    provinces: dict[str, dict[str, Any]] = {}
    edges: dict[str, dict[str, list[str]]] = {}
    names: dict[str, str] = {}
    units: dict[str, list[str]] = {}
    owners: dict[str, str] = {}
    for text in texts:
        if not provinces:
            for name, calls in _CHAIN.findall(text):
                node = provinces.setdefault(name, {"flags": []})
                out = edges.setdefault(name, {})
                for method, arguments in _CALL.findall(calls):
                    if method == "Conn":
                        target, _, flag_words = arguments.partition(",")
                        out[target.strip().strip('"')] = _flags(flag_words)
                    elif method == "Flag":
                        node["flags"] = _flags(arguments)
                    else:
                        provinces[name.split("/")[0]]["sc"] = nation(arguments.strip())
        if not names:
            names = dict(_LONG_NAME.findall(_block(text, "provinceLongNames = map")))
        if not units:
            for opener in ("SetUnits(map", "Units() map["):
                units = {loc: [kind, nation(who)] for loc, kind, who in _UNIT.findall(_block(text, opener))}
                if units:
                    break
        if not owners:
            for opener in ("SetSupplyCenters(map", "SupplyCenters() map["):
                owners = {prov: nation(who) for prov, who in _OWNER.findall(_block(text, opener))}
                if owners:
                    break
    for text in texts:  # where the table of long names lacks one (or there is none): the comment above its line
        for name, prov in _COMMENTED_PROV.findall(text):
            names.setdefault(prov, name)
    return {"provinces": provinces, "edges": edges, "names": names, "units": units, "owners": owners}


def moves(doc: dict[str, Any]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Army moves (province -> provinces) and fleet moves (location -> locations) as godip
    allows them: an edge from A to B carrying the unit's flag (Land, Sea), into a node that
    carries it too.  Names as godip spells them (lower case)."""
    nodes, edges = doc["provinces"], doc["edges"]

    def allowed(kind: str, origin: str) -> set[str]:
        return {target for target, flags in edges.get(origin, {}).items()
                if kind in flags and kind in nodes.get(target, {}).get("flags", ())}

    army = {loc: allowed("Land", loc) for loc, node in nodes.items() if "Land" in node["flags"] and "/" not in loc}
    fleet = {loc: allowed("Sea", loc) for loc, node in nodes.items() if "Sea" in node["flags"]}
    return army, fleet


def draft_map(doc: dict[str, Any]) -> str:
    """A first draft of our map file from the facts: provinces, coasts, adjacencies (a move
    without its way back goes to the one-way lists) and one line per power; its header and
    the powers' names, adjectives and letters are left to the author."""
    nodes, names = doc["provinces"], doc["names"]
    army, fleet = moves(doc)
    up = str.upper
    lines = ["[provinces]"]
    for loc in sorted(n for n in nodes if "/" not in n):
        flags = set(nodes[loc]["flags"]) | {f for c in nodes if c.startswith(loc + "/") for f in nodes[c]["flags"]}
        terrain = ("archipelago" if "Convoyable" in flags else "coast" if {"Land", "Sea"} <= flags
                   else "sea" if "Sea" in flags else "land")
        lines.append(f"{up(loc):<5}{terrain:<12}{'SC' if 'sc' in nodes[loc] else '-':<4}{names.get(loc, up(loc))}")
    split: dict[str, list[str]] = {loc.split("/")[0]: [] for loc in nodes if "/" in loc}
    for loc in nodes:
        if "/" in loc:
            split[loc.split("/")[0]].append(up(loc.split("/")[1]))
    lines += ["", "[coasts]"] + [f"{up(p):<5}{' '.join(sorted(c))}" for p, c in sorted(split.items())]
    lines += ["", "[adjacencies]"]
    for loc in sorted(set(army) | set(fleet)):
        words = []
        for marker, table in (("A", army), ("F", fleet)):
            both = sorted(up(t) for t in table.get(loc, ()) if loc in table.get(t, ()))
            one = sorted(up(t) for t in table.get(loc, ()) if loc not in table.get(t, ()))
            words += [f"{marker}: {' '.join(both)}"] if both else []
            words += [f"{marker}>: {' '.join(one)}"] if one else []
        if words:
            lines.append(f"{up(loc):<8}" + "   ".join(words))
    lines += ["", "[powers]"]
    for nation in sorted({n["sc"] for n in nodes.values() if n.get("sc", "Neutral") != "Neutral"}):
        homes = sorted(up(p) for p, n in nodes.items() if n.get("sc") == nation)
        units = sorted(f"{kind[0]} {up(loc)}" for loc, (kind, who) in doc["units"].items() if who == nation)
        lines.append(f"{nation.upper().replace(' ', '')} {nation.split()[0]} ? homes: {' '.join(homes)} units: {', '.join(units)}")
    return "\n".join(lines) + "\n"


_PHASE_LINE = re.compile(r"^PHASE (\d+) (Spring|Fall|Year) (Movement|Retreat|Adjustment)$")
_POSITION_LINE = re.compile(r"^(.+): (fleet|army|supply|fleet/dislodged|army/dislodged) (\S+)$")


def read_game(text: str) -> list[dict[str, Any]]:
    """The phases of one of godip's game records (see the module's docstring)."""
    phases: list[dict[str, Any]] = []
    part = ""
    for raw in text.splitlines():
        line = raw.strip()
        match = _PHASE_LINE.match(line)
        if match:
            year, season, kind = match.groups()
            if season == "Year":  # Hundred's five-year turns: the years ending in 5 play as Springs
                season = "Spring" if int(year) % 10 == 5 else "Fall"
            code = "W" if kind == "Adjustment" else season[0]
            phases.append({"phase": f"{code}{year}{kind[0]}", "units": {}, "dislodged": {}, "centres": {}, "orders": []})
        elif line in ("POSITIONS", "ORDERS"):
            part = line
        elif line and phases:
            here = phases[-1]
            if part == "ORDERS":
                here["orders"].append(line)
                continue
            found = _POSITION_LINE.match(line)
            if found is None:
                raise ValueError(f"unreadable position line {line!r}")
            nation, what, where = found.groups()
            if what == "supply":
                here["centres"].setdefault(nation, []).append(where)
            else:
                kind, _, dislodged = what.partition("/")
                here["dislodged" if dislodged else "units"].setdefault(nation, []).append(f"{kind[0].upper()} {where}")
    return phases


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m maps.godip_facts", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", help="a checkout of github.com/zond/godip")
    parser.add_argument("variant", help="a folder of variants/ (e.g. coldwar)")
    parser.add_argument("--graph", action="append", default=[],
                        help="another folder of variants/ read after the variant's own (e.g. classical/start)")
    parser.add_argument("--commit", default="", help="the checkout's commit, recorded in the document")
    parser.add_argument("--draft", action="store_true", help="write a first draft of our map file instead")
    parser.add_argument("--game", type=int, help="write the record of games/game_N.txt instead")
    args = parser.parse_args(argv)
    if args.game is not None:
        folder = Path(args.checkout) / "variants" / args.variant / "games"
        info = (folder / "info.txt").read_text(encoding="utf-8") if (folder / "info.txt").is_file() else ""
        about = re.search(rf"^game_{args.game}\.txt (.+)$", info, re.M)  # "from <address>", or how it was made
        record = {"source": "https://github.com/zond/godip", "commit": args.commit,
                  "file": f"variants/{args.variant}/games/game_{args.game}.txt",
                  "game": about.group(1).strip() if about else "",
                  "phases": read_game((folder / f"game_{args.game}.txt").read_text(encoding="utf-8"))}
        json.dump(record, sys.stdout, separators=(",", ":"), sort_keys=True)
        sys.stdout.write("\n")
        return 0
    root = Path(args.checkout) / "variants"
    files = [p for folder in [args.variant, *args.graph] for p in sorted((root / folder).glob("*.go"))
             if not p.name.endswith("_test.go") and p.name != "bindata.go"]
    doc = {"source": "https://github.com/zond/godip", "commit": args.commit,
           "files": [str(p.relative_to(root.parent)) for p in files], **extract(files)}
    if args.draft:
        sys.stdout.write(draft_map(doc))
    else:
        json.dump(doc, sys.stdout, indent=0, sort_keys=True)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
