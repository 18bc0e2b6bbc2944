"""Two DKIM signatures on a message (RFC 6376, RFC 8463), made here.

``Signer.sign(raw)`` returns the message with one ``DKIM-Signature`` per key prepended,
``c=relaxed/relaxed``, no ``l=``; signed: From twice (a From added on the way breaks the
signature), the headers a reader sees or threads by, and every ``List-*`` header (the
usual ones also when absent, so none can be added).  The signatures are made over the
CRLF form, the bytes an SMTP relay receives; the result keeps the line ends of ``raw``
(a Maildir file uses LF, which every verifier reads as CRLF).

The tags are dkimpy's (``v a c d i q s t h bh b``, in its order and spacing), so for one
message and second both give the same signatures (tests/judge/mailauth compare them);
made here, the body is canonicalized and hashed once for both keys and the keys are read
once per process: about a quarter of dkimpy's cost per reply.  The arithmetic is
OpenSSL's (``cryptography``) for both algorithms.
"""

from __future__ import annotations

import base64
import hashlib
import re
import time
from functools import lru_cache
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa

from judge.mailauth.dkim_keys import ED25519, RSA, DkimKey

#: Signed whether present or not: an absent header signed cannot be added later.
SIGNED_HEADERS: tuple[str, ...] = (
    "from", "from", "sender", "reply-to", "to", "cc", "subject", "date", "message-id", "in-reply-to",
    "references", "auto-submitted", "mime-version", "content-type", "content-transfer-encoding",
    "list-id", "list-unsubscribe", "list-unsubscribe-post", "list-help", "list-subscribe", "list-post",
    "list-owner", "list-archive",
)
_SIGNED_NAMES = tuple(name.encode("ascii") for name in SIGNED_HEADERS)
_CRLF = re.compile(rb"\r?\n")
_WSP_RUN = re.compile(rb"[ \t]+")
_FIELD_NAME = re.compile(rb"^([!-9;-~]+)[ \t]*:")
_LINE = 76  # where a signature header is folded (RFC 5322 recommends lines of at most 78)


class SigningError(Exception):
    """A key or a message that cannot be signed with; the message says which."""


@lru_cache(maxsize=16)
def _private_key(key: DkimKey) -> rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey:
    """``key``'s private half as OpenSSL's, read once per process (checking a 2048-bit
    rsa key takes some 100 ms)."""
    try:
        if key.algorithm == ED25519:
            return ed25519.Ed25519PrivateKey.from_private_bytes(base64.b64decode(key.private_key, validate=True))
        loaded = serialization.load_pem_private_key(key.private_key.encode("ascii"), password=None)
    except ValueError as exc:
        kind = "an ed25519 seed" if key.algorithm == ED25519 else "a PEM private key"
        raise SigningError(f"the DKIM key of selector {key.selector!r} is not {kind}: {exc}") from None
    if key.algorithm != RSA or not isinstance(loaded, rsa.RSAPrivateKey):
        raise SigningError(f"the DKIM key of selector {key.selector!r} is not an {key.algorithm} key")
    return loaded


def _fields(head: bytes) -> list[tuple[bytes, bytes]]:
    """The header fields of a CRLF header block: (lower-case name, the field as written
    without its last CRLF)."""
    fields: list[tuple[bytes, bytes]] = []
    for line in head.split(b"\r\n"):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] = (fields[-1][0], fields[-1][1] + b"\r\n" + line)
            continue
        name = _FIELD_NAME.match(line)
        if name is None:
            raise SigningError(f"cannot sign the message: a header line is not a field: {line[:60]!r}")
        fields.append((name.group(1).lower(), line))
    return fields


def relaxed_header(field: bytes) -> bytes:
    """A field in relaxed canonical form (RFC 6376 3.4.2), without a line end."""
    name, _, value = field.partition(b":")
    value = _WSP_RUN.sub(b" ", value.replace(b"\r\n", b"")).strip(b" ")
    return name.rstrip(b" \t").lower() + b":" + value


def relaxed_body(body: bytes) -> bytes:
    """A CRLF body in relaxed canonical form (RFC 6376 3.4.4)."""
    lines = [_WSP_RUN.sub(b" ", line).rstrip(b" ") for line in body.split(b"\r\n")]
    while lines and not lines[-1]:
        lines.pop()
    return b"".join(line + b"\r\n" for line in lines)


