"""``judge audit ARCHIVE``: check a game's broadcasts independently of the judge.

A player saves the game's list mail (an mbox file, a Maildir, or a folder of ``.eml``
files) and runs the audit.  It trusts only the judge's public key (``--judge-key FILE``,
or the GET KEY reply found in the archive) and the rules engine, and checks:

1. every broadcast carrying a record is signed by the judge (PGP/MIME), and only what is
   inside the signed part is read;
2. every phase re-adjudicated from the published position and orders gives the published
   results, and the digests of the positions before and after match; each phase starts
   from the position the previous one ended with;
3. in a sealed game, each power's commitment (as published when commitments closed)
   against its revealed orders file, with gpg, and that the judge used exactly the orders
   in a verified file and none for a power whose reveal failed or was missing.

Records of other kinds (e.g. fair power assignment) are JSON attachments with their own
``format``, each checked by its checker in ``CHECKERS`` (one table at the end of this
module).  A format without a checker is reported as not checked, which is not a
discrepancy.
"""

from __future__ import annotations

import json
import mailbox
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from judge.crypto.armor import dearmor_all
from judge.crypto.commitments import verify_reveal, verify_sha256_reveal
from judge.crypto.gpg import Keyring, KeyImportError, scratch_home
from judge.crypto.pgpmime import verify_message
from judge.fair import audit as fair_audit
from judge.mailio.read import leaf_bytes
from judge.record import COMMITMENTS_FORMAT, FORMAT, REVEAL_FORMAT, keys_name, orders_from_revealed

__all__ = ["AuditReport", "Broadcast", "CHECKERS", "audit_archive", "audit_messages", "read_archive"]


class AuditError(Exception):
    """The audit cannot run at all (unreadable archive, no judge key); exit status 2."""


@dataclass(frozen=True)
class Broadcast:
    """One message of the archive: what its signature check said and the files it carries
    (from inside the signed part only, when it is signed)."""

    subject: str
    signed: bool
    valid: bool
    reason: str
    files: Mapping[str, bytes]
    index: int
    # ``REVEAL who@game`` in a player's own mail to the list: (who@game, bytes)
    player_reveals: tuple[tuple[str, bytes], ...] = ()
    # False: signed, but by another key than the judge's (a player's PGP/MIME mail)
    by_judge: bool = True

    @property
    def records(self) -> list[tuple[str, dict[str, Any]]]:
        found = []
        for name, data in self.files.items():
            if name.endswith(".json"):
                try:
                    document = json.loads(data)
                except (ValueError, UnicodeDecodeError):
                    continue
                if isinstance(document, dict) and isinstance(document.get("format"), str):
                    found.append((name, document))
        return found


@dataclass
class AuditReport:
    lines: list[str] = field(default_factory=list)
    discrepancies: list[str] = field(default_factory=list)
    phases: int = 0
    broadcasts: int = 0
    records: int = 0  # signed records handed to a checker (phases, commitments, assignments)

    def ok(self, where: str, text: str) -> None:
        self.lines.append(f"{where}: {text}")

    def bad(self, where: str, text: str) -> None:
        self.discrepancies.append(f"{where}: {text}")
        self.lines.append(f"{where}: DISCREPANCY: {text}")

    @property
    def passed(self) -> bool:
        return not self.discrepancies

    def text(self) -> str:
        verdict = "PASSED" if self.passed else f"FAILED: {len(self.discrepancies)} discrepancy(ies)"
        return "\n".join([*self.lines, "", f"audit {verdict} ({self.broadcasts} signed broadcast(s), "
                                           f"{self.phases} phase(s) re-adjudicated)"]) + "\n"


# A checker for a record format: (report, broadcast, document, context) -> None.
Checker = Callable[[AuditReport, Broadcast, dict[str, Any], "Context"], None]


