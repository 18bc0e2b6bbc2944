"""The verifiable record of a game: what every phase's broadcast carries, machine-readable.

Pure (the engine and the standard library only): the judge writes these documents and
``judge audit`` reads them back, so both sides share the file names and the reading of a
revealed orders file, and nothing else.

Each results broadcast carries ``<game>-<phase>.json``::

    {"format": "dipjudge-phase/1", "game": ..., "phase": ...,
     "input":  the contract's input document (position before, orders used, rules),
     "output": the contract's output document (results, units, centres, next phase),
     "digest_before": position_digest(position before),
     "digest_after":  position_digest(position after),
     "sealed": {"POWER": {...}, ...}      (RULE SEALED games only, see ``sealed_entry``)
     "fair": ...}                         (fair-assignment records, when a game has them)

Anyone can feed ``input`` to ``judge adjudicate`` and compare with ``output``.  The
commitments broadcast carries ``<game>-<phase>-commitments.json`` (``commitments_document``),
and each verified reveal is broadcast as it arrives with ``<game>-<phase>-<POWER>-reveal.json``
(``reveal_document``) and the revealed file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from adjudicator.api import IllegalOrder, OrderSyntaxError, parse_order, prepare
from adjudicator.types import Position, Variant

FORMAT = "dipjudge-phase/1"
COMMITMENTS_FORMAT = "dipjudge-commitments/1"
REVEAL_FORMAT = "dipjudge-reveal/1"

# Top-level keys of the phase document that later features add (e.g. issue 6's fair
# assignment puts its replayable records under "fair"); ``judge audit`` runs a checker
# for each one it knows (judge/audit.py, EXTRA_CHECKS).
EXTENSION_KEYS = ("sealed", "fair")


def record_name(game: str, phase: str) -> str:
    return f"{game}-{phase}.json"


def commitments_name(game: str, phase: str) -> str:
    return f"{game}-{phase}-commitments.json"


def keys_name(game: str, phase: str) -> str:
    return f"{game}-{phase}-keys.asc"


def commitment_name(game: str, phase: str, power: str, kind: str) -> str:
    return f"{game}-{phase}-{power}.{'sha256' if kind == 'sha256' else 'asc'}"


def revealed_name(game: str, phase: str, power: str) -> str:
    return f"{game}-{phase}-{power}-orders.txt"


def reveal_record_name(game: str, phase: str, power: str) -> str:
    return f"{game}-{phase}-{power}-reveal.json"


def reveal_document(*, game: str, phase: str, power: str, kind: str) -> dict[str, Any]:
    """The record of one verified reveal, broadcast as it arrives with the revealed file
    (``revealed_name``): the results must then use it, whatever the judge later claims."""
    return {"format": REVEAL_FORMAT, "game": game, "phase": phase, "power": power, "kind": kind,
            "revealed": revealed_name(game, phase, power)}


def phase_document(*, game: str, phase: str, input_doc: Mapping[str, Any], output_doc: Mapping[str, Any],
                   digest_before: str, digest_after: str,
                   extensions: Mapping[str, Any] | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "format": FORMAT,
        "game": game,
        "phase": phase,
        "input": dict(input_doc),
        "output": dict(output_doc),
        "digest_before": digest_before,
        "digest_after": digest_after,
    }
    for key, value in (extensions or {}).items():
        if key not in EXTENSION_KEYS:
            raise ValueError(f"unknown record extension {key!r} (known: {', '.join(EXTENSION_KEYS)})")
        document[key] = value
    return document


@dataclass(frozen=True)
class RevealedOrders:
    """The orders read from a revealed file: ``orders`` are the lines used (canonical when
    they are legal, as written when the engine will report them void), ``ignored`` the
    lines that are not orders at all (titles, comments, the SALT line) with the reason."""

    orders: tuple[str, ...]
    ignored: tuple[tuple[str, str], ...]


def orders_from_revealed(variant: Variant, position: Position, power: str, data: bytes) -> RevealedOrders:
    """Read a revealed orders file the same way on the judge and in the audit.

    Every non-blank line is tried as an order of ``power``: a legal order is kept in its
    canonical form, an illegal one as written (it will be void), and a line that is no
    order at all is ignored, so a file may carry a title or notes as in the reference
    protocol.  A ``SALT ...`` line (SHA256 commitments) is never an order.
    """
    text = data.decode("utf-8", errors="replace")
    orders: list[str] = []
    ignored: list[tuple[str, str]] = []
    for raw_line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw_line.strip()
        if not line:
            continue
        if line.upper().startswith("SALT "):
            ignored.append((line[:5] + "...", "the salt of a SHA256 commitment"))
            continue
        try:
            orders.append(parse_order(prepare(variant, position), power, line).canonical())
        except IllegalOrder:
            orders.append(line)
        except OrderSyntaxError as problem:
            ignored.append((line, problem.reason))
    return RevealedOrders(tuple(orders), tuple(ignored))


def sealed_entry(*, outcome: str, reason: str, kind: str | None, fingerprint: str | None,
                 commitment_file: str | None, revealed_file: str | None, variant: str | None,
                 orders: Sequence[str], ignored: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """One power's part of the ``sealed`` section of a phase document."""
    return {
        "outcome": outcome,
        "reason": reason,
        "kind": kind,
        "fingerprint": fingerprint,
        "commitment": commitment_file,
        "revealed": revealed_file,
        "variant": variant,
        "orders": list(orders),
        "ignored": [list(item) for item in ignored],
    }


def commitments_document(*, game: str, phase: str, required: Sequence[str],
                         commitments: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The list published when commitments close: power -> kind, fingerprint, file."""
    return {
        "format": COMMITMENTS_FORMAT,
        "game": game,
        "phase": phase,
        "required": sorted(required),
        "commitments": {power: dict(entry) for power, entry in sorted(commitments.items())},
    }
