"""judge audit over the broadcasts of a sealed game played through the real worker and gpg."""

import mailbox
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from judge.audit import audit_archive, find_judge_key, read_archive
from judge.config import Settings
from judge.crypto.pgpmime import sign_message
from judge.publish.signing import judge_keyring
from judge.edge.scheduler import run_pass
from tests.fixtures.gpg import remove_home, short_home
from tests.judge.sealed.harness import MASTER, SealedGame, SealedJudge
from tests.judge.sealed.orders import FALL, SPRING, orders_file
from tests.judge.storage import outbox_after


def play(game, phase, orders, *, bad=(), silent=()):
    for power, lines in orders.items():
        assert "ERROR" not in game.commit(power, orders_file(power, phase, lines)).reply.body
    for power, lines in orders.items():
        if power in silent:
            continue
        data = orders_file(power, phase, lines)
        if power in bad:
            data = data.replace(b" - ", b" -> ", 1)  # one changed character after signing
        game.reveal(power, data)


def save_master_copies(judge: SealedJudge, path: Path) -> Path:
    """Every mail the judge queued for the master, saved as the mbox ``path`` (the
    archive a master keeps)."""
    box = mailbox.mbox(str(path))
    for queued in outbox_after(judge.store, 0):
        if MASTER in queued.recipients:
            box.add(queued.raw)
    box.flush()
    box.close()
    return path


@pytest.fixture(scope="module")
def played(tmp_path_factory, seven_players):
    """Two sealed phases (England's spring reveal is bad, Italy never reveals), the
    master's copies of every broadcast and a GET KEY reply, saved as an mbox; built once."""
    directory = tmp_path_factory.mktemp("audit")
    home = short_home("sa")
    judge = SealedJudge(directory, home)
    try:
        game = SealedGame.start(judge, seven_players)
        play(game, "S1901M", SPRING, bad=("ENGLAND",), silent=("ITALY",))
        judge.advance(days=2)
        run_pass(judge.store, Settings(judge=judge.settings), judge.now)
        play(game, "F1901M", FALL)  # all verified: processed on the last reveal
        judge.send(MASTER, "GET KEY\n")
        yield save_master_copies(judge, directory / "game.mbox"), game
    finally:
        judge.close()
        remove_home(home)


@pytest.fixture
def archive(played):
    return played[0]


@pytest.fixture
def game(played):
    return played[1]


def test_the_audit_of_an_honest_game_passes(archive):
    report = audit_archive(archive)
    text = report.text()
    assert report.passed, text
    assert report.phases == 2
    assert "g1 S1901M: results re-adjudicated: same" in text
    assert "bad reveal" in text and "no reveal" in text


def _rewrite(path, change, name):
    messages = read_archive(path)
    out = path.with_name(name)
    box = mailbox.mbox(str(out))
    for raw in messages:
        box.add(change(raw))
    box.flush()
    box.close()
    return out


def test_one_changed_byte_in_a_broadcast_fails_the_audit(archive):
    changed = {"done": False}

    def flip(raw: bytes) -> bytes:
        if changed["done"] or b"S1901M results" not in raw:
            return raw
        changed["done"] = True
        index = raw.index(b"Content-Transfer-Encoding: quoted-printable")
        position = raw.index(b"A ", index)  # a unit in the results text
        return raw[:position] + b"F" + raw[position + 1:]

    report = audit_archive(_rewrite(archive, flip, "flipped.mbox"))
    assert changed["done"]
    assert not report.passed
    assert any("judge signature" in d and "BAD signature" in d for d in report.discrepancies), report.text()


def _resigned_f1901m(game, edit):
    """A rewrite of the archive's F1901M results mail: its record (g1-F1901M.json) changed by
    ``edit`` and signed again with the judge's own key, as a dishonest judge would."""
    import json

    def resign(raw: bytes) -> bytes:
        message = message_from_bytes(raw, policy=policy.default)
        if "F1901M results" not in str(message["Subject"]):
            return raw
        inner = message.get_payload()[0]
        for part in list(inner.walk()):
            if part.get_filename() == "g1-F1901M.json":
                document = json.loads(part.get_payload(decode=True))
                edit(document)
                part.set_content(json.dumps(document).encode(), maintype="application", subtype="json",
                                 filename="g1-F1901M.json")
        with judge_keyring(game.judge.settings) as key:
            signed = sign_message(key.keyring, inner, key.fingerprint)
        for name in ("From", "To", "Subject", "Date", "Message-ID"):
            signed[name] = message[name]
        return signed.as_bytes()

    return resign


def test_a_judge_that_signs_false_results_is_caught_by_re_adjudication(archive, game):
    """The judge's own key signs a record whose result was changed: the signature is good,
    the re-adjudication is not."""

    def lie(document: dict) -> None:
        for item in document["output"]["results"]:
            if item["result"] == "moves":
                item["result"] = "bounce"
                break

    report = audit_archive(_rewrite(archive, _resigned_f1901m(game, lie), "lie.mbox"))
    assert not report.passed
    assert any("re-adjudication differs" in d for d in report.discrepancies), report.text()


def test_each_verified_reveal_is_broadcast_and_checked(archive):
    """Issue 12.9: a verified reveal goes to the list as it arrives; the audit checks each
    against the published commitment (S1901M: 5 of 7 verified; F1901M: all 7)."""
    text = audit_archive(archive).text()
    assert text.count("reveal: matches the published commitment (checked with gpg)") == 12, text
    assert "g1 S1901M ENGLAND reveal" not in text and "g1 S1901M ITALY reveal" not in text


