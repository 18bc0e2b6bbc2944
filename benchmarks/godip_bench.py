"""``judge adjudicate --batch`` beside godip (github.com/zond/godip) on the same movement phases.

    python -m benchmarks.godip_bench --godip PATH [--phases 300] [--seed 1] [--rounds 5] [--clock wall|cpu]

``PATH`` is a checkout of godip (a test peer, never part of this project).  The script builds
``benchmarks/godip_peer`` (our Go driver) against it in GOPATH mode with the Go toolchain
(Debian's ``golang-go``), so godip's own module requirements, used only by its web service, are
not needed; a checkout whose generated ``variants/classical/bindata.go`` is absent gets a
stand-in without the pictures, which the benchmark never draws.

The phases are the ones ``benchmarks.cli_bench`` draws (same ``--phases`` and ``--seed``).  Our
side is timed as there: the real command fed through a pipe, JSON in to JSON out, the first
answers untimed.  godip's side is timed inside its process, from the parsed documents:
building the position, parsing the order lines and resolving the movement (``State.Next``);
reading and writing JSON are outside its clock, which favours the peer.  Each round runs a
fresh godip process (one untimed pass to warm it, one timed pass) and then ours, alternating.

Both engines' positions after the movement (units standing, units dislodged) are compared
phase by phase; differences are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

from benchmarks.cli_bench import HERE, Child, batch_text, movement_phases
from benchmarks.positions import Record

DRIVER = Path(__file__).resolve().parent / "godip_peer"
STAND_IN_ASSETS = """package classical

import "errors"

// Asset stands in for the generated file absent from this checkout: the benchmark draws nothing.
func Asset(name string) ([]byte, error) { return nil, errors.New("no assets in this build") }
"""


# The four standard-map provinces godip abbreviates otherwise (its classical variant's graph).
GODIP_NAMES = {"LYO": "GOL", "MAO": "MID", "NAO": "NAT", "NWG": "NRG"}
OUR_NAMES = {theirs: ours for ours, theirs in GODIP_NAMES.items()}


def respelled(line: str, names: dict[str, str]) -> str:
    """``line`` with each province (coast kept) written as ``names`` says."""
    words = []
    for word in line.split():
        province, slash, coast = word.partition("/")
        words.append(names.get(province, province) + slash + coast)
    return " ".join(words)


def peer_text(records: Sequence[Record]) -> bytes:
    """The batch in godip's province names (done outside either clock)."""
    lines = []
    for record in records:
        document = {key: record[key] for key in ("phase", "units", "centers", "orders")}
        # godip's orders carry no power: keep each power's orders for its own units only
        owned = {power: {" ".join(unit.split()[:2]) for unit in units} for power, units in record["units"].items()}
        orders = {power: [line for line in lines_ if " ".join(line.split()[:2]) in owned.get(power, ())]
                  for power, lines_ in record["orders"].items()}
        for key, value in (("units", record["units"]), ("centers", record["centers"]), ("orders", orders)):
            document[key] = {power: [respelled(line, GODIP_NAMES) for line in lines_] for power, lines_ in value.items()}
        lines.append(json.dumps(document, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode("utf-8")


def build_driver(godip: Path, workdir: Path) -> Path:
    """Our Go driver compiled against the godip checkout at ``godip`` (GOPATH mode)."""
    if shutil.which("go") is None:
        raise SystemExit("the Go toolchain is needed: apt-get install golang-go")
    source = workdir / "gopath" / "src" / "github.com" / "zond" / "godip"
    shutil.copytree(godip, source, ignore=shutil.ignore_patterns(".git", "*.svg", "games", "droidippy"))
    assets = source / "variants" / "classical" / "bindata.go"
    if not assets.exists():
        assets.write_text(STAND_IN_ASSETS, encoding="utf-8")
    binary = workdir / "godip_peer"
    env = dict(os.environ, GOPATH=str(workdir / "gopath"), GO111MODULE="off", GOFLAGS="",
               GOCACHE=str(workdir / "gocache"))
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=DRIVER, env=env, check=True)
    return binary


def godip_round(binary: Path, text: bytes) -> dict[str, Any]:
    done = subprocess.run([str(binary)], input=text, capture_output=True, check=True)
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def our_outcome(answer: dict[str, Any]) -> dict[str, list[str]]:
    units = sorted(unit for lines in answer["units"].values() for unit in lines)
    # godip disbands at once a dislodged unit with nowhere to retreat; ours lists it with no retreats
    dislodged = sorted(entry["unit"] for entry in answer["dislodged"] if entry["retreats"])
    return {"units": units, "dislodged": dislodged}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--godip", type=Path, required=True, help="a checkout of github.com/zond/godip")
    parser.add_argument("--phases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args(argv)

    records = movement_phases(args.phases, args.seed)
    text = batch_text(records, "canonical")
    peer_input = peer_text(records)
    with tempfile.TemporaryDirectory(prefix="godip-bench-") as work:
        binary = build_driver(args.godip.resolve(), Path(work))
        ours = Child("this", HERE)
        try:
            _, first = ours.answer(text, len(records))
            ours_times, peer_times = [], []
            peer_report: dict[str, Any] = {}
            for _ in range(args.rounds):
                peer_report = godip_round(binary, peer_input)
                peer_times.append(peer_report["cpu_seconds" if args.clock == "cpu" else "wall_seconds"])
                seconds, again = ours.answer(text, len(records), args.clock)
                if again != first:
                    raise SystemExit("a timed round answered differently from the first")
                ours_times.append(seconds)
        finally:
            ours.close()

    answers = [json.loads(line) for line in first.decode("utf-8").splitlines()]
    theirs = [{key: sorted(respelled(unit, OUR_NAMES) for unit in units) for key, units in outcome.items()}
              for outcome in peer_report["outcomes"]]
    differ = [(record["phase"], our_outcome(answer), peer)
              for record, answer, peer in zip(records, answers, theirs)
              if our_outcome(answer) != peer]
    n = len(records)
    ours_ms = statistics.median(ours_times) * 1000 / n
    peer_ms = statistics.median(peer_times) * 1000 / n
    print(f"{n} movement phases (seed {args.seed}), {args.rounds} rounds, median round, {args.clock} clock; "
          f"load {os.getloadavg()[0]:.2f}")
    print(f"  ours   {ours_ms:7.3f} ms/phase  rounds {', '.join(f'{r * 1000 / n:.3f}' for r in ours_times)}")
    print(f"  godip  {peer_ms:7.3f} ms/phase  rounds {', '.join(f'{r * 1000 / n:.3f}' for r in peer_times)}"
          f"  ratio {peer_ms / ours_ms:.1f}x")
    print(f"  positions after the movement: {n - len(differ)} of {n} phases the same")
    for phase, mine, peer_outcome in differ[:10]:
        print(f"    {phase}: ours {mine}  godip {peer_outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
