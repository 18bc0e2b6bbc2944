"""PGP/MIME signing of broadcasts: round trips through bytes, mbox archives and the gpg CLI."""

from __future__ import annotations

import mailbox
import subprocess
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from judge.crypto.pgpmime import sign_message, split_signed, verify_message

ORDERS_FILE = "F Bre - MAO\r\nA Mar - Spa\r\n".encode()  # a player's CRLF file, byte-exact


def broadcast() -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Judge <judge@judge.test>"
    message["To"] = "game-7@lists.test"
    message["Subject"] = "Résultats: game 7, Spring 1901 movement"
    message["Message-ID"] = "<s1901m.7@judge.test>"
    message.set_content(
        "From the judge, results for Spring 1901.\n"
        "France: F Bre - MAO   \n"  # trailing spaces must survive
        "Été\n.\n"
    )
    message.add_attachment(ORDERS_FILE, maintype="text", subtype="plain", filename="france-S1901M.txt")
    message.add_attachment(b"-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n",
                           maintype="application", subtype="pgp-signature", filename="france-S1901M.asc")
    return message


@pytest.fixture
def signed(judge_keyring) -> EmailMessage:
    return sign_message(judge_keyring, broadcast(), judge_keyring.judge_fingerprint)


def test_structure_follows_rfc_3156(signed: EmailMessage) -> None:
    assert signed.get_content_type() == "multipart/signed"
    assert signed.get_param("protocol") == "application/pgp-signature"
    assert signed.get_param("micalg") == "pgp-sha256"
    first, second = signed.get_payload()
    assert second.get_content_type() == "application/pgp-signature"
    assert signed["Subject"] == "Résultats: game 7, Spring 1901 movement"
    assert first["Subject"] is None and first.get_content_type() == "multipart/mixed"


@pytest.mark.parametrize("serialize", [
    lambda m: m.as_bytes(policy=policy.SMTP),  # CRLF, as sent
    lambda m: m.as_bytes(),  # LF, as stored on disk
])
def test_round_trip_through_bytes_verifies(judge_keyring, signed, serialize) -> None:
    raw = serialize(signed)
    result = verify_message(judge_keyring, raw, judge_keyring.judge_fingerprint)
    assert result.valid, result.verdict.reason
    again = message_from_bytes(raw, policy=policy.default)
    assert verify_message(judge_keyring, again.as_bytes(policy=policy.SMTP)).valid
    # Content arrives intact: text, trailing spaces, and the attached file byte for byte.
    text = result.signed_part.get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert "France: F Bre - MAO   \n" in text and "Été" in text
    attached = [p for p in result.signed_part.iter_attachments() if p.get_filename() == "france-S1901M.txt"]
    assert attached[0].get_payload(decode=True) == ORDERS_FILE


def test_one_changed_byte_is_caught(judge_keyring, signed) -> None:
    raw = signed.as_bytes(policy=policy.SMTP)
    assert b"MAO" in raw
    result = verify_message(judge_keyring, raw.replace(b"MAO", b"ENG", 1))
    assert not result.valid and "BAD signature" in result.verdict.reason


def test_survives_an_mbox_archive(judge_keyring, signed, tmp_path: Path) -> None:
    box = mailbox.mbox(tmp_path / "game.mbox")
    box.add(signed.as_bytes(policy=policy.SMTP))
    box.flush()
    box.close()
    [stored] = mailbox.mbox(tmp_path / "game.mbox")
    assert verify_message(judge_keyring, stored.as_bytes(), judge_keyring.judge_fingerprint).valid