# -- reading the archive ----------------------------------------------------------------
def read_archive(path: str | Path) -> list[bytes]:
    """The raw messages of an mbox file, a Maildir, or a folder of .eml files."""
    path = Path(path)
    if not path.exists():
        raise AuditError(f"{path}: no such file or folder; give an mbox file, a Maildir or a folder of .eml files")
    if path.is_dir():
        if all((path / sub).is_dir() for sub in ("cur", "new")):
            maildir = mailbox.Maildir(str(path), factory=None, create=False)
            return [maildir.get_bytes(key) for key in sorted(maildir.keys())]
        files = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
        if not files:
            raise AuditError(f"{path}: the folder holds no mail files")
        return [p.read_bytes() for p in files]
    data = path.read_bytes()
    if data.startswith(b"From "):
        box = mailbox.mbox(str(path), create=False)
        return [box.get_bytes(key) for key in box.keys()]
    return [data]  # a single saved message


def _files(entity: EmailMessage) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for part in entity.walk():
        name = part.get_filename()
        if part.is_multipart() or not name or name == "signature.asc":
            continue
        found[name] = leaf_bytes(part)
    return found


def find_judge_key(messages: Iterable[bytes]) -> str | None:
    """The armored key of a GET KEY reply in the archive (the first one found)."""
    for raw in messages:
        message = message_from_bytes(raw, policy=policy.default)
        body = message.get_body(("plain",)) if isinstance(message, EmailMessage) else None
        text = body.get_content() if body is not None else ""
        if "judge's public OpenPGP key" not in text:
            continue
        for block in dearmor_all(text):
            if block.label == "PUBLIC KEY BLOCK":
                start = text.index("-----BEGIN PGP PUBLIC KEY BLOCK-----")
                end = text.index("-----END PGP PUBLIC KEY BLOCK-----") + len("-----END PGP PUBLIC KEY BLOCK-----")
                return text[start:end] + "\n"
    return None


def _broadcast(keyring: Keyring, judge_fingerprint: str, raw: bytes, index: int) -> Broadcast:
    message = message_from_bytes(raw, policy=policy.default)
    subject = str(message.get("Subject", "") or "(no subject)")
    if message.get_content_type() == "multipart/signed":
        checked = verify_message(keyring, raw, judge_fingerprint)
        inner = checked.signed_part
        files = _files(inner) if inner is not None else {}
        verdict = checked.verdict
        by_judge = checked.valid or verdict.fingerprint == judge_fingerprint or bool(
            verdict.key_id and judge_fingerprint.endswith(verdict.key_id))
        if not by_judge and isinstance(message, EmailMessage):  # a player's own signed mail to the list
            return Broadcast(subject, True, False, verdict.reason, files, index, _player_reveals(message),
                             by_judge=False)
        return Broadcast(subject, True, checked.valid, verdict.reason, files, index)
    assert isinstance(message, EmailMessage)
    return Broadcast(subject, False, False, "not signed", _files(message), index, _player_reveals(message))


def _player_reveals(message: EmailMessage) -> tuple[tuple[str, bytes], ...]:
    """The reveals a player posted to the game's list itself (``REVEAL who@game``)."""
    from judge.commands.commitments import Reveal
    from judge.commands.registry import parse_mail

    try:
        parsed = parse_mail(message)
    except Exception:  # a mail the parser cannot read holds no reveal to check
        return ()
    return tuple((command.target, command.data()) for command in parsed.commands
                 if isinstance(command, Reveal) and command.target)


# -- the checks --------------------------------------------------------------------------
@dataclass
class Context:
    keyring: Keyring
    # (game, phase) -> (commitments document, the files of its broadcast)
    commitments: dict[tuple[str, str], tuple[dict[str, Any], Mapping[str, bytes]]] = field(default_factory=dict)
    # game -> [(phase document, files)] in archive order
    phases: dict[str, list[tuple[dict[str, Any], Mapping[str, bytes]]]] = field(default_factory=dict)
    variants: dict[str, Any] = field(default_factory=dict)
    # what the checkers of other formats keep from earlier broadcasts (e.g. a game's lotteries)
    # keyed (kind, game, ...): ("sealed", game), ("results", game, phase), ("fair", game), ("lottery-result", game, seq)
    ledgers: dict[tuple[str | int, ...], Any] = field(default_factory=dict)

    def variant(self, name: str) -> Any:
        import maps

        if name not in self.variants:
            self.variants[name] = maps.load(name)
        return self.variants[name]


