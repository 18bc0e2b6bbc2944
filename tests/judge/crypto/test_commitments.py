"""Sealed-order commitments: the attacks of issue 5 that live at the crypto layer."""

from __future__ import annotations

import hashlib
import subprocess

import pytest

from judge.crypto.commitments import (
    CommitmentFormatError,
    check_commitment,
    read_number,
    reveal_variants,
    salted_bytes,
    sha256_commitment,
    signed_variant,
    split_salted,
    verify_reveal,
    verify_sha256_reveal,
)
from tests.judge.crypto.test_armor_packets import REFERENCE_SIGNATURE

ORDERS = "Orders for France, Spring 1901\n\nF Bre - MAO\nA Mar - Spa\nA Par - Bur\n".encode()


@pytest.fixture(scope="module")
def france_signature(seven_players) -> bytes:
    france = seven_players[2]
    with france.keyring() as ring:
        return ring.sign_detached(ORDERS, france.fingerprint)


def test_commitment_by_registered_key_is_accepted(judge_keyring, seven_players, france_signature) -> None:
    france = seven_players[2]
    verdict = check_commitment(judge_keyring, france_signature, france.fingerprint)
    assert verdict.valid and verdict.fingerprint == france.fingerprint


def test_commitment_signed_by_another_players_key_is_refused(judge_keyring, seven_players, france_signature) -> None:
    germany = seven_players[3]
    verdict = check_commitment(judge_keyring, france_signature, germany.fingerprint)
    assert not verdict.valid
    assert "another key" in verdict.reason and "France <france@players.test>" in verdict.reason
    # The reveal is refused too, even though the signature itself is good.
    assert not verify_reveal(judge_keyring, france_signature, ORDERS, germany.fingerprint).valid


def test_commitment_by_an_unknown_key_is_refused(judge_keyring, keyring, france_signature, seven_players) -> None:
    # The judge keyring without France's key: a fresh one holding only Austria's.
    austria = seven_players[0]
    keyring.import_public_key(austria.public_key)
    verdict = check_commitment(keyring, france_signature, austria.fingerprint)
    assert not verdict.valid and "unknown key" in verdict.reason
    assert verdict.key_id == seven_players[2].fingerprint[-16:]


@pytest.mark.parametrize(
    "mangle, reason",
    [
        (lambda s: s.replace(b"-----END PGP SIGNATURE-----", b""), "no '-----END PGP SIGNATURE-----'"),
        (lambda s: s[:40] + b"A" + s[41:], "checksum|malformed"),
        (lambda s: b"F Bre - MAO\n", "no signature found"),
        (lambda s: s + s, "found 2 armored blocks"),
    ],
)
def test_malformed_commitment_is_refused(judge_keyring, seven_players, france_signature, mangle, reason) -> None:
    verdict = check_commitment(judge_keyring, mangle(france_signature), seven_players[2].fingerprint)
    assert not verdict.valid
    assert any(part in verdict.reason for part in reason.split("|")), verdict.reason


def test_signed_message_is_not_a_detached_commitment(judge_keyring, seven_players) -> None:
    france = seven_players[2]
    with france.keyring() as ring:
        attached = ring.sign_attached(ORDERS, france.fingerprint)
    verdict = check_commitment(judge_keyring, attached, france.fingerprint)
    assert not verdict.valid and "not a detached signature" in verdict.reason


def test_md5_signature_from_the_reference_is_refused_as_weak(judge_keyring, seven_players) -> None:
    verdict = check_commitment(judge_keyring, REFERENCE_SIGNATURE.encode(), seven_players[2].fingerprint)
    assert not verdict.valid and "MD5" in verdict.reason


def test_binary_signature_file_is_accepted(judge_keyring, seven_players) -> None:
    france = seven_players[2]
    with france.keyring() as ring:
        binary = ring.sign_detached(ORDERS, france.fingerprint, armor=False)
    assert not binary.startswith(b"-----")
    assert check_commitment(judge_keyring, binary, france.fingerprint).valid
    assert verify_reveal(judge_keyring, binary, ORDERS, france.fingerprint).valid


def test_exact_reveal_verifies(judge_keyring, seven_players, france_signature) -> None:
    verdict = verify_reveal(judge_keyring, france_signature, ORDERS, seven_players[2].fingerprint)
    assert verdict.valid and verdict.variant == "exact"


