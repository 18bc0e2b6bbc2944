"""judge audit holds a fair assignment to every lottery broadcast before it (issue 12.8, 12.9).

A real judge (real gpg key, real worker) runs one lottery: Austria between P1 and P2, all
seven players drawing numbers with SHA-256 commitments; P3 commits and then stays silent,
so it counts as 0.  The master's copies of the broadcasts are the archive.  A dishonest
judge then edits only ``g1-assignment.json`` and re-signs it with its own key; the audit
must find the edit from the earlier signed broadcasts (commitments, reveals, result)."""

from __future__ import annotations

import hashlib
import json
from email import message_from_bytes, policy
from typing import Callable

import pytest
from sqlalchemy import select

from judge.audit import AuditReport, audit_messages
from judge.crypto.pgpmime import sign_message
from judge.fair.audit import check_record
from judge.publish.signing import ensure_judge_key, judge_keyring
from judge.store.models_mail import OutboxMessage
from tests.fixtures.gpg import remove_home, short_home
from tests.judge.commands.conftest import MASTER
from tests.judge.commands.test_fair_escrow import LISTS, KeyedJudge, keyed, ok, signon  # noqa: F401  (fixture)

pytestmark = pytest.mark.gpg

SILENT = 2  # P3 commits and never reveals


def number_file(index: int, number: int) -> str:
    return f"{number}\nSALT ledger-salt-of-player-{index}\n"


def play(keyed: KeyedJudge) -> tuple[list[bytes], str]:
    """The master's copies of every broadcast of an honest game, and the judge's key."""
    ensure_judge_key(keyed.judge)
    ok(keyed.send(MASTER, "CREATE g1 masterpw\nRULE PREFERENCES\nRULE LOTTERY_SHA256\nFORM\n"))
    for index, wanted in enumerate(LISTS):
        ok(keyed.mail(f"p{index}@example.net", f"JOIN g1 pw{index}\nSET PREFERENCE {wanted}\n"))
    numbers = [1, 0, 1, 0, 0, 0, 0]  # P3's 1 is never revealed: 1 + 0 = 1 mod 2: P2 gets Austria
    for index, number in enumerate(numbers):
        digest = hashlib.sha256(number_file(index, number).encode()).hexdigest()
        ok(keyed.mail(f"p{index}@example.net", signon(index) + f"COMMIT SHA256 {digest}\n"))
    for index, number in enumerate(numbers):
        if index != SILENT:
            ok(keyed.mail(f"p{index}@example.net", signon(index) + f"REVEAL\n{number_file(index, number)}ENDREVEAL\n"))
    keyed.advance(days=2)
    keyed.due()  # the reveal deadline: P3 counts as 0
    reply = ok(keyed.send(MASTER, "GET KEY\n")).reply.body
    start, end = "-----BEGIN PGP PUBLIC KEY BLOCK-----", "-----END PGP PUBLIC KEY BLOCK-----"
    armored = reply[reply.index(start):reply.index(end) + len(end)]
    with keyed.session() as session:
        archive = [row.raw for row in session.execute(select(OutboxMessage).order_by(OutboxMessage.id)).scalars()
                   if MASTER in row.recipients and row.kind != "reply"]
    return archive, armored


def audit(archive: list[bytes], key: str) -> AuditReport:
    home = short_home("al")
    try:
        return audit_messages(archive, key, home)
    finally:
        remove_home(home)


def re_signed(keyed: KeyedJudge, raw: bytes, name: str, change: Callable[[dict], None]) -> bytes:
    """``raw`` with its attached record ``name`` changed and signed again with the judge's key,
    as a dishonest judge could do."""
    message = message_from_bytes(raw, policy=policy.default)
    inner = message.get_payload()[0]
    for part in inner.walk():
        if part.get_filename() == name:
            document = json.loads(part.get_payload(decode=True))
            change(document)
            part.set_content(json.dumps(document).encode(), maintype="application", subtype="json", filename=name)
    with judge_keyring(keyed.judge) as key:
        signed = sign_message(key.keyring, inner, key.fingerprint)
    for header in ("From", "To", "Subject", "Date", "Message-ID"):
        signed[header] = message[header]
    return signed.as_bytes()


def forge(keyed: KeyedJudge, archive: list[bytes], subject: str, name: str, change: Callable[[dict], None]) -> list[bytes]:
    out, done = [], False
    for raw in archive:
        if subject in str(message_from_bytes(raw, policy=policy.default)["Subject"]):
            raw, done = re_signed(keyed, raw, name, change), True
        out.append(raw)
    assert done, subject
    return out