def _phase_key(phase: str) -> tuple[int, int, int]:
    try:
        return int(phase[1:-1]), "SFW".index(phase[0].upper()), "MRA".index(phase[-1].upper())
    except ValueError:
        return (10**6, 0, 0)


def readjudicate(context: Context, input_doc: Mapping[str, Any]) -> tuple[dict[str, Any], str, str]:
    """(output document, digest before, digest after) computed here from the input alone,
    the way the judge processes a phase: each order line parsed, lines that cannot be
    read or are illegal reported void, then the engine."""
    from adjudicator import api
    from adjudicator.jsonio import order_texts_from_json, position_from_json, results_to_json, rules_from_json
    from adjudicator.results import OrderResult

    variant = context.variant(str(input_doc.get("map", "standard")))
    position = position_from_json(variant, input_doc)
    texts = order_texts_from_json(variant, input_doc)
    rules = api.check_rules(rules_from_json(input_doc, api.RULES))
    orders: dict[str, list[Any]] = {}
    unreadable: list[OrderResult] = []
    for power, lines in sorted(texts.items()):
        for line in lines:
            try:
                orders.setdefault(power, []).append(api.parse_order(api.prepare(variant, position), power, line))
            except (api.OrderSyntaxError, api.IllegalOrder) as problem:
                unreadable.append(OrderResult(power, line, "void", problem.reason))
    adjudication = api.adjudicate(api.prepare(variant, position), orders, rules)
    output = results_to_json(position.phase, adjudication, unreadable)
    return output, api.position_digest(position), api.position_digest(adjudication.position)


def _first_difference(ours: Any, theirs: Any, where: str = "") -> str:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            if ours.get(key) != theirs.get(key):
                return _first_difference(ours.get(key), theirs.get(key), f"{where}.{key}" if where else key)
    if isinstance(ours, list) and isinstance(theirs, list):
        for i, (a, b) in enumerate(zip(ours, theirs)):
            if a != b:
                return _first_difference(a, b, f"{where}[{i}]")
        if len(ours) != len(theirs):
            return f"{where}: {len(theirs)} items published, {len(ours)} computed"
    return f"{where}: published {json.dumps(theirs)}, computed {json.dumps(ours)}"


def check_phase(report: AuditReport, broadcast: Broadcast, document: dict[str, Any], context: Context) -> None:
    game, phase = str(document.get("game")), str(document.get("phase"))
    where = f"{game} {phase}"
    input_doc, output_doc = document.get("input"), document.get("output")
    if not isinstance(input_doc, dict) or not isinstance(output_doc, dict):
        report.bad(where, "the record has no input or output document")
        return
    try:
        output, before, after = readjudicate(context, input_doc)
    except Exception as problem:  # a record the engine cannot read is itself a discrepancy
        report.bad(where, f"the published position or orders cannot be read: {problem}")
        return
    report.phases += 1
    notes = []
    if output != output_doc:
        report.bad(where, f"re-adjudication differs from the published results: {_first_difference(output, output_doc)}")
    else:
        notes.append(f"results re-adjudicated: same ({len(output['results'])} orders)")
    if before != document.get("digest_before"):
        report.bad(where, f"digest of the position before is {before}, published {document.get('digest_before')}")
    if after != document.get("digest_after"):
        report.bad(where, f"digest of the position after is {after}, published {document.get('digest_after')}")
    else:
        notes.append(f"digest after {after[:16]}...: same")
    if "sealed" in document:
        notes.append(check_sealed(report, where, document, broadcast.files, context))
    for key in document:
        if key == "fair":
            checker = CHECKERS.get("fair")
            if checker is None:
                notes.append("fair-assignment record present, not checked (no checker installed)")
            else:
                checker(report, broadcast, document, context)
    report.ok(where, "; ".join(n for n in notes if n))
    context.phases.setdefault(game, []).append((document, broadcast.files))
    context.ledgers[("results", game, phase)] = broadcast.index