def test_reveal_differing_by_one_character_fails(judge_keyring, seven_players, france_signature) -> None:
    changed = ORDERS.replace(b"A Par - Bur", b"A Par - Pic")
    verdict = verify_reveal(judge_keyring, france_signature, changed, seven_players[2].fingerprint)
    assert not verdict.valid and "BAD signature" in verdict.reason
    one_byte = ORDERS.replace(b"Spa", b"spa")
    assert not verify_reveal(judge_keyring, france_signature, one_byte, seven_players[2].fingerprint).valid


def test_reveal_with_crlf_line_endings_verifies(judge_keyring, seven_players, france_signature) -> None:
    crlf = ORDERS.replace(b"\n", b"\r\n")
    verdict = verify_reveal(judge_keyring, france_signature, crlf, seven_players[2].fingerprint)
    assert verdict.valid and verdict.variant == "CRLF line endings -> LF"
    assert signed_variant(crlf, verdict.variant) == ORDERS


@pytest.mark.parametrize(
    "mail_did",
    [
        lambda t: t.rstrip(b"\n"),  # final newline dropped
        lambda t: t + b"\n",  # a newline added to text that already ends in one
        lambda t: t.replace(b"\n", b"  \n"),  # trailing spaces added
        lambda t: t.replace(b"\n", b" \r\n").rstrip(b"\r\n"),  # all of it at once
    ],
)
def test_mail_damage_variants_verify(judge_keyring, seven_players, france_signature, mail_did) -> None:
    received = mail_did(ORDERS)
    assert received != ORDERS
    verdict = verify_reveal(judge_keyring, france_signature, received, seven_players[2].fingerprint)
    assert verdict.valid, verdict.reason
    assert verdict.variant != "exact"
    assert signed_variant(received, verdict.variant) == ORDERS


def test_textmode_signature_made_on_crlf_file_verifies_lf_reveal(judge_keyring, seven_players) -> None:
    # A Windows player: orders.txt with CRLF, signed with gpg --textmode.
    france = seven_players[2]
    crlf = ORDERS.replace(b"\n", b"\r\n")
    with france.keyring() as ring:
        result = subprocess.run(
            ["gpg", "--homedir", str(france.home), "--batch", "--armor", "--textmode",
             "--detach-sign", "-u", france.fingerprint],
            input=crlf, capture_output=True, check=True,
        )
        ring.close()
    verdict = verify_reveal(judge_keyring, result.stdout, ORDERS, france.fingerprint)
    assert verdict.valid and verdict.variant == "exact"


def test_variants_are_distinct_and_exact_first() -> None:
    variants = reveal_variants(b"a\r\nb\r\n")
    assert variants[0] == ("exact", b"a\r\nb\r\n")
    assert len({data for _, data in variants}) == len(variants)
    assert ("CRLF line endings -> LF", b"a\nb\n") in variants


# -- SHA-256 commitments ------------------------------------------------------------------
SALT = "SALT q8Zr2Lk5Tw9Yb3Nd"


def test_sha256_commitment_hashes_the_documented_bytes() -> None:
    orders = "F Bre - MAO\r\nA Mar - Spa"
    assert salted_bytes(orders, SALT) == b"F Bre - MAO\nA Mar - Spa\n" + SALT.encode() + b"\n"
    assert sha256_commitment(orders, SALT) == hashlib.sha256(salted_bytes(orders, SALT)).hexdigest()
    # What a player gets from: printf 'F Bre - MAO\nA Mar - Spa\nSALT ...\n' | sha256sum
    file_bytes = ("F Bre - MAO\nA Mar - Spa\n" + SALT + "\n").encode()
    assert sha256_commitment(orders, SALT) == hashlib.sha256(file_bytes).hexdigest()


def test_sha256_reveal_verifies_and_detects_changes() -> None:
    orders = "F Bre - MAO\nA Mar - Spa\n"
    commitment = sha256_commitment(orders, SALT)
    revealed = (orders + SALT + "\n").encode()
    assert verify_sha256_reveal(commitment, revealed).valid
    assert verify_sha256_reveal(commitment.upper(), revealed.replace(b"\n", b"\r\n")).valid
    assert verify_sha256_reveal(commitment, revealed.rstrip(b"\n") + b"\n\n").valid
    assert not verify_sha256_reveal(commitment, revealed.replace(b"Spa", b"Pie")).valid
    assert not verify_sha256_reveal(commitment, revealed.replace(SALT[-1].encode(), b"X")).valid


