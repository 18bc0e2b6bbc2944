"""Keyring over the real gpg: keys, signatures, encryption, and gpg-agent cleanup."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from judge.crypto.gpg import GpgError, KeyImportError, Keyring, agent_pids
from tests.fixtures.gpg import PlayerKey, remove_home, short_home


def test_import_public_key_returns_its_fingerprint(keyring: Keyring, seven_players) -> None:
    austria = seven_players[0]
    assert keyring.import_public_key(austria.public_key) == austria.fingerprint
    assert keyring.fingerprints() == [austria.fingerprint]
    assert keyring.user_id(austria.fingerprint) == "Austria <austria@players.test>"
    # As bytes, and again (unchanged key): same fingerprint, still one key.
    assert keyring.import_public_key(austria.public_key.encode()) == austria.fingerprint
    assert len(keyring.fingerprints()) == 1


def test_secret_key_is_refused_and_not_imported(keyring: Keyring, seven_players) -> None:
    england = seven_players[1]
    secret = subprocess.run(
        ["gpg", "--homedir", str(england.home), "--batch", "--pinentry-mode", "loopback",
         "--passphrase", "", "--armor", "--export-secret-keys", england.fingerprint],
        capture_output=True, text=True, check=True,
    ).stdout
    assert "PRIVATE KEY BLOCK" in secret
    with pytest.raises(KeyImportError, match="SECRET key"):
        keyring.import_public_key(secret)
    # Relabelled as public, the packets still give it away.
    with pytest.raises(KeyImportError, match="SECRET"):
        keyring.import_public_key(secret.replace("PRIVATE KEY BLOCK", "PUBLIC KEY BLOCK"))
    assert keyring.fingerprints() == [] and keyring.fingerprints(secret=True) == []


def test_block_with_two_keys_is_refused(keyring: Keyring, seven_players) -> None:
    france, germany = seven_players[2], seven_players[3]
    both = subprocess.run(
        ["gpg", "--homedir", str(france.home), "--armor", "--export", france.fingerprint, germany.fingerprint],
        capture_output=True, text=True, check=True,
    ).stdout
    with pytest.raises(KeyImportError, match="holds 2 keys"):
        keyring.import_public_key(both)
    assert keyring.fingerprints() == []


@pytest.mark.parametrize(
    "text, message",
    [
        ("my key is 0xDEADBEEF", "no OpenPGP armored block"),
        ("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----\n", "damaged|base64"),
    ],
)
def test_malformed_key_blocks_are_refused(keyring: Keyring, text: str, message: str) -> None:
    with pytest.raises(KeyImportError, match=message):
        keyring.import_public_key(text)


def test_signature_block_offered_as_key_is_refused(keyring: Keyring, seven_players) -> None:
    italy = seven_players[4]
    with italy.keyring() as ring:
        signature = ring.sign_detached(b"x", italy.fingerprint).decode()
    with pytest.raises(KeyImportError, match="expected '-----BEGIN PGP PUBLIC KEY BLOCK-----'"):
        keyring.import_public_key(signature)


def test_generate_export_and_reimport(keyring: Keyring, gpg_home: Path) -> None:
    fingerprint = keyring.generate_key("Judge", "judge@judge.test")
    assert len(fingerprint) == 40 and keyring.fingerprints(secret=True) == [fingerprint]
    other_home = short_home()
    try:
        with Keyring(other_home) as other:
            assert other.import_public_key(keyring.export_public_key(fingerprint)) == fingerprint
    finally:
        remove_home(other_home)


def test_detached_and_clearsigned_signatures(judge_keyring) -> None:
    judge = judge_keyring.judge_fingerprint
    data = "Résultats: F Bre - MAO\n".encode()
    signature = judge_keyring.sign_detached(data, judge)
    good = judge_keyring.verify_detached(signature, data)
    assert good.valid and good.fingerprint == judge and good.key_id == judge[-16:]
    bad = judge_keyring.verify_detached(signature, data.replace(b"MAO", b"ENG"))
    assert not bad.valid and "BAD signature" in bad.reason
    clear = judge_keyring.clearsign("Spring 1901\nA Par - Bur\n", judge)
    assert clear.startswith("-----BEGIN PGP SIGNED MESSAGE-----")
    assert judge_keyring.verify_clearsigned(clear).valid
    assert not judge_keyring.verify_clearsigned(clear.replace("Bur", "Pic")).valid


def test_unknown_key_verdict_names_the_key_id(keyring: Keyring, seven_players) -> None:
    russia = seven_players[5]
    with russia.keyring() as ring:
        signature = ring.sign_detached(b"orders\n", russia.fingerprint)
    verdict = keyring.verify_detached(signature, b"orders\n")
    assert not verdict.valid and verdict.key_id == russia.fingerprint[-16:]
    assert "unknown key" in verdict.reason


def test_encrypt_to_two_and_either_decrypts(seven_players) -> None:
    austria, england, france, turkey = (seven_players[i] for i in (0, 1, 2, 6))
    with austria.keyring() as ring:
        secret = ring.encrypt(b"4\n", [england.fingerprint, france.fingerprint])
    for reader in (england, france):
        with reader.keyring() as ring:
            opened = ring.open(secret)
        assert opened.data == b"4\n" and opened.decrypted and opened.signature is None
        with reader.keyring() as ring:
            assert ring.decrypt(secret) == b"4\n"
    with turkey.keyring() as ring, pytest.raises(GpgError, match="could not open"):
        ring.open(secret)


def test_attached_signature_opens_with_a_verdict(seven_players) -> None:
    germany = seven_players[3]
    with germany.keyring() as ring:
        signed = ring.sign_attached(b"payload", germany.fingerprint)
        opened = ring.open(signed)
    assert opened.data == b"payload" and not opened.decrypted
    with germany.keyring() as ring, pytest.raises(GpgError, match="only signed"):
        ring.decrypt(signed)
    assert opened.signature is not None and opened.signature.valid
    assert opened.signature.fingerprint == germany.fingerprint


def test_long_home_is_refused_with_advice(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="too long"):
        Keyring(tmp_path / ("x" * 90))


def test_close_stops_the_agent(seven_players) -> None:
    home = short_home()
    try:
        ring = Keyring(home)
        ring.generate_key("Temp", "temp@players.test")
        ring.sign_detached(b"x", ring.fingerprints()[0])  # needs the agent
        assert agent_pids(home), "signing should have started a gpg-agent for this home"
        ring.close()
        assert agent_pids(home) == []
    finally:
        remove_home(home)


def test_no_agent_survives_for_player_homes(seven_players: tuple[PlayerKey, ...]) -> None:
    # Every test above closed its keyrings: nothing may be left running for the player homes.
    for player in seven_players:
        assert agent_pids(player.home) == [], player.name


def test_clearsigned_text_is_what_was_signed(judge_keyring) -> None:
    from judge.crypto.armor import clearsigned_text

    original = "COMMIT\n- dash line\n-----BEGIN not armor\nA Vie - Tri\n"
    clear = judge_keyring.clearsign(original, judge_keyring.judge_fingerprint)
    assert "\n- - dash line\n" in clear  # gpg dash-escapes
    mailed = "Hello,\r\n" + clear.replace("\n", "\r\n") + "\r\n-- \r\nsent from my phone\r\n"
    assert clearsigned_text(mailed) == original.rstrip("\n")
    assert judge_keyring.verify_clearsigned(mailed).valid
    assert clearsigned_text("no block here") is None


def test_key_pasted_in_a_mail_body_imports(keyring: Keyring, seven_players) -> None:
    turkey = seven_players[6]
    body = "SET KEY\r\n\r\n" + turkey.public_key.replace("\n", "\r\n") + "\r\n-- \r\nThe Sultan\r\n"
    assert keyring.import_public_key(body) == turkey.fingerprint