def _verify_file(context: Context, entry: Mapping[str, Any], commitment: bytes, revealed: bytes):
    if entry.get("kind") == "sha256":
        return verify_sha256_reveal(commitment.decode("ascii", "replace").strip(), revealed)
    return verify_reveal(context.keyring, commitment, revealed, str(entry.get("fingerprint") or ""))


def check_sealed(report: AuditReport, where: str, document: Mapping[str, Any], files: Mapping[str, bytes],
                 context: Context) -> str:
    """Each power's commitment against its revealed file, and the orders the judge used."""
    from adjudicator.jsonio import position_from_json

    sealed = document["sealed"]
    input_doc = document["input"]
    used = {power: list(lines) for power, lines in dict(input_doc.get("orders", {})).items() if lines}
    variant = context.variant(str(input_doc.get("map", "standard")))
    position = position_from_json(variant, input_doc)
    published = context.commitments.get((str(document["game"]), str(document["phase"])))
    tally: dict[str, int] = {}
    for power, entry in sorted(sealed.items()):
        outcome = str(entry.get("outcome"))
        tally[outcome] = tally.get(outcome, 0) + 1
        here = f"{where} {power}"
        commitment = files.get(str(entry.get("commitment"))) if entry.get("commitment") else None
        if entry.get("commitment") and commitment is None:
            report.bad(here, f"the results name the commitment {entry['commitment']} but do not carry it")
            continue
        if commitment is not None and published is not None:
            listed = published[0].get("commitments", {}).get(power)
            if listed is None or published[1].get(str(listed.get("file"))) != commitment:
                report.bad(here, "the commitment in the results is not the one published when commitments closed")
            elif listed.get("fingerprint") != entry.get("fingerprint"):
                report.bad(here, "the key named in the results is not the one published with the commitments")
        elif commitment is not None and published is None:
            report.lines.append(f"{here}: note: the commitments broadcast of this phase is not in the archive")
        revealed = files.get(str(entry.get("revealed"))) if entry.get("revealed") else None
        broadcast_reveal = context.ledgers.get(("sealed", str(document["game"])), {}).get((str(document["phase"]), power))
        if broadcast_reveal is not None and outcome != "verified":
            report.bad(here, f"marked {outcome}, but its reveal matching the commitment was broadcast "
                             f"(message {broadcast_reveal[1] + 1}): a dropped reveal")
            continue
        if broadcast_reveal is not None and revealed != broadcast_reveal[0]:
            report.bad(here, "the revealed file in the results is not the one broadcast when it was revealed")
            continue
        verdict = _verify_file(context, entry, commitment, revealed) if commitment and revealed is not None else None
        if outcome == "verified":
            if verdict is None or not verdict.valid or revealed is None:
                report.bad(here, f"marked verified, but the revealed file does not match the commitment: "
                                 f"{verdict.reason if verdict else 'no commitment or file'}")
                continue
            read = orders_from_revealed(variant, position, power, revealed)
            if list(read.orders) != list(entry.get("orders", [])) or list(read.orders) != used.get(power, []):
                report.bad(here, f"the orders used ({used.get(power, [])}) are not the orders in the verified file "
                                 f"({list(read.orders)})")
        else:
            if verdict is not None and verdict.valid:
                report.bad(here, f"marked {outcome}, but the revealed file DOES match the commitment")
            if used.get(power):
                report.bad(here, f"marked {outcome}, yet orders were used for it: {used[power]}")
    for power in sorted(set(used) - set(sealed)):
        report.bad(f"{where} {power}", "orders were used for a power without a sealed verdict")
    return "sealed: " + ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in sorted(tally.items())) + " (checked with gpg)"