def give_the_silent_player_a_number(document: dict) -> None:
    """P3 'revealed' 1 after all: 1 + 1 = 0 mod 2, so Austria goes to P1 instead."""
    lottery = document["lotteries"][0]
    forged = number_file(SILENT, 1).replace("ledger-salt", "forged-salt")
    lottery["commitments"]["P3"] = {"kind": "sha256", "data": hashlib.sha256(forged.encode()).hexdigest(),
                                    "fingerprint": None, "revealed": forged}
    lottery["numbers"] = [[label, 1 if label == "P3" else n] for label, n in lottery["numbers"]]
    lottery["defaulted"] = []
    lottery["result"], lottery["winner"] = 0, "P1"
    assignment = document["assignment"]
    assignment["P1"], assignment["P2"] = assignment["P2"], assignment["P1"]


def test_an_honest_assignment_is_held_to_every_lottery_broadcast(keyed: KeyedJudge) -> None:
    archive, key = play(keyed)
    report = audit(archive, key)
    assert report.passed, report.text()
    text = report.text()
    assert "g1 lottery 1 commitments: signed by the judge" in text
    # each verified reveal was broadcast as it arrived, and checked against its commitment
    assert text.count("matches the commitment published before (checked)") == 6
    assert "g1 lottery 1 reveal P3" not in text
    assert "held to 3 earlier lottery broadcast(s)" in text
    assert "g1 lists lists: signed by the judge" in text  # the lists the assignment began with


def test_a_re_signed_assignment_record_with_a_forged_commitment_fails(keyed: KeyedJudge) -> None:
    archive, key = play(keyed)
    forged = forge(keyed, archive, "powers assigned", "g1-assignment.json", give_the_silent_player_a_number)
    # the forged record is consistent in itself: the record alone cannot tell
    document = next(doc for raw in forged for doc in _records(raw) if doc.get("format") == "dipjudge-assignment/1")
    assert check_record(document)[1] == []
    report = audit(forged, key)
    assert not report.passed
    problems = "\n".join(report.discrepancies)
    assert "P3's commitment in the record is not the one broadcast" in problems, report.text()
    assert "the record's result 0 is not the broadcast result's 1" in problems


def test_a_result_that_drops_a_published_reveal_fails(keyed: KeyedJudge) -> None:
    """The judge publishes P2's reveal, then counts P2 as silent in a re-signed result."""
    archive, key = play(keyed)

    def drop_p2(document: dict) -> None:
        document["numbers"] = [[label, 0 if label == "P2" else n] for label, n in document["numbers"]]
        document["defaulted"] = sorted([*document["defaulted"], "P2"])

    forged = forge(keyed, archive, "lottery 1 result", "g1-lottery-1-result.json", drop_p2)
    report = audit(forged, key)
    assert any("P2's reveal of 0 was published, yet the result counts P2 as not revealed (a dropped reveal)" in d
               for d in report.discrepancies), report.text()


def _records(raw: bytes) -> list[dict]:
    found = []
    for part in message_from_bytes(raw, policy=policy.default).walk():
        if (part.get_filename() or "").endswith(".json"):
            found.append(json.loads(part.get_payload(decode=True)))
    return found


def test_a_dropped_reveal_is_proven_by_the_players_own_mail_on_the_list(keyed: KeyedJudge) -> None:
    """P3 posted its reveal to the game's list before the result; the judge never counted it.
    The archive holds P3's own mail: it matches P3's published commitment, so the result's
    'P3 did not reveal' is a discrepancy.  The same mail after the result proves nothing."""
    from email.message import EmailMessage

    archive, key = play(keyed)
    own = EmailMessage()
    own["From"], own["To"], own["Subject"] = "p2@example.net", "g1@lists.example.net", "my number"
    own.set_content(f"REVEAL p3@g1\n{number_file(SILENT, 1)}ENDREVEAL\n")
    result_at = next(i for i, raw in enumerate(archive)
                     if "lottery 1 result" in str(message_from_bytes(raw, policy=policy.default)["Subject"]))
    before = [*archive[:result_at], own.as_bytes(), *archive[result_at:]]
    report = audit(before, key)
    assert any("g1 lottery 1: P3 counted as not revealed, but P3's own reveal in message" in d
               and "a dropped reveal" in d for d in report.discrepancies), report.text()
    after = [*archive, own.as_bytes()]
    assert audit(after, key).passed
