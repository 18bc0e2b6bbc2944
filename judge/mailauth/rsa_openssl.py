"""dkimpy's RSA arithmetic done by OpenSSL (through ``cryptography``).

dkimpy signs and verifies rsa-sha256 in pure Python: a 2048-bit signature costs about
10 ms, a verification about 0.3 ms of big-integer and byte work per mail.  Both are
RSASSA-PKCS1-v1_5, deterministic, so OpenSSL gives the same bytes and the same answers;
importing this module replaces dkimpy's two functions by ones that hand OpenSSL what it
does the same and give anything else to dkimpy's own code:

* signing, for the private keys registered here (``register_private_key``: the keys of
  every Signer made in this process) and sha256;
* verifying, for sha256 with a modulus of 1024 to 16384 bits and a signature below it
  (dkimpy reads a signature as a number and pads it to the key's length; so does this).

tests/judge/mailauth compare both with dkimpy's own, bytes for bytes and answer for answer.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import dkim
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils
from cryptography.hazmat.primitives.hashes import SHA256

pure_python_sign: Callable[[Any, Any], bytes] = dkim.RSASSA_PKCS1_v1_5_sign
pure_python_verify: Callable[[Any, bytes, Any], bool] = dkim.RSASSA_PKCS1_v1_5_verify
#: OpenSSL private keys by modulus.
_PRIVATE_KEYS: dict[int, rsa.RSAPrivateKey] = {}
_MODULUS_BITS = range(1024, 16385)


def register_private_key(key: rsa.RSAPrivateKey) -> None:
    """Signatures by ``key`` are made by OpenSSL from now on, in this process."""
    _PRIVATE_KEYS[key.private_numbers().public_numbers.n] = key


def openssl_sign(hasher: Any, private_key: dict[str, int]) -> bytes:
    """dkimpy's ``RSASSA_PKCS1_v1_5_sign(hash, key)``."""
    key = _PRIVATE_KEYS.get(private_key["modulus"])
    if key is None or hasher.name != "sha256":
        return pure_python_sign(hasher, private_key)
    return key.sign(hasher.digest(), padding.PKCS1v15(), utils.Prehashed(SHA256()))


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


dkim.RSASSA_PKCS1_v1_5_sign = openssl_sign
dkim.RSASSA_PKCS1_v1_5_verify = openssl_verify
