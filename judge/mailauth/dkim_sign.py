"""Two DKIM signatures on a message (RFC 6376, RFC 8463), made by dkimpy.

``Signer.sign(raw)`` returns the message with one ``DKIM-Signature`` per key prepended,
``c=relaxed/relaxed``, no ``l=``; signed: From twice (a From added on the way breaks the
signature), the headers a reader sees or threads by, and every ``List-*`` header (the
usual ones also when absent, so none can be added).  The signatures are made over the
CRLF form, the bytes an SMTP relay receives; the result keeps the line ends of ``raw``
(a Maildir file uses LF, which every verifier reads as CRLF).

The rsa signature itself is OpenSSL's for the keys a Signer holds (judge.mailauth.rsa_openssl:
0.4 ms against dkimpy's 10 in pure Python, the same bytes).
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

import dkim

from judge.mailauth.dkim_keys import RSA, DkimKey
from judge.mailauth.rsa_openssl import register_private_key

#: Signed whether present or not: an absent header signed cannot be added later.
SIGNED_HEADERS: tuple[str, ...] = (
    "from", "from", "sender", "reply-to", "to", "cc", "subject", "date", "message-id", "in-reply-to",
    "references", "auto-submitted", "mime-version", "content-type", "content-transfer-encoding",
    "list-id", "list-unsubscribe", "list-unsubscribe-post", "list-help", "list-subscribe", "list-post",
    "list-owner", "list-archive",
)
_CRLF = re.compile(rb"\r?\n")
_HEADER_NAME = re.compile(rb"^([!-9;-~]+):", re.MULTILINE)

class SigningError(Exception):
    """A key or a message that cannot be signed with; the message says which."""


def _register_openssl_key(key: DkimKey) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    try:
        loaded = serialization.load_pem_private_key(key.private_key.encode("ascii"), password=None)
    except ValueError as exc:
        raise SigningError(f"the DKIM key of selector {key.selector!r} is not a PEM private key: {exc}") from None
    if isinstance(loaded, rsa.RSAPrivateKey):
        register_private_key(loaded)


class MailSigner(Protocol):
    """What signs leaving mail: a Signer, here or in a process of its own."""

    def sign(self, raw: bytes) -> bytes: ...

    def sign_each(self, raws: Sequence[bytes]) -> list[bytes | SigningError]:
        """Each of ``raws`` signed, or the SigningError that message met."""
        ...


@dataclass(frozen=True)
class Signer:
    """Signs as ``domain`` (``d=``) with each of ``keys``, in order (the first on top)."""

    domain: str
    keys: tuple[DkimKey, ...]

    def __post_init__(self) -> None:
        for key in self.keys:
            if key.algorithm == RSA:
                _register_openssl_key(key)

    def __reduce__(self) -> tuple[Any, ...]:
        """Made anew where it is unpickled (a verifier process), so its keys are OpenSSL's there
        too; once per process and keys (loading a 2048-bit key checks it: some 100 ms)."""
        return (_signer_here, (self.domain, self.keys))

    def sign(self, raw: bytes) -> bytes:
        """``raw`` with the signatures prepended, in ``raw``'s line ends."""
        wire = _CRLF.sub(b"\r\n", raw)
        head = wire.split(b"\r\n\r\n", 1)[0]
        headers = list(SIGNED_HEADERS) + sorted(
            {name.lower().decode("ascii") for name in _HEADER_NAME.findall(head.replace(b"\r\n", b"\n"))
             if name.lower().startswith(b"list-")} - set(SIGNED_HEADERS))
        signatures = []
        try:
            message = dkim.DKIM(wire, linesep=b"\r\n")
            for key in self.keys:
                secret = key.private_key.encode("ascii")
                signatures.append(message.sign(
                    key.selector.encode("ascii"), self.domain.encode("ascii"), secret,
                    signature_algorithm=key.signature_algorithm.encode("ascii"),
                    canonicalize=(b"relaxed", b"relaxed"), include_headers=[h.encode("ascii") for h in headers]))
        except dkim.DKIMException as exc:
            raise SigningError(f"cannot sign the message: {exc}") from exc
        signed = b"".join(signatures) + wire
        return signed if b"\r\n" in raw else signed.replace(b"\r\n", b"\n")

    def sign_each(self, raws: Sequence[bytes]) -> list[bytes | SigningError]:
        return sign_each(self, raws)


def sign_each(signer: Signer, raws: Sequence[bytes]) -> list[bytes | SigningError]:
    """Each of ``raws`` signed by ``signer``, or the SigningError that message met (one bad
    message costs the others nothing)."""
    signed: list[bytes | SigningError] = []
    for raw in raws:
        try:
            signed.append(signer.sign(raw))
        except SigningError as exc:
            signed.append(exc)
        except Exception as exc:  # dkimpy's own trouble with one message
            signed.append(SigningError(f"cannot sign the message: {type(exc).__name__}: {exc}"))
    return signed


@lru_cache(maxsize=8)
def _signer_here(domain: str, keys: tuple[DkimKey, ...]) -> Signer:
    return Signer(domain, keys)


def signer_for(domain: str, keys: Sequence[DkimKey]) -> Signer:
    """A Signer with the rsa signature on top (read first by receivers that stop at one)."""
    ordered = sorted(keys, key=lambda k: k.algorithm != RSA)
    return Signer(domain, tuple(ordered))