def check_commitments(report: AuditReport, broadcast: Broadcast, document: dict[str, Any], context: Context) -> None:
    game, phase = str(document.get("game")), str(document.get("phase"))
    where = f"{game} {phase} commitments"
    keys = broadcast.files.get(keys_name(game, phase), b"")
    if keys.strip():
        try:
            context.keyring.import_key_bundle(keys.decode("ascii"))
        except Exception as problem:
            report.bad(where, f"the players' keys cannot be read: {problem}")
    missing = [entry.get("file") for entry in document.get("commitments", {}).values()
               if entry.get("file") not in broadcast.files]
    if missing:
        report.bad(where, f"the list names files the mail does not carry: {', '.join(map(str, missing))}")
    key = (game, phase)
    if key in context.commitments and context.commitments[key][0] != document:
        report.bad(where, "two different commitment lists were published for the same phase")
    context.commitments[key] = (document, broadcast.files)
    report.ok(where, f"{len(document.get('commitments', {}))} commitment(s) published, signed by the judge")


def check_reveal_record(report: AuditReport, broadcast: Broadcast, document: dict[str, Any], context: Context) -> None:
    """A reveal broadcast as it arrived: its file against the published commitment; kept so
    that the phase's results can be held to it (a verified reveal cannot be dropped later)."""
    game, phase, power = str(document.get("game")), str(document.get("phase")), str(document.get("power"))
    where = f"{game} {phase} {power} reveal"
    revealed = broadcast.files.get(str(document.get("revealed")))
    published = context.commitments.get((game, phase))
    if revealed is None:
        report.bad(where, f"the reveal broadcast does not carry {document.get('revealed')}")
        return
    if published is None:
        report.bad(where, "the commitments broadcast of this phase is not in the archive")
        return
    listed = published[0].get("commitments", {}).get(power)
    if listed is None:
        report.bad(where, "a reveal was broadcast for a power whose commitment was not published")
        return
    commitment = published[1].get(str(listed.get("file")), b"")
    verdict = _verify_file(context, listed, commitment, revealed)
    if not verdict.valid:
        report.bad(where, f"the broadcast reveal does not match the published commitment: {verdict.reason}")
        return
    context.ledgers.setdefault(("sealed", game), {})[(phase, power)] = (revealed, broadcast.index)
    report.ok(where, "matches the published commitment (checked with gpg)")


#: The checker of each record format.
CHECKERS: Mapping[str, Checker] = {
    FORMAT: check_phase,
    COMMITMENTS_FORMAT: check_commitments,
    REVEAL_FORMAT: check_reveal_record,
    fair_audit.FORMAT: fair_audit.check,
    fair_audit.LOTTERY_FORMAT: fair_audit.check_lottery_record,
    fair_audit.LISTS_FORMAT: fair_audit.check_lottery_record,
}


def _check_chain(report: AuditReport, context: Context) -> None:
    for game, entries in context.phases.items():
        ordered = sorted(entries, key=lambda item: _phase_key(str(item[0].get("phase"))))
        for (earlier, _), (later, _) in zip(ordered, ordered[1:]):
            where = f"{game} {later.get('phase')}"
            if earlier.get("output", {}).get("next_phase") != later.get("phase"):
                report.bad(where, f"the archive has no record of the phase after {earlier.get('phase')} "
                                  f"({earlier.get('output', {}).get('next_phase')}) before this one")
            elif earlier.get("digest_after") != later.get("digest_before"):
                report.bad(where, f"does not start from the position {earlier.get('phase')} ended with")


def check_player_reveals(report: AuditReport, context: Context, broadcasts: Iterable[Broadcast]) -> None:
    """A player's own reveal on the list, matching its published commitment, proves that a
    result calling it missing dropped it (when the reveal came before that result)."""
    for item in broadcasts:
        for target, data in item.player_reveals:
            who, _, game = target.partition("@")
            where = f"message {item.index + 1} (REVEAL {target})"
            if not (_check_sealed_player_reveal(report, context, where, item.index, game, who.upper(), data)
                    or fair_audit.check_player_reveal(report, context, where, item.index, game, who.upper(), data)):
                report.lines.append(f"{where}: note: matches no published commitment")


