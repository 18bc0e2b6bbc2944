"""``judge adjudicate --batch`` answers of two source trees compared on every corpus phase.

    python -m benchmarks.cli_compare --tree before=/tmp/engine-before [--save DIR] [--limit N]

Every phase of every corpus in ``benchmarks/data`` (movement, retreat and adjustment), in
each spelling of ``benchmarks.cli_bench`` (canonical, lower case, full names) and under
each rule setting (none and each optional rule alone), goes through the real command of
this tree and of the other one (``python -m judge.cli adjudicate --batch``, a child
process each).  The answers must be the same bytes; the first differing lines are printed
and the exit status is 1.  A speed-up of the engine or of the command is checked so before
it is kept (docs/benchmarks.md, issue 16.1).  ``--save DIR`` writes each tree's answers;
``--limit N`` takes the first N phases only (a quick look).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from benchmarks.cli_bench import HERE, batch_text
from benchmarks.positions import DATA_DIR, Record

SPELLINGS = ("canonical", "lower", "names")
RULE_SETTINGS: tuple[tuple[str, ...], ...] = (
    (), ("PARADOX_1982_DPJUDGE",), ("PARADOX_ALL_FAIL",), ("NO_BELEAGUERED_CONVOY",),
)


def every_phase() -> list[Record]:
    """Every record of every corpus in benchmarks/data, in file order."""
    records: list[Record] = []
    for path in sorted(DATA_DIR.glob("corpus-*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            records.extend(map(json.loads, lines))
    return records


def batch(records: Sequence[Record]) -> bytes:
    """The records in every spelling and rule setting, as one JSON Lines input."""
    parts = []
    for rules in RULE_SETTINGS:
        with_rules = [dict(record, rules=list(rules)) for record in records]
        parts += [batch_text(with_rules, spelling) for spelling in SPELLINGS]
    return b"".join(parts)


def answers(tree: Path, text: bytes) -> bytes:
    """What ``judge adjudicate --batch`` of ``tree`` answers to ``text``."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    done = subprocess.run([sys.executable, "-m", "judge.cli", "adjudicate", "--batch"],
                          cwd=tree, env=env, input=text, capture_output=True, check=False)
    if done.returncode not in (0, 2) or done.stderr:
        raise SystemExit(f"{tree}: exit status {done.returncode}\n{done.stderr.decode(errors='replace')}")
    return done.stdout


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", required=True, metavar="LABEL=PATH", help="the other source tree")
    parser.add_argument("--save", type=Path, help="write each tree's answers there (LABEL.jsonl)")
    parser.add_argument("--limit", type=int, help="the first N phases only")
    args = parser.parse_args(argv)
    label, _, path = args.tree.partition("=")
    text = batch(every_phase()[:args.limit])
    ours, theirs = answers(HERE, text), answers(Path(path).resolve(), text)
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        (args.save / "this.jsonl").write_bytes(ours)
        (args.save / f"{label}.jsonl").write_bytes(theirs)
    inputs, mine, other = text.splitlines(), ours.splitlines(), theirs.splitlines()
    print(f"{len(inputs)} documents ({len(SPELLINGS)} spellings x {len(RULE_SETTINGS)} rule settings), "
          f"{len(mine)} and {len(other)} answers")
    differing = [n for n in range(max(len(mine), len(other))) if mine[n:n + 1] != other[n:n + 1]]
    for n in differing[:5]:
        print(f"line {n + 1} differs:\n  input  {inputs[n][:300]!r}\n  this   {mine[n:n + 1]!r}\n  {label:6} {other[n:n + 1]!r}")
    if differing or len(mine) != len(inputs):
        print(f"{len(differing)} answers differ")
        return 1
    print("identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
