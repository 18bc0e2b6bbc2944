"""Disagreements with the peer already investigated, with their verdicts.

Keyed by line of the shipped corpus (``benchmarks/data/corpus-s1-g12-y10.jsonl``,
lines from 1).  docs/benchmarks.md explains each verdict with the orders; the
benchmark labels these lines and counts anything else as new.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Verdict:
    key: str
    wrong: str  # "peer", "ours" or "rule choice"
    summary: str


VERDICTS = {
    v.key: v
    for v in (
        Verdict(
            "P1",
            "peer",
            "head-to-head: the peer leaves out of a unit's defence the supports given by the power it attacks "
            "(DATC defend strength counts every successful support)",
        ),
        Verdict(
            "P2",
            "peer",
            "a convoyed attack is helped by supports from the attacked unit's own power "
            "(no power may help dislodge its own unit, DATC 6.D.12/6.D.13; the peer applies it to land attacks only)",
        ),
        Verdict(
            "P3",
            "peer",
            "after a dislodgement by a convoyed army the peer offers retreats into a province left vacant by a "
            "standoff (DATC 6.H.6; the peer excludes it when the attacker came over land)",
        ),
    )
}

# corpus line -> verdict key
KNOWN_LINES: dict[int, str] = {
    16: "P1",
    177: "P1",
    128: "P2",
    190: "P2",
    432: "P2",
    452: "P2",
    140: "P3",
    421: "P3",
}

SHIPPED_CORPUS = "corpus-s1-g12-y10.jsonl"


def verdict_for(corpus_name: str, line: int) -> Verdict | None:
    """The verdict on a disagreement at ``line`` (from 1) of the named corpus, if investigated."""
    if corpus_name != SHIPPED_CORPUS or line not in KNOWN_LINES:
        return None
    return VERDICTS[KNOWN_LINES[line]]