def _check_sealed_player_reveal(report: AuditReport, context: Context, where: str, index: int, game: str,
                                power: str, data: bytes) -> bool:
    for (name, phase), (document, files) in sorted(context.commitments.items()):
        listed = document.get("commitments", {}).get(power) if name == game else None
        if listed is None:
            continue
        verdict = _verify_file(context, listed, files.get(str(listed.get("file")), b""), data)
        if not verdict.valid:
            continue
        results = context.ledgers.get(("results", game, phase))
        record = next((doc for doc, _ in context.phases.get(game, []) if doc.get("phase") == phase), None)
        outcome = str(((record or {}).get("sealed") or {}).get(power, {}).get("outcome"))
        fair_audit.own_reveal_verdict(
            report, where, index, subject=f"{game} {phase} {power}", owner=power, round_text=f"for {phase}",
            published_at=None if record is None else results,
            dropped_as=f"marked {outcome}" if outcome != "verified" else None, settled=f"the results: {outcome}")
        return True
    return False


def audit_messages(messages: list[bytes], judge_key: str, home: Path) -> AuditReport:
    """Audit ``messages`` with ``judge_key`` (armored) in the GnuPG home ``home``."""
    report = AuditReport()
    keyring = Keyring(home)
    try:
        try:
            fingerprint = keyring.import_public_key(judge_key)
        except KeyImportError as problem:
            raise AuditError(f"the judge key cannot be used: {problem}") from None
        report.lines.append(f"judge key {fingerprint}")
        context = Context(keyring)
        broadcasts = [_broadcast(keyring, fingerprint, raw, i) for i, raw in enumerate(messages)]
        seen: dict[tuple[str, str], bytes] = {}
        pending: list[tuple[Broadcast, dict[str, Any]]] = []
        for item in broadcasts:
            records = item.records
            if not item.signed:
                if records:
                    report.bad(f"message {item.index + 1} ({item.subject})", "carries a record but is not signed")
                continue
            if not item.valid and not item.by_judge and not records:
                report.lines.append(f"message {item.index + 1} ({item.subject}): note: signed by another key than "
                                    "the judge's; read as a player's mail")
                continue
            if not item.valid:
                report.bad(f"message {item.index + 1} ({item.subject})", f"judge signature: {item.reason}")
                continue
            report.broadcasts += 1
            for name, document in records:
                key = (name, json.dumps(document, sort_keys=True))
                if (name, "") in seen:
                    if seen[(name, "")] != key[1].encode():
                        report.bad(name, "two different versions of this record were broadcast")
                    continue
                seen[(name, "")] = key[1].encode()
                pending.append((item, document))
        # Commitments first (they carry the players' keys), then phases in order, each phase's
        # reveal broadcasts before its results; a game's fair records in the order they were
        # published, the assignment record last.
        pending.sort(key=lambda pair: (pair[1].get("format") != COMMITMENTS_FORMAT,
                                       str(pair[1].get("game")), _phase_key(str(pair[1].get("phase", ""))),
                                       pair[1].get("format") != REVEAL_FORMAT, fair_audit.order(pair[1])))
        for item, document in pending:
            checker = CHECKERS.get(str(document.get("format")))
            if checker is None:
                report.lines.append(f"{item.subject}: record format {document.get('format')!r} not checked (no checker)")
                continue
            report.records += 1
            checker(report, item, document, context)
        _check_chain(report, context)
        check_player_reveals(report, context, broadcasts)
        if report.records == 0 and not report.discrepancies:
            report.bad("archive", "no signed record found (phase, commitments, assignment): nothing could be checked")
    finally:
        keyring.close()
    return report


def audit_archive(path: str | Path, judge_key_file: str | Path | None = None) -> AuditReport:
    messages = read_archive(path)
    if judge_key_file is not None:
        judge_key = Path(judge_key_file).read_text(encoding="ascii", errors="replace")
    else:
        found = find_judge_key(messages)
        if found is None:
            raise AuditError("no judge key: the archive holds no GET KEY reply; give --judge-key FILE "
                             "(send GET KEY to the judge and save the key block)")
        judge_key = found
    with scratch_home("audit") as home:
        return audit_messages(messages, judge_key, home)
