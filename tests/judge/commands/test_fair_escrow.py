"""Signed lottery commitments and the last-number escrow by email, with seven real keys.

One lottery (Austria, wanted by P1 and P2); P1 is the designated last revealer and
deposits an escrow built with ``judge player escrow build``.  P1 then vanishes: the judge
has the layers peeled by email (``judge player escrow peel``), layer by layer."""

from __future__ import annotations

import hashlib
import json
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Iterator

import pytest
from sqlalchemy import select

from judge.cli import main as judge_main
from judge.config import JudgeSettings
from judge.crypto.escrow import REFERENCE_LAYERS
from judge.crypto.gpg import Keyring
from judge.fair.audit import verify_numbers, check_record
from judge.commands import process_mail
from judge.edge.fair_due import fair_due_work
from judge.store.models_fair import FairEscrow, FairLottery
from judge.store.models_game import Game, Membership
from judge.store.models_mail import OutboxMessage
from judge.daemon.worker import Worker
from tests.fixtures.gpg import PlayerKey, remove_home, short_home
from tests.judge.commands.conftest import MASTER
from tests.judge.commands.harness import JudgeHarness, Outcome, Sent

LISTS = ("A", "A", "E", "F", "G", "I", "R")  # one contest: Austria between P1 and P2


class KeyedJudge(JudgeHarness):
    """The commands' harness with the judge's own GnuPG home (short, under /tmp)."""

    def __init__(self, directory: Path, judge: JudgeSettings) -> None:
        super().__init__(directory)
        self.judge = self.settings = judge
        self.worker = Worker(self.store, judge, process_mail, clock=lambda: self.now)

    def mail(self, sender: str, body: str, attachments: tuple[tuple[str, bytes], ...] = ()) -> Outcome:
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, self.judge.address, "commands"
        message.set_content(body)
        for name, data in attachments:
            message.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
        return self.outbox_since(self.deliver(message.as_bytes(), sender))

    def due(self) -> None:
        with self.store.unit_of_work() as session:
            from judge.mailio.outgoing import queue_all

            queue_all(session, fair_due_work(session, self.judge, self.now), self.judge, self.now)


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[KeyedJudge]:
    home = short_home("fj")
    judge = JudgeSettings(address="judge@example.org", domain="example.org", name="Test Judge",
                          data_dir=str(tmp_path), gnupg_home=str(home))
    harness = KeyedJudge(tmp_path, judge)
    yield harness
    harness.close()
    remove_home(home)


def ok(outcome: Outcome) -> Outcome:
    assert "ERROR" not in outcome.reply.body, outcome.reply.body
    return outcome


def signon(index: int) -> str:
    return f"SIGNON p{index + 1}@g1 pw{index}\n"


def sign_number(player: PlayerKey, number: int) -> bytes:
    with player.keyring() as ring:
        return ring.sign_detached(f"{number}\n".encode(), player.fingerprint)


def peel(player: PlayerKey, layer: str, escrower: PlayerKey, tmp: Path) -> bytes:
    source, target = tmp / f"in-{player.name}.asc", tmp / f"out-{player.name}.asc"
    source.write_text(layer)
    code = judge_main(["player", "escrow", "peel", "--gnupghome", str(player.home), "--escrower",
                       escrower.fingerprint, "--in", str(source), "--out", str(target)])
    assert code == 0
    return target.read_bytes()


def layer_in(mail: Sent) -> str:
    body = mail.body
    start = body.index("-----BEGIN PGP MESSAGE-----")
    end = body.index("-----END PGP MESSAGE-----") + len("-----END PGP MESSAGE-----")
    return body[start:end] + "\n"


def setup_lottery(keyed: KeyedJudge, players: tuple[PlayerKey, ...], tmp: Path) -> dict[str, bytes]:
    """The game, keys, lists; every commitment in, P1's with the escrow.  Returns P1's files."""
    ok(keyed.send(MASTER, "CREATE g1 masterpw\nRULE PREFERENCES\nRULE LOTTERY_ESCROW\nFORM\n"))
    for index, player in enumerate(players):
        ok(keyed.mail(player.email, f"SET KEY\n{player.public_key}"))
        joined = ok(keyed.mail(player.email, f"JOIN g1 pw{index}\nSET PREFERENCE {LISTS[index]}\n"))
    announced = joined.of_kind("fair_lottery")[0].body
    with keyed.session() as session:
        row = session.execute(select(FairLottery)).scalar_one()
        assert row.contest["fields"]["power"] == "AUSTRIA" and row.last_player == "P1"
    escrower, others = players[0], players[1:]
    keys = dict(zip("BCDEFG", (player.fingerprint for player in others)))
    layers = re.sub(r"[B-G]", lambda match: keys[match[0]], REFERENCE_LAYERS)
    assert f'--layers "{layers}"' in announced  # the announcement tells P1 what to build
    prefix = tmp / "p1number"
    assert judge_main(["player", "escrow", "build", "--gnupghome", str(escrower.home), "--number", "1",
                       "--outcomes", "2", "--signer", escrower.email, "--layers", layers,
                       "--prefix", str(prefix)]) == 0
    files = {"commitment": Path(f"{prefix}.asc").read_bytes(), "escrow": Path(f"{prefix}-escrow.asc").read_bytes()}
    for index, player in enumerate(others, start=1):
        ok(keyed.mail(player.email, signon(index) + "COMMIT\n" + sign_number(player, 0).decode()))
    published = ok(keyed.mail(escrower.email, signon(0) + "COMMIT\n" + files["commitment"].decode()
                              + "ESCROW\n" + files["escrow"].decode()))
    commitments = published.of_kind("fair_commitments")
    assert commitments and "P1 reveals last" in commitments[0].body
    return files


