"""``judge audit`` for power assignments: the record ``<game>-assignment.json`` that the
judge broadcasts (signed) when every power is assigned, checked from the record alone.

    {"format": "dipjudge-assignment/1", "game": ..., "powers": ["A", "E", ...],
     "names": {"A": "AUSTRIA", ...}, "lists": [["P1", "AE(GI)R"], ...],
     "lotteries": [{"seq": 1, "power": "F", "outcomes": 7,
                    "shares": [["P2", 0, 2], ["P3", 3, 3], ["P6", 4, 6]],
                    "numbers": [["P1", 0], ...], "defaulted": ["P7"],
                    "commitments": {"P1": {"kind": "signature", "data": armored, "revealed": "0\\n",
                                           "fingerprint": ...}, ...},
                    "result": 5, "winner": "P6"}, ...],
     "keys": armored public keys of the players (optional),
     "assignment": {"P1": "AUSTRIA", ...}}

The checker re-sums every lottery, recomputes every contest and the whole assignment with
:func:`judge.fair.assignment.replay` from the published lists, and (where the record
carries them) verifies each revealed number against its commitment.
"""

from __future__ import annotations

from typing import Any

from judge.fair.assignment import AssignmentError, next_contest, replay, start_assignment
from judge.fair.ledger import COMMITMENTS, FORMAT as LOTTERY_FORMAT, LISTS_FORMAT, RESULT, REVEAL, Ledger, sort_key
from judge.fair.preferences import PreferenceError, parse_preferences

FORMAT = "dipjudge-assignment/1"


def record_name(game: str) -> str:
    return f"{game}-assignment.json"