def _selected(fields: list[tuple[bytes, bytes]], names: Sequence[bytes]) -> bytes:
    """The canonical fields ``names`` sign, each name taking the last instance not yet
    taken (RFC 6376 5.4.2), each with its CRLF."""
    taken: dict[bytes, int] = {}
    out = []
    for name in names:
        index = taken.get(name, len(fields))
        while index > 0:
            index -= 1
            if fields[index][0] == name:
                out.append(relaxed_header(fields[index][1]) + b"\r\n")
                break
        taken[name] = index
    return b"".join(out)


def _folded(tags: Sequence[bytes]) -> bytes:
    """``tags`` ("k=v"), joined by "; " and folded at their spaces (and the h= list's)."""
    lines, line = [], b"DKIM-Signature:"
    for index, tag in enumerate(tags):
        words = tag.split(b" ")
        words[-1] += b";" if index < len(tags) - 1 else b""
        for word in words:
            if len(line) + 1 + len(word) > _LINE and line.strip():
                lines.append(line)
                line = b""
            line += b" " + word
    return b"\r\n".join(lines + [line])


def _b64_folded(signature: bytes) -> bytes:
    text = base64.b64encode(signature)
    return b"\r\n ".join(text[i:i + 70] for i in range(0, len(text), 70))


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
            _private_key(key)  # a bad key is refused when the Signer is made

    def __reduce__(self) -> tuple[Any, ...]:
        """Made anew where it is unpickled (a verifier process): its keys read once there."""
        return (_signer_here, (self.domain, self.keys))

    def sign(self, raw: bytes) -> bytes:
        """``raw`` with the signatures prepended, in ``raw``'s line ends."""
        wire = _CRLF.sub(b"\r\n", raw)
        head, separator, body = wire.partition(b"\r\n\r\n")
        if not separator and head.endswith(b"\r\n"):
            head = head[:-2]
        fields = _fields(head)
        names = [*_SIGNED_NAMES, *sorted({name for name, _ in fields if name.startswith(b"list-")} - set(_SIGNED_NAMES))]
        signed_fields = _selected(fields, names)
        body_hash = base64.b64encode(hashlib.sha256(relaxed_body(body)).digest())
        domain = self.domain.encode("ascii")
        now = str(int(time.time())).encode("ascii")
        signatures = []
        for key in self.keys:
            tags = [b"v=1", b"a=" + key.signature_algorithm.encode("ascii"), b"c=relaxed/relaxed", b"d=" + domain,
                    b"i=@" + domain, b"q=dns/txt", b"s=" + key.selector.encode("ascii"), b"t=" + now,
                    b"h=" + b" : ".join(names), b"bh=" + body_hash, b"b="]
            unsigned = _folded(tags)
            data = signed_fields + relaxed_header(unsigned)
            private = _private_key(key)
            if isinstance(private, rsa.RSAPrivateKey):
                signature = private.sign(data, padding.PKCS1v15(), hashes.SHA256())
            else:
                signature = private.sign(hashlib.sha256(data).digest())
            signatures.append(unsigned + _b64_folded(signature) + b"\r\n")
        signed = b"".join(signatures) + wire
        return signed if b"\r\n" in raw else signed.replace(b"\r\n", b"\n")

    def sign_each(self, raws: Sequence[bytes]) -> list[bytes | SigningError]:
        """Each of ``raws`` signed, or the SigningError that message met (one bad message
        costs the others nothing)."""
        signed: list[bytes | SigningError] = []
        for raw in raws:
            try:
                signed.append(self.sign(raw))
            except SigningError as exc:
                signed.append(exc)
            except Exception as exc:  # whatever else one message meets
                signed.append(SigningError(f"cannot sign the message: {type(exc).__name__}: {exc}"))
        return signed


@lru_cache(maxsize=8)
def _signer_here(domain: str, keys: tuple[DkimKey, ...]) -> Signer:
    return Signer(domain, keys)


def signer_for(domain: str, keys: Sequence[DkimKey]) -> Signer:
    """A Signer with the rsa signature on top (read first by receivers that stop at one)."""
    ordered = sorted(keys, key=lambda k: k.algorithm != RSA)
    return Signer(domain, tuple(ordered))