def test_results_that_drop_a_broadcast_reveal_fail_the_audit(archive, game):
    """A judge that saw France's verified reveal, then re-signs F1901M's record as if France
    had never revealed (its orders gone, the phase re-adjudicated so the results agree, the
    revealed file left out) is caught by the reveal broadcast it signed before."""
    from judge.audit import Context, readjudicate
    from judge.crypto.gpg import Keyring, scratch_home

    def drop_france(document: dict) -> None:
        document["input"]["orders"]["FRANCE"] = []
        document["sealed"]["FRANCE"].update(outcome="no_reveal", revealed=None, variant=None, orders=[],
                                            reason="no reveal before the reveal deadline: all units hold")
        with scratch_home("fx") as home:
            output, _, after = readjudicate(Context(Keyring(home)), document["input"])
        document["output"], document["digest_after"] = output, after

    report = audit_archive(_rewrite(archive, _resigned_f1901m(game, drop_france), "dropped.mbox"))
    assert not report.passed
    assert any("g1 F1901M FRANCE: marked no_reveal, but its reveal matching the commitment was broadcast" in d
               and "a dropped reveal" in d for d in report.discrepancies), report.text()
    assert not any("re-adjudication differs" in d for d in report.discrepancies)  # the forgery is consistent


@pytest.mark.parametrize("signed", [False, True], ids=["plain", "pgp-mime-signed-by-the-player"])
def test_a_players_own_reveal_on_the_list_proves_a_dropped_reveal(archive, game, tmp_path, signed):
    """Italy never reached the judge's count in S1901M ("no reveal").  If Italy's own post
    to the list, before the results, carries the file matching its commitment, the results
    dropped it; the audit says so from Italy's own file (a mail Italy signed PGP/MIME with
    its own key is a player's mail, not a bad judge signature)."""
    from email.message import EmailMessage

    own = EmailMessage()
    own["From"], own["To"], own["Subject"] = "italy@players.test", "g1@lists.example.net", "my orders"
    own.set_content("REVEAL italy@g1\n")
    own.add_attachment(orders_file("ITALY", "S1901M", SPRING["ITALY"]), maintype="text", subtype="plain",
                       filename="orders.txt")
    if signed:
        italy = game.keys["ITALY"]
        with italy.keyring() as ring:
            own = sign_message(ring, own, italy.fingerprint)
    messages = read_archive(archive)
    results_at = next(i for i, raw in enumerate(messages)
                      if "S1901M results" in str(message_from_bytes(raw, policy=policy.default)["Subject"]))
    path = tmp_path / "own.mbox"
    box = mailbox.mbox(str(path))
    for raw in [*messages[:results_at], own.as_bytes(), *messages[results_at:]]:
        box.add(raw)
    box.flush()
    box.close()
    report = audit_archive(path)
    assert any(d.startswith("g1 S1901M ITALY: marked no_reveal, but ITALY's own reveal in message")
               and "a dropped reveal" in d for d in report.discrepancies), report.text()
    assert len(report.discrepancies) == 1, report.text()


def test_the_judge_key_comes_from_the_get_key_reply_or_a_file(archive, tmp_path):
    key = find_judge_key(read_archive(archive))
    assert key and key.startswith("-----BEGIN PGP PUBLIC KEY BLOCK-----")
    (tmp_path / "judge.asc").write_text(key)
    assert audit_archive(archive, tmp_path / "judge.asc").passed


def test_a_maildir_and_a_folder_of_eml_files_are_read_too(archive, tmp_path):
    messages = read_archive(archive)
    maildir = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    folder = tmp_path / "saved"
    folder.mkdir()
    for number, raw in enumerate(messages):
        maildir.add(raw)
        (folder / f"{number:03d}.eml").write_bytes(raw)
    assert audit_archive(tmp_path / "Maildir").passed
    assert audit_archive(folder).passed


def test_an_archive_without_any_record_is_a_failure_not_a_pass(archive, tmp_path):
    key = find_judge_key(read_archive(archive))
    (tmp_path / "judge.asc").write_text(key)
    empty = tmp_path / "empty.mbox"
    box = mailbox.mbox(str(empty))
    box.add(b"From: someone@example.net\nSubject: hello\n\nnothing here\n")
    box.flush()
    box.close()
    report = audit_archive(empty, tmp_path / "judge.asc")
    assert not report.passed and "no signed record found" in report.text()


def test_a_plain_game_is_audited_from_its_phase_records(tmp_path, seven_players):
    """Every results broadcast carries the record, sealed or not."""
    home = short_home("sp")
    judge = SealedJudge(tmp_path, home)
    try:
        game = SealedGame.start(judge, seven_players, rules=())
        for power, lines in SPRING.items():
            reply = judge.send(game.keys[power].email, game.signon(power) + "\n".join(lines) + "\n").reply
            assert "ERROR" not in reply.body, reply.body
        for _ in range(3):  # the last orders set DELAY 1: the second pass processes
            judge.advance(minutes=20)
            run_pass(judge.store, Settings(judge=judge.settings), judge.now)
        judge.send(MASTER, "GET KEY\n")
        report = audit_archive(save_master_copies(judge, tmp_path / "plain.mbox"))
        assert report.passed and report.phases == 1, report.text()
    finally:
        judge.close()
        remove_home(home)
