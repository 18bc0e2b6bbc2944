"""DKIM key pairs as frozen values: made fresh, and their DNS record (RFC 6376 3.6.1).

An rsa key is 2048 bits, its private half PEM (PKCS#1) and ``p=`` the base64 DER
SubjectPublicKeyInfo; an ed25519 key (RFC 8463) is its 32-byte seed in base64 and ``p=``
the raw 32-byte public key in base64: the forms dkimpy signs with and OpenDKIM reads.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

RSA = "rsa"
ED25519 = "ed25519"
RSA_BITS = 2048
#: The signature algorithm (``a=``) of each key type.
ALGORITHMS = {RSA: "rsa-sha256", ED25519: "ed25519-sha256"}


@dataclass(frozen=True)
class DkimKey:
    """One key pair under its selector; ``algorithm`` is ``rsa`` or ``ed25519`` (``k=``)."""

    selector: str
    algorithm: str
    private_key: str
    public_key: str

    @property
    def signature_algorithm(self) -> str:
        return ALGORITHMS[self.algorithm]

    def txt_value(self) -> str:
        """The TXT record's value: ``v=DKIM1; k=...; p=...``."""
        return f"v=DKIM1; k={self.algorithm}; p={self.public_key}"

    def __repr__(self) -> str:  # never the private half in a log or a traceback
        return f"DkimKey({self.selector!r}, {self.algorithm!r}, public {self.public_key[:16]}...)"


def new_key(selector: str, algorithm: str) -> DkimKey:
    """A fresh key pair of ``algorithm`` (``rsa`` or ``ed25519``)."""
    if algorithm == RSA:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        private = rsa.generate_private_key(public_exponent=65537, key_size=RSA_BITS)
        pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                    serialization.NoEncryption()).decode("ascii")
        der = private.public_key().public_bytes(serialization.Encoding.DER,
                                                serialization.PublicFormat.SubjectPublicKeyInfo)
        return DkimKey(selector, RSA, pem, base64.b64encode(der).decode("ascii"))
    if algorithm == ED25519:
        import nacl.signing

        seed = nacl.signing.SigningKey.generate()
        return DkimKey(selector, ED25519, base64.b64encode(bytes(seed)).decode("ascii"),
                       base64.b64encode(bytes(seed.verify_key)).decode("ascii"))
    raise ValueError(f"unknown DKIM key type {algorithm!r}; known: {', '.join(ALGORITHMS)}")
