"""The machine-readable records of a lottery's broadcasts, and their cross-check.

Every broadcast of an email lottery carries one JSON record (``format`` below), so that an
auditor can hold each later record to what was published earlier:

    odds         {"stage": "odds", "seq", "purpose", "power", "outcomes", "shares", "participants"}
    commitments  {"stage": "commitments", "seq", "commitments": {label: {"kind", "data",
                  "fingerprint"} or null (no commitment)}, "keys": the signers' armored keys}
    reveal       {"stage": "reveal", "seq", "label", "number", "revealed"}  (one per verified reveal)
    result       {"stage": "result", "seq", "numbers": [[label, n], ...], "defaulted", "result", "winner"}

Sealed preference lists have the same two middle stages under ``LISTS_FORMAT`` (no seq;
a reveal carries ``"list"``), and the broadcast that begins an assignment publishes the
lists it starts from (stage ``"lists"``, ``"lists": [[label, list], ...]``).  :class:`Ledger` keeps what the archive published, in the
order above, and answers with the problems of each record against the earlier ones; the
assignment record (judge/fair/audit.py) is then checked against the whole ledger, so that
re-signing an edited assignment record cannot hide a changed commitment, reveal or result.

Pure: no signatures are checked here (judge/fair/audit.py verifies reveals with gpg).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

FORMAT = "dipjudge-lottery/1"
LISTS_FORMAT = "dipjudge-lists/1"
ODDS, COMMITMENTS, REVEAL, RESULT = "odds", "commitments", "reveal", "result"
LISTS = "lists"  # the lists the assignment starts from, as "power assignment begins" publishes them
STAGES = (ODDS, COMMITMENTS, REVEAL, RESULT)

Record = dict[str, Any]


def record_name(game: str, seq: int, stage: str, label: str | None = None) -> str:
    """``<game>-lottery-<seq>-<stage>[-<label>].json``: one name per broadcast."""
    return f"{game}-lottery-{seq}-{stage}" + (f"-{label}" if label else "") + ".json"


def lists_record_name(game: str, stage: str, label: str | None = None) -> str:
    return f"{game}-lists-{stage}" + (f"-{label}" if label else "") + ".json"


def commitment_entry(kind: str, data: str, fingerprint: str | None) -> dict[str, Any]:
    """One player's commitment as records carry it (``data``: the hex digest, or the
    armored detached signature)."""
    return {"kind": kind, "data": data.strip(), "fingerprint": fingerprint}


def odds_record(game: str, seq: int, purpose: str, power: str, outcomes: int,
                shares: Sequence[tuple[str | None, int, int]], participants: Sequence[str]) -> Record:
    return {"format": FORMAT, "game": game, "seq": seq, "stage": ODDS, "purpose": purpose, "power": power,
            "outcomes": outcomes, "shares": [list(share) for share in shares],
            "participants": list(participants)}


def commitments_record(game: str, seq: int, commitments: Mapping[str, dict[str, Any] | None],
                       keys: str = "") -> Record:
    """``keys``: the committed players' public keys (armored), to check signed reveals with."""
    return {"format": FORMAT, "game": game, "seq": seq, "stage": COMMITMENTS, "commitments": dict(commitments),
            "keys": keys}


def reveal_record(game: str, seq: int, label: str, number: int, revealed: str) -> Record:
    return {"format": FORMAT, "game": game, "seq": seq, "stage": REVEAL, "label": label, "number": number,
            "revealed": revealed}


def result_record(game: str, seq: int, numbers: Sequence[Sequence[Any]], defaulted: Sequence[str],
                  result: int, winner: str | None) -> Record:
    return {"format": FORMAT, "game": game, "seq": seq, "stage": RESULT, "numbers": [list(n) for n in numbers],
            "defaulted": list(defaulted), "result": result, "winner": winner}


def list_commitments_record(game: str, commitments: Mapping[str, dict[str, Any] | None], keys: str = "") -> Record:
    return {"format": LISTS_FORMAT, "game": game, "stage": COMMITMENTS, "commitments": dict(commitments),
            "keys": keys}


def lists_record(game: str, lists: Sequence[Sequence[str]]) -> Record:
    return {"format": LISTS_FORMAT, "game": game, "stage": LISTS, "lists": [list(entry) for entry in lists]}


def list_reveal_record(game: str, label: str, preference: str, revealed: str) -> Record:
    return {"format": LISTS_FORMAT, "game": game, "stage": REVEAL, "label": label, "list": preference,
            "revealed": revealed}


