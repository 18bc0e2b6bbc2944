"""dkimpy's rsa verification done by OpenSSL (through ``cryptography``).

dkimpy checks an rsa-sha256 signature (RSASSA-PKCS1-v1_5) in pure Python, about 0.3 ms
of big-integer and byte work per mail.  Importing this module replaces its function by
one that asks OpenSSL where OpenSSL gives the same answer (sha256, a modulus of 1024 to
16384 bits, a signature read as a number below it: dkimpy pads a short one to the key's
length, and so does this) and dkimpy's own code anything else.
tests/judge/mailauth/test_rsa_openssl.py compares the answers.  (Signing does not go
through dkimpy: judge.mailauth.dkim_sign.)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import dkim
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils
from cryptography.hazmat.primitives.hashes import SHA256

pure_python_verify: Callable[[Any, bytes, Any], bool] = dkim.RSASSA_PKCS1_v1_5_verify
_MODULUS_BITS = range(1024, 16385)


@lru_cache(maxsize=256)
def _public_key(modulus: int, exponent: int) -> rsa.RSAPublicKey:
    return rsa.RSAPublicNumbers(exponent, modulus).public_key()


def openssl_verify(hasher: Any, signature: bytes, public_key: dict[str, int]) -> bool:
    """dkimpy's ``RSASSA_PKCS1_v1_5_verify(hash, signature, key)``."""
    modulus, exponent = public_key["modulus"], public_key["publicExponent"]
    number = int.from_bytes(signature, "big")
    if (hasher.name != "sha256" or modulus.bit_length() not in _MODULUS_BITS or number >= modulus
            or exponent < 3 or exponent % 2 == 0):
        return pure_python_verify(hasher, signature, public_key)
    try:
        key = _public_key(modulus, exponent)
    except ValueError:  # numbers OpenSSL will not take as a key
        return pure_python_verify(hasher, signature, public_key)
    try:
        key.verify(number.to_bytes((modulus.bit_length() + 7) // 8, "big"), hasher.digest(),
                   padding.PKCS1v15(), utils.Prehashed(SHA256()))
    except InvalidSignature:
        return False
    return True


dkim.RSASSA_PKCS1_v1_5_verify = openssl_verify