def run_peeling(keyed: KeyedJudge, players: tuple[PlayerKey, ...], tmp: Path, silent: set[str]) -> Outcome:
    """P2..P7 reveal 0; P1 does not; the deadline passes; layers are peeled by whoever of
    each pair is not ``silent``.  Returns the mail of the last PEEL."""
    for index in range(1, 7):
        ok(keyed.mail(players[index].email, signon(index) + "REVEAL 0\n"))
    keyed.advance(days=2)
    keyed.due()
    by_fpr = {p.fingerprint: (i, p) for i, p in enumerate(players)}
    outcome: Outcome | None = None
    for layer in range(1, 8):
        with keyed.session() as session:
            escrow = session.execute(select(FairEscrow)).scalar_one()
            asked = list(escrow.asked)
            text = escrow.escrow if not escrow.peels else escrow.peels[-1][0]
            stage = session.execute(select(FairLottery)).scalar_one().stage
        if stage == "closed":
            break
        index, player = next(by_fpr[f] for f in asked if by_fpr[f][1].name not in silent)
        if layer == 1:  # somebody the layer is not for is refused
            outsider = next(i for i, p in enumerate(players) if p.fingerprint not in asked and i > 0)
            refused = keyed.mail(players[outsider].email, signon(outsider) + "PEEL\n" + text)
            assert "this escrow layer is for" in refused.reply.body
        published = peel(player, text, players[0], tmp)
        if published.startswith(b"-----BEGIN PGP MESSAGE"):
            outcome = ok(keyed.mail(player.email, signon(index) + "PEEL\n" + published.decode()))
        else:
            outcome = ok(keyed.mail(player.email, signon(index) + "PEEL\n", (("next.asc", published),)))
    assert outcome is not None
    return outcome


def test_the_last_player_vanishes_and_the_escrow_is_peeled(keyed: KeyedJudge, seven_players, tmp_path) -> None:
    setup_lottery(keyed, seven_players, tmp_path)
    last = run_peeling(keyed, seven_players, tmp_path, silent={"Austria"})
    result = last.of_kind("fair_lottery_result")[0].body
    # P1 escrowed 1; everyone else revealed 0: 1 mod 2 = 1, the numbers 1..1 win for P2
    assert "P1: 1" in result and "Sum 1; 1 mod 2 = 1." in result and "AUSTRIA goes to P2." in result
    with keyed.session() as session:
        escrow = session.execute(select(FairEscrow)).scalar_one()
        assert len(escrow.peels) == 6 and escrow.result.startswith("1, recovered from the escrow")
        powers = {m.address: m.power for m in session.execute(select(Membership).where(Membership.role == "player"))
                  .scalars()}
        assert session.execute(select(Game)).scalar_one().status == "active"
    assert powers[seven_players[1].email] == "AUSTRIA" and powers[seven_players[0].email] == "TURKEY"
    # judge audit's check of the assignment record: the lottery recomputed, and every
    # number (the escrowed one too) verified against its signed commitment
    document = next(json.loads(part.get_payload(decode=True)) for mail in last.of_kind("fair_assigned")[:1]
                    for part in mail.message.walk() if part.get_filename() == "g1-assignment.json")
    home = short_home("fa")
    try:
        with Keyring(home) as ring:
            notes, problems = check_record(document)
            signed_notes, signed_problems = verify_numbers(document, ring)
            assert problems == [] and signed_problems == []
            assert "7 revealed number(s) verified" in signed_notes[0]
            document["lotteries"][0]["commitments"]["P1"]["revealed"] = "0\n"
            assert "P1's number does not match its commitment" in verify_numbers(document, ring)[1][0]
    finally:
        remove_home(home)


def test_one_decrypter_of_each_pair_vanishes(keyed: KeyedJudge, seven_players, tmp_path) -> None:
    setup_lottery(keyed, seven_players, tmp_path)
    # England (B) is in layers B+G, C+B and the innermost B,C,D,E, and never answers
    last = run_peeling(keyed, seven_players, tmp_path, silent={"Austria", "England"})
    assert "AUSTRIA goes to P2." in last.of_kind("fair_lottery_result")[0].body
    with keyed.session() as session:
        escrow = session.execute(select(FairEscrow)).scalar_one()
        england = seven_players[1].fingerprint
        assert all(by != england for _, by in escrow.peels) and len(escrow.peels) == 6