def test_players_can_verify_with_the_gpg_command(judge_keyring, signed, tmp_path: Path) -> None:
    # What a player with only gpg does: save the first part with CRLF endings and the
    # signature, import the judge's key, run gpg --verify.
    raw = signed.as_bytes()
    part, _ = split_signed(raw)
    signature = signed.get_payload()[1].get_payload(decode=True)
    (tmp_path / "part.eml").write_bytes(part)
    (tmp_path / "signature.asc").write_bytes(signature)
    player_home = Path(judge_keyring.home.parent, judge_keyring.home.name + "p")
    player_home.mkdir(mode=0o700)
    try:
        gpg = ["gpg", "--homedir", str(player_home), "--batch", "--status-fd", "1"]
        subprocess.run(gpg + ["--import"], input=judge_keyring.export_public_key(judge_keyring.judge_fingerprint).encode(),
                       check=True, capture_output=True)
        good = subprocess.run(gpg + ["--verify", str(tmp_path / "signature.asc"), str(tmp_path / "part.eml")],
                              capture_output=True, text=True)
        assert good.returncode == 0 and f"VALIDSIG {judge_keyring.judge_fingerprint}" in good.stdout
        (tmp_path / "part.eml").write_bytes(part.replace(b"Spring", b"Autumn"))
        bad = subprocess.run(gpg + ["--verify", str(tmp_path / "signature.asc"), str(tmp_path / "part.eml")],
                             capture_output=True, text=True)
        assert bad.returncode != 0 and "BADSIG" in bad.stdout
    finally:
        subprocess.run(["gpgconf", "--homedir", str(player_home), "--kill", "all"], check=False)
        subprocess.run(["rm", "-rf", str(player_home)], check=False)


def test_signed_part_bytes_are_the_ones_gpg_signed(judge_keyring, signed) -> None:
    # The extraction is independent of Python's email generator: the raw bytes as sent.
    raw = signed.as_bytes(policy=policy.SMTP)
    part, _ = split_signed(raw)
    assert part.startswith(b"Content-Type: multipart/mixed")
    assert part in raw and part.endswith(b"==--\r\n")  # the inner closing delimiter line


def test_plain_message_is_not_pgp_mime(judge_keyring) -> None:
    result = verify_message(judge_keyring, broadcast().as_bytes())
    assert not result.valid and "not a PGP/MIME signed message" in result.verdict.reason


def test_wrong_expected_signer_is_refused(judge_keyring, signed, seven_players) -> None:
    result = verify_message(judge_keyring, signed.as_bytes(), seven_players[0].fingerprint)
    assert not result.valid and "not by the expected key" in result.verdict.reason


def test_simple_text_message_without_content_type(judge_keyring) -> None:
    message = EmailMessage()
    message["Subject"] = "GET KEY"
    message.set_payload("plain words\n")
    signed = sign_message(judge_keyring, message, judge_keyring.judge_fingerprint)
    result = verify_message(judge_keyring, signed.as_bytes(policy=policy.SMTP))
    assert result.valid and result.signed_part.get_content().replace("\r\n", "\n") == "plain words\n"


def test_signed_body_survives_the_outbox(judge_keyring) -> None:
    # The command handlers hand the signed part to OutgoingMail(mime=...); build_message adds
    # From/To/Subject/Date/Message-ID outside the signature and stores as_bytes().
    from datetime import datetime, timezone

    from judge.config import JudgeSettings
    from judge.mailio.outgoing import OutgoingMail, build_message

    content = EmailMessage()
    content.set_content("Spring 1901 results\nF Bre - MAO: moves\n")
    content.add_attachment(ORDERS_FILE, maintype="text", subtype="plain", filename="france-S1901M.txt")
    signed = sign_message(judge_keyring, content, judge_keyring.judge_fingerprint)
    mail = OutgoingMail(recipients=("game-7@lists.test",), subject="Game 7: Spring 1901", kind="broadcast", mime=signed)
    message = build_message(mail, JudgeSettings(address="judge@judge.test", domain="judge.test"),
                            datetime(1901, 4, 1, tzinfo=timezone.utc))
    raw = message.as_bytes()
    result = verify_message(judge_keyring, raw, judge_keyring.judge_fingerprint)
    assert result.valid, result.verdict.reason
    assert b"Subject: Game 7: Spring 1901" in raw