def sort_key(document: Mapping[str, Any]) -> tuple[int, int, int, str]:
    """Lists before lotteries, lotteries by number, each lottery's stages in order."""
    stage = str(document.get("stage"))
    rank = STAGES.index(stage) if stage in STAGES else len(STAGES)
    if document.get("format") == LISTS_FORMAT:
        return (0, 0, rank, str(document.get("label", "")))
    return (1, _int(document.get("seq")), rank, str(document.get("label", "")))


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


@dataclass
class Ledger:
    """What one game's lottery broadcasts published, added in :func:`sort_key` order."""

    lotteries: dict[int, dict[str, Record]] = field(default_factory=dict)
    reveals: dict[int, dict[str, Record]] = field(default_factory=dict)
    list_commitments: Record | None = None
    list_reveals: dict[str, Record] = field(default_factory=dict)
    lists: Record | None = None

    def add(self, document: Record) -> list[str]:
        """Record ``document``; the problems it shows against the records added before."""
        if document.get("format") == LISTS_FORMAT:
            return self._add_list(document)
        seq, stage = _int(document.get("seq")), str(document.get("stage"))
        stages = self.lotteries.setdefault(seq, {})
        where = f"lottery {seq}"
        if stage == REVEAL:
            label = str(document.get("label"))
            self.reveals.setdefault(seq, {})[label] = document
            return self._check_reveal(where, stages, document)
        if stage not in STAGES:
            return [f"{where}: unknown record stage {stage!r}"]
        stages[stage] = document
        if stage == COMMITMENTS and ODDS in stages:
            odd = set(document.get("commitments") or {}) - set(stages[ODDS].get("participants") or [])
            if odd:
                return [f"{where}: commitments published for {', '.join(sorted(odd))}, who did not take part"]
        if stage == RESULT:
            return self._check_result(where, stages, self.reveals.get(seq, {}), document)
        return []

    def _add_list(self, document: Record) -> list[str]:
        if document.get("stage") == COMMITMENTS:
            self.list_commitments = document
            return []
        if document.get("stage") == LISTS:
            self.lists = document
            return self._lists_differ(document, "the lists the assignment began with")
        label = str(document.get("label"))
        self.list_reveals[label] = document
        committed = (self.list_commitments or {}).get("commitments") or {}
        if self.list_commitments is not None and not committed.get(label):
            return [f"lists: {label}'s list was published as revealed, but no commitment of {label} was published"]
        return []

    @staticmethod
    def _check_reveal(where: str, stages: Mapping[str, Record], document: Record) -> list[str]:
        label = document.get("label")
        published = stages.get(COMMITMENTS)
        if published is None:
            return []
        if not (published.get("commitments") or {}).get(label):
            return [f"{where}: a reveal of {label} was published, but no commitment of {label} was"]
        outcomes = stages.get(ODDS, {}).get("outcomes")
        if isinstance(outcomes, int) and not 0 <= _int(document.get("number")) < outcomes:
            return [f"{where}: {label} revealed {document.get('number')}, outside 0..{outcomes - 1}"]
        return []

    @staticmethod
    def _check_result(where: str, stages: Mapping[str, Record], reveals: Mapping[str, Record],
                      document: Record) -> list[str]:
        problems = []
        counted = {str(label): _int(number) for label, number in document.get("numbers") or []}
        defaulted = set(document.get("defaulted") or [])
        for label, reveal in sorted(reveals.items()):
            if label in defaulted:
                problems.append(f"{where}: {label}'s reveal of {reveal.get('number')} was published, yet the result "
                                f"counts {label} as not revealed (a dropped reveal)")
            elif counted.get(label) != _int(reveal.get("number")):
                problems.append(f"{where}: {label} revealed {reveal.get('number')}, the result counts "
                                f"{counted.get(label)}")
        for label in sorted(set(counted) - set(reveals) - defaulted):
            problems.append(f"{where}: the result counts {label}'s number {counted[label]}, "
                            f"but no reveal of {label} was published")
        odds = stages.get(ODDS)
        if odds is not None:
            outcomes = _int(odds.get("outcomes"))
            if set(counted) != set(odds.get("participants") or []):
                problems.append(f"{where}: the result counts {sorted(counted)}, the odds named "
                                f"{sorted(odds.get('participants') or [])}")
            if outcomes > 0 and sum(counted.values()) % outcomes != _int(document.get("result")):
                problems.append(f"{where}: the numbers sum to {sum(counted.values())}, so "
                                f"{sum(counted.values()) % outcomes} mod {outcomes}, not the published "
                                f"{document.get('result')}")
            winner = next((share[0] for share in odds.get("shares") or []
                           if _int(share[1]) <= _int(document.get("result")) <= _int(share[2])), None)
            if winner != document.get("winner"):
                problems.append(f"{where}: {document.get('result')} wins for {winner} by the published odds, "
                                f"not the published {document.get('winner')}")
        return problems

    def check_assignment(self, document: Record) -> tuple[list[str], list[str]]:
        """(notes, problems) of an assignment record against everything published before it."""
        problems: list[str] = []
        checked = 0
        names = {str(k): str(v) for k, v in (document.get("names") or {}).items()}
        for lottery in document.get("lotteries") or []:
            seq = _int(lottery.get("seq"))
            stages = self.lotteries.get(seq, {})
            where = f"lottery {seq}"
            odds = stages.get(ODDS)
            if odds is not None:
                checked += 1
                power = names.get(str(lottery.get("power")), lottery.get("power"))
                if odds.get("power") not in (power, lottery.get("power")) or odds.get("shares") != lottery.get("shares"):
                    problems.append(f"{where}: the record's odds {lottery.get('shares')} for {power} are not the "
                                    f"odds broadcast before it ({odds.get('shares')} for {odds.get('power')})")
            published = stages.get(COMMITMENTS)
            if published is not None:
                checked += 1
                problems += _commitments_differ(where, published.get("commitments") or {},
                                                lottery.get("commitments") or {})
            for label, reveal in sorted(self.reveals.get(seq, {}).items()):
                entry = (lottery.get("commitments") or {}).get(label) or {}
                if entry.get("revealed") != reveal.get("revealed"):
                    problems.append(f"{where}: {label}'s reveal in the record is not the one broadcast")
            result = stages.get(RESULT)
            if result is not None:
                checked += 1
                for key in ("numbers", "defaulted", "result", "winner"):
                    if result.get(key) != lottery.get(key):
                        problems.append(f"{where}: the record's {key} {lottery.get(key)} is not the broadcast "
                                        f"result's {result.get(key)}")
        problems += self._lists_differ(document, "the record")
        if self.lists is not None and self.lists.get("lists") != document.get("lists"):
            problems.append(f"lists: the record's lists {document.get('lists')} are not the ones broadcast when the "
                            f"assignment began ({self.lists.get('lists')})")
        if not self.lotteries and not checked:
            return ["no lottery broadcast in the archive to hold the record to"], problems
        return [f"held to {checked} earlier lottery broadcast(s)"], problems

    def _lists_differ(self, document: Record, what: str) -> list[str]:
        if self.list_commitments is None:
            return []
        committed = self.list_commitments.get("commitments") or {}
        lists = {str(label): str(text) for label, text in document.get("lists") or []}
        problems = []
        for label in sorted(committed):
            reveal = self.list_reveals.get(label)
            if reveal is not None and lists.get(label) != reveal.get("list"):
                problems.append(f"lists: {label}'s list {lists.get(label)} in {what} is not the one revealed "
                                f"({reveal.get('list')})")
            elif reveal is None and lists.get(label, "*") != "*":
                problems.append(f"lists: {label} has the list {lists.get(label)} in {what}, but no reveal of it "
                                f"was published")
        return problems


def _commitments_differ(where: str, published: Mapping[str, Any], recorded: Mapping[str, Any]) -> list[str]:
    problems = []
    for label in sorted(set(published) | set(recorded)):
        broadcast, entry = published.get(label), recorded.get(label)
        if broadcast is None and entry is None:
            continue
        if broadcast is None:
            problems.append(f"{where}: the record gives {label} a commitment, but the commitments broadcast "
                            f"had none for {label}")
        elif entry is None:
            problems.append(f"{where}: {label}'s published commitment is missing from the record")
        elif (entry.get("kind"), str(entry.get("data") or "").strip(), entry.get("fingerprint")) != (
                broadcast.get("kind"), str(broadcast.get("data") or "").strip(), broadcast.get("fingerprint")):
            problems.append(f"{where}: {label}'s commitment in the record is not the one broadcast when the "
                            f"commitments closed")
    return problems