def test_sha256_commitment_from_a_crlf_file_verifies() -> None:
    crlf_file = ("F Bre - MAO\r\n" + SALT + "\r\n").encode()
    commitment = hashlib.sha256(crlf_file).hexdigest()
    verdict = verify_sha256_reveal(commitment, crlf_file.replace(b"\r\n", b"\n"))
    assert verdict.valid and verdict.variant == "CRLF line endings"


@pytest.mark.parametrize(
    "commitment, revealed, reason",
    [
        ("abc123", b"F Bre - MAO\n" + SALT.encode(), "not a SHA-256 digest"),
        ("a" * 64, b"F Bre - MAO\nSALT short", "salt line 'SALT short' is not accepted"),
        ("a" * 64, b"F Bre - MAO\n", "salt line 'F Bre - MAO' is not accepted"),
        ("a" * 64, b"\n\n", "empty"),
    ],
)
def test_bad_sha256_input_gets_a_clear_reason(commitment: str, revealed: bytes, reason: str) -> None:
    verdict = verify_sha256_reveal(commitment, revealed)
    assert not verdict.valid and reason in verdict.reason


def test_split_salted_keeps_orders_text() -> None:
    assert split_salted("A Vie H\r\n" + SALT + "\r\n\r\n") == ("A Vie H\n", SALT)
    with pytest.raises(CommitmentFormatError, match="SALT"):
        sha256_commitment("A Vie H\n", "salt")


# -- committed numbers --------------------------------------------------------------------
def test_number_file_commitment_round_trip(judge_keyring, seven_players) -> None:
    italy = seven_players[4]
    number_file = b"5\n"
    with italy.keyring() as ring:
        signature = ring.sign_detached(number_file, italy.fingerprint)
    assert check_commitment(judge_keyring, signature, italy.fingerprint).valid
    verdict = verify_reveal(judge_keyring, signature, b"5", italy.fingerprint)
    assert verdict.valid and verdict.variant == "final newline added"
    assert read_number(signed_variant(b"5", verdict.variant), 7) == 5
    assert not verify_reveal(judge_keyring, signature, b"6\n", italy.fingerprint).valid


@pytest.mark.parametrize("text, reason", [(b"7\n", "outside 0..6"), (b"five", "'five' is not a number"), (b"-1", "not a number")])
def test_bad_numbers_are_refused(text: bytes, reason: str) -> None:
    with pytest.raises(CommitmentFormatError, match=reason):
        read_number(text, 7)


def test_signature_by_a_signing_subkey_counts_as_the_registered_key(keyring, gpg_home) -> None:
    # Many players sign with a subkey; the registered fingerprint is the primary key's.
    primary = keyring.generate_key("Subkey Player", "sub@players.test")
    subprocess.run(["gpg", "--homedir", str(gpg_home), "--batch", "--pinentry-mode", "loopback",
                    "--passphrase", "", "--quick-add-key", primary, "ed25519", "sign", "never"],
                   check=True, capture_output=True)
    keyring.reload()  # keys changed behind the keyring's back
    signature = keyring.sign_detached(ORDERS, primary)
    verdict = check_commitment(keyring, signature, primary)
    assert verdict.valid and verdict.fingerprint == primary
    assert verdict.key_id != primary[-16:]  # made by the subkey
    assert verify_reveal(keyring, signature, ORDERS, primary).valid


def test_inline_signature_in_a_mail_body_verifies(judge_keyring, seven_players, france_signature) -> None:
    # COMMIT with the armored block pasted in the body, CRLF and quoted with indentation.
    body = b"COMMIT\r\n\r\n" + b"\r\n".join(b"  " + line for line in france_signature.splitlines()) + b"\r\n-- \r\nFrance\r\n"
    france = seven_players[2]
    assert check_commitment(judge_keyring, body, france.fingerprint).valid
    assert verify_reveal(judge_keyring, body, ORDERS, france.fingerprint).valid


def test_check_reveal_is_the_reveal_step_and_opens_a_keyring_only_for_a_signature():
    from judge.crypto.commitments import Committed, check_reveal, salted_bytes, sha256_commitment

    salt = "SALT " + "s" * 20
    digest = sha256_commitment("A PAR H\n", salt)

    def no_keyring():
        raise AssertionError("a SHA-256 commitment needs no keyring")

    good = check_reveal(Committed(digest=digest), salted_bytes("A PAR H\n", salt), no_keyring)
    assert good.verdict.valid and good.signed == salted_bytes("A PAR H\n", salt)
    bad = check_reveal(Committed(digest=digest), salted_bytes("A PAR - BUR\n", salt), no_keyring)
    assert not bad.verdict.valid and bad.signed is None
