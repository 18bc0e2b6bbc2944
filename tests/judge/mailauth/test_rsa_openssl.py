"""dkimpy's RSA by OpenSSL (judge.mailauth.rsa_openssl): the same signatures and the same
verdicts as dkimpy's pure Python, for good and bad signatures alike."""

from __future__ import annotations

import hashlib

import dkim.crypto
import pytest

from judge.mailauth import rsa_openssl
from judge.mailauth.dkim_keys import RSA, new_key

KEY = new_key("s", RSA)
PRIVATE = dkim.crypto.parse_pem_private_key(KEY.private_key.encode("ascii"))
PUBLIC = {"modulus": PRIVATE["modulus"], "publicExponent": PRIVATE["publicExponent"]}
LENGTH = (PUBLIC["modulus"].bit_length() + 7) // 8


def signed(text: bytes) -> bytes:
    return bytes(dkim.crypto.RSASSA_PKCS1_v1_5_sign(hashlib.sha256(text), PRIVATE))


def both(hasher_of, signature: bytes, public: dict[str, int] = PUBLIC) -> tuple[bool, bool]:
    return (rsa_openssl.openssl_verify(hasher_of(), signature, public),
            rsa_openssl.pure_python_verify(hasher_of(), signature, public))


def test_a_good_signature_passes_both() -> None:
    signature = signed(b"hello")
    assert both(lambda: hashlib.sha256(b"hello"), signature) == (True, True)


@pytest.mark.parametrize("case", ["other text", "flipped byte", "truncated", "extended", "zero", "all ones",
                                  "another key"])
def test_a_bad_signature_fails_both(case: str) -> None:
    signature = signed(b"hello")
    text = b"hello"
    public = PUBLIC
    if case == "other text":
        text = b"hellO"
    elif case == "flipped byte":
        signature = signature[:40] + bytes([signature[40] ^ 1]) + signature[41:]
    elif case == "truncated":
        signature = signature[:-1]
    elif case == "extended":
        signature = signature + b"\x00"
    elif case == "zero":
        signature = bytes(LENGTH)
    elif case == "all ones":
        signature = b"\xff" * LENGTH  # above the modulus: dkimpy's own code answers
    else:
        other = dkim.crypto.parse_pem_private_key(new_key("t", RSA).private_key.encode("ascii"))
        public = {"modulus": other["modulus"], "publicExponent": other["publicExponent"]}
    assert both(lambda: hashlib.sha256(text), signature, public) == (False, False)


def test_a_signature_with_leading_zero_bytes_dropped_passes_both() -> None:
    # dkimpy reads the signature as a number: a signer that drops its leading zero bytes
    # is still read right.  Find a text whose signature starts with a zero byte.
    text = next(t for t in (b"text %d" % n for n in range(5000)) if signed(t)[0] == 0)
    short = signed(text).lstrip(b"\x00")
    assert both(lambda: hashlib.sha256(text), short) == (True, True)


def test_sha1_is_left_to_dkimpy() -> None:
    signature = bytes(dkim.crypto.RSASSA_PKCS1_v1_5_sign(hashlib.sha1(b"hello"), PRIVATE))
    assert both(lambda: hashlib.sha1(b"hello"), signature) == (True, True)
    assert both(lambda: hashlib.sha1(b"hellO"), signature) == (False, False)


def test_dkimpy_verifies_by_it() -> None:
    import dkim

    assert dkim.RSASSA_PKCS1_v1_5_verify is rsa_openssl.openssl_verify