def test_a_sealed_list_signed_with_a_real_key(keyed: KeyedJudge, seven_players, tmp_path) -> None:
    ok(keyed.send(MASTER, "CREATE g1 masterpw\nRULE PREFERENCES\nRULE SEALED\nFORM\n"))
    austria, england = seven_players[0], seven_players[1]
    for index, player in enumerate(seven_players):
        commit = ""
        if index < 2:
            ok(keyed.mail(player.email, f"SET KEY\n{player.public_key}"))
            with player.keyring() as ring:
                signature = ring.sign_detached(b"AE(GI)R\n" if index == 0 else b"E\n", player.fingerprint)
            commit = "COMMIT\n" + signature.decode()
        ok(keyed.mail(player.email, f"JOIN g1 pw{index}\n{commit}"))
    forged = keyed.mail(england.email, signon(1) + "REVEAL\nA\nENDREVEAL\n").reply.body
    assert "does not match your commitment" in forged
    ok(keyed.mail(austria.email, signon(0) + "REVEAL\n", (("prefs.txt", b"AE(GI)R\n"),)))
    last = ok(keyed.mail(england.email, signon(1) + "REVEAL\nE\nENDREVEAL\n"))
    begins = last.of_kind("fair_assignment")[0].body
    assert "P1  AE(GI)R" in begins and "P2  E" in begins


def test_nobody_opens_a_layer_in_time(keyed: KeyedJudge, seven_players, tmp_path) -> None:
    setup_lottery(keyed, seven_players, tmp_path)
    for index in range(1, 7):
        ok(keyed.mail(seven_players[index].email, signon(index) + "REVEAL 0\n"))
    keyed.advance(days=2)
    keyed.due()  # P1 did not reveal: layer 1 is asked for
    with keyed.session() as session:
        assert session.execute(select(FairLottery)).scalar_one().stage == "peeling"
    keyed.advance(days=2)
    keyed.due()  # neither of the pair answered: the peeling broke down, P1 counts as 0
    with keyed.session() as session:
        row = session.execute(select(FairLottery)).scalar_one()
        escrow = session.execute(select(FairEscrow)).scalar_one()
        assert row.stage == "closed" and row.outcome["defaulted"] == ["P1"] and row.outcome["winner"] == "P1"
        assert "broke down" in escrow.result and len(escrow.vanished) == 2


def test_judge_audit_checks_the_signed_assignment_record(keyed: KeyedJudge, tmp_path) -> None:
    from judge.audit import audit_messages
    from judge.publish.signing import ensure_judge_key

    ensure_judge_key(keyed.judge)  # as judge serve does on first start: broadcasts are signed
    ok(keyed.send(MASTER, "CREATE g1 masterpw\nRULE PREFERENCES\nRULE LOTTERY_SHA256\nFORM\n"))
    for index, wanted in enumerate(LISTS):
        ok(keyed.mail(f"p{index}@example.net", f"JOIN g1 pw{index}\nSET PREFERENCE {wanted}\n"))
    files = [f"{n}\nSALT audit-salt-of-player-{i}\n" for i, n in enumerate((1, 0))]
    for index, text in enumerate(files):  # Austria: P1 and P2 draw 1 + 0 = 1: P2
        digest = hashlib.sha256(text.encode()).hexdigest()
        ok(keyed.mail(f"p{index}@example.net", signon(index) + f"COMMIT SHA256 {digest}\n"))
    for index in range(2, 7):
        digest = hashlib.sha256(f"0\nSALT audit-salt-of-player-{index}\n".encode()).hexdigest()
        ok(keyed.mail(f"p{index}@example.net", signon(index) + f"COMMIT SHA256 {digest}\n"))
    for index in range(7):
        text = files[index] if index < 2 else f"0\nSALT audit-salt-of-player-{index}\n"
        last = ok(keyed.mail(f"p{index}@example.net", signon(index) + f"REVEAL\n{text}ENDREVEAL\n"))
    assert last.of_kind("fair_assigned")
    key = ok(keyed.send(MASTER, "GET KEY\n")).reply.body
    armored = key[key.index("-----BEGIN PGP PUBLIC KEY BLOCK-----"):key.index("-----END PGP PUBLIC KEY BLOCK-----") + 35]
    with keyed.session() as session:
        archive = [row.raw for row in session.execute(select(OutboxMessage).order_by(OutboxMessage.id)).scalars()
                   if MASTER in row.recipients and row.kind != "reply"]
    home = short_home("au")
    try:
        report = audit_messages(archive, armored, home)
    finally:
        remove_home(home)
    assert any(line.startswith("g1 assignment: assignment recomputed") and "7 revealed number(s) verified" in line
               for line in report.lines), report.text()
    assert not [d for d in report.discrepancies if "assignment" in d], report.text()