def check_record(document: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(notes, problems) of an assignment record; pure (no signature checks)."""
    notes: list[str] = []
    problems: list[str] = []
    try:
        powers = tuple(str(p) for p in document["powers"])
        names = {str(k): str(v) for k, v in document["names"].items()}
        entries = [(str(label), parse_preferences(str(text), powers)) for label, text in document["lists"]]
        lotteries = list(document["lotteries"])
        claimed = {str(k): str(v) for k, v in document["assignment"].items()}
    except (KeyError, TypeError, ValueError, PreferenceError) as problem:
        return notes, [f"the record cannot be read: {problem}"]
    results: list[int] = []
    try:
        state = start_assignment(powers, entries)
        for lottery in lotteries:
            seq = lottery.get("seq")
            contest = next_contest(state)
            if contest is None:
                problems.append(f"lottery {seq}: no contest was left to decide")
                break
            published = [[str(p) if p is not None else None, int(a), int(b)] for p, a, b in lottery["shares"]]
            computed = [[s.player, s.numbers.start, s.numbers.stop - 1] for s in contest.shares]
            if published != computed or str(lottery["power"]) != contest.power:
                problems.append(f"lottery {seq}: published odds {published} for {lottery['power']}, "
                                f"computed {computed} for {contest.power}")
            numbers = [int(n) for _, n in lottery["numbers"]]
            outcome = sum(numbers) % contest.outcomes
            if outcome != int(lottery["result"]):
                problems.append(f"lottery {seq}: the numbers sum to {sum(numbers)}, so {outcome} mod "
                                f"{contest.outcomes}, not the published {lottery['result']}")
            if contest.winner(outcome) != lottery.get("winner"):
                problems.append(f"lottery {seq}: {outcome} wins for {contest.winner(outcome)}, "
                                f"not the published {lottery.get('winner')}")
            results.append(outcome)
            state = replay(powers, entries, results)
    except (AssignmentError, ValueError, TypeError, KeyError) as problem:
        return notes, problems + [f"the assignment cannot be recomputed: {problem}"]
    if not state.finished:
        problems.append("the published lotteries do not finish the assignment")
    computed_assignment = {label: names.get(letter, letter) for label, letter in state.assignment.items()}
    if computed_assignment != claimed:
        problems.append(f"the assignment recomputed is {computed_assignment}, published {claimed}")
    else:
        notes.append(f"assignment recomputed from {len(entries)} lists and {len(results)} lotteries: same")
    return notes, problems


def verify_numbers(document: dict[str, Any], keyring: Any) -> tuple[list[str], list[str]]:
    """Each revealed number against its commitment (signatures need the players' keys)."""
    notes: list[str] = []
    problems: list[str] = []
    if document.get("keys"):
        keyring.import_key_bundle(str(document["keys"]))
    checked = 0
    for lottery in document.get("lotteries", []):
        numbers = {str(label): int(n) for label, n in lottery.get("numbers", [])}
        for label, entry in (lottery.get("commitments") or {}).items():
            revealed = entry.get("revealed")
            if revealed is None:
                continue
            data = str(revealed).encode("utf-8")
            verdict = _verify_entry(keyring, entry, str(revealed))
            if not verdict.valid:
                problems.append(f"lottery {lottery.get('seq')}: {label}'s number does not match its commitment: "
                                f"{verdict.reason}")
                continue
            first_line = data.decode("utf-8").strip().splitlines()[0] if data.strip() else ""
            if first_line.isdigit() and int(first_line) != numbers.get(label):
                problems.append(f"lottery {lottery.get('seq')}: {label} revealed {first_line}, "
                                f"counted {numbers.get(label)}")
            checked += 1
    if checked:
        notes.append(f"{checked} revealed number(s) verified against their commitments")
    return notes, problems


def ledger_of(context: Any, game: str) -> Ledger:
    """The game's lottery broadcasts seen so far in this audit (kept in ``context.ledgers``)."""
    return context.ledgers.setdefault(("fair", game), Ledger())


def check(report: Any, broadcast: Any, document: dict[str, Any], context: Any) -> None:
    """The ``judge audit`` checker of this format (listed in judge.audit.CHECKERS): the
    record on its own, then against every lottery broadcast before it."""
    where = f"{document.get('game')} assignment"
    notes, problems = check_record(document)
    more_notes, more_problems = verify_numbers(document, context.keyring)
    held_notes, held_problems = ledger_of(context, str(document.get("game"))).check_assignment(document)
    for problem in problems + more_problems + held_problems:
        report.bad(where, problem)
    if not problems and not more_problems and not held_problems:
        report.ok(where, "; ".join(notes + more_notes + held_notes))


def check_lottery_record(report: Any, broadcast: Any, document: dict[str, Any], context: Any) -> None:
    """The checker of lottery and list records (judge/fair/ledger.py): each against the
    earlier ones, and a published reveal against its published commitment with gpg."""
    game = str(document.get("game"))
    book = ledger_of(context, game)
    if document.get("keys"):
        context.keyring.import_key_bundle(str(document["keys"]))
    stage = str(document.get("stage"))
    if document.get("format") == LISTS_FORMAT:
        where = f"{game} lists {stage}" + (f" {document.get('label')}" if stage == REVEAL else "")
        committed = (book.list_commitments or {}).get("commitments") or {}
    else:
        where = f"{game} lottery {document.get('seq')} {stage}" + (f" {document.get('label')}" if stage == REVEAL else "")
        committed = (book.lotteries.get(int(document.get("seq") or 0), {}).get(COMMITMENTS) or {}).get("commitments") or {}
    problems = book.add(document)
    if stage == RESULT:
        context.ledgers[("lottery-result", game, int(document.get("seq") or 0))] = broadcast.index
    note = "signed by the judge"
    if stage == REVEAL:
        entry = committed.get(str(document.get("label")))
        if entry:
            verdict = _verify_entry(context.keyring, entry, str(document.get("revealed") or ""))
            if verdict.valid:
                note = "matches the commitment published before (checked)"
            else:
                problems.append(f"the published reveal does not match the published commitment: {verdict.reason}")
    for problem in problems:
        report.bad(where, problem)
    if not problems:
        report.ok(where, note)


def check_player_reveal(report: Any, context: Any, where: str, index: int, game: str, label: str,
                        data: bytes) -> bool:
    """A player's own lottery reveal from the list: if it matches the published commitment
    and came before the result, the result must have counted it (True: it matched one)."""
    book = ledger_of(context, game)
    text = data.decode("utf-8", "replace")
    for seq, stages in sorted(book.lotteries.items()):
        entry = ((stages.get(COMMITMENTS) or {}).get("commitments") or {}).get(label)
        if not entry or not _verify_entry(context.keyring, entry, text).valid:
            continue
        result = stages.get(RESULT)
        published_at = context.ledgers.get(("lottery-result", game, seq))
        own_reveal_verdict(report, where, index, subject=f"{game} lottery {seq}", owner=label,
                           round_text=f"in lottery {seq}", published_at=None if result is None else published_at,
                           dropped_as=(f"{label} counted as not revealed"
                                       if label in ((result or {}).get("defaulted") or []) else None),
                           settled="it was counted")
        return True
    return False


def own_reveal_verdict(report: Any, where: str, index: int, *, subject: str, owner: str, round_text: str,
                       published_at: int | None, dropped_as: str | None, settled: str) -> None:
    """The verdict on ``owner``'s own reveal, message ``index`` of the archive (``where``),
    which matches its commitment ``round_text`` ("for S1901M", "in lottery 2"): a note when
    the result is not in the archive (``published_at`` None); a discrepancy of ``subject``
    when the result, published after the reveal, did not count it (``dropped_as`` says how
    it treated it instead); else confirmed, ``settled`` saying what the result made of it.
    Sealed orders and lotteries alike."""
    if published_at is None:
        report.lines.append(f"{where}: matches {owner}'s commitment {round_text}; its result is not in the archive")
    elif dropped_as is not None and index < published_at:
        report.bad(subject, f"{dropped_as}, but {owner}'s own reveal in {where}, sent before the result, "
                            "matches its commitment: a dropped reveal")
    else:
        report.ok(where, f"{owner}'s own reveal {round_text} matches its commitment; {settled}")


def _verify_entry(keyring: Any, entry: dict[str, Any], revealed: str) -> Any:
    from judge.crypto.commitments import verify_reveal, verify_sha256_reveal

    data = revealed.encode("utf-8")
    if entry.get("kind") == "sha256":
        return verify_sha256_reveal(str(entry.get("data", "")), data)
    return verify_reveal(keyring, str(entry.get("data", "")).encode("ascii"), data, str(entry.get("fingerprint") or ""))


def order(document: dict[str, Any]) -> tuple[int, int, int, str]:
    """Where a fair record is checked among a game's records: lists and lotteries in the
    order they were published, the assignment record after them all."""
    if document.get("format") in (LOTTERY_FORMAT, LISTS_FORMAT):
        return sort_key(document)
    return (2, 0, 0, "")

