"""PGP/MIME signed mail (RFC 3156): the judge signs every broadcast so players can check it.

The signed entity is the message's content (its Content-* headers and body) made 7-bit
safe, serialized with CRLF line endings exactly as it will be transmitted; the message
becomes ``multipart/signed`` with that entity first and an ``application/pgp-signature``
part second.  Text is sent quoted-printable with lines starting "From " encoded as
"=46rom ", so that neither transport nor an mbox archive changes a signed byte.
"""

from __future__ import annotations

import base64
import copy
import quopri
import re
import secrets
from dataclasses import dataclass
from typing import cast
from email import message_from_bytes, policy
from email.message import EmailMessage

from judge.crypto.armor import dearmor
from judge.crypto.gpg import GpgError, Keyring
from judge.crypto.packets import detached_signatures, micalg_for
from judge.crypto.verdict import Verdict, normalize_fingerprint
from judge.mailio.read import leaf_bytes

SIGNATURE_TYPE = "application/pgp-signature"


@dataclass(frozen=True)
class MimeVerdict:
    """The verdict on a PGP/MIME message plus what was signed (``signed_part`` is None when
    the message is not PGP/MIME at all)."""

    verdict: Verdict
    signed_part: EmailMessage | None
    signed_bytes: bytes

    @property
    def valid(self) -> bool:
        return self.verdict.valid


def _is_content_header(name: str) -> bool:
    return name.lower().startswith("content-")


def _quoted_printable(data: bytes) -> str:
    text = data.replace(b"\r\n", b"\n")
    encoded = quopri.encodestring(text, quotetabs=False).decode("ascii")
    # mbox archives rewrite "From " at a line start; an encoded "F" survives that.
    encoded = re.sub(r"(?m)^From ", "=46rom ", encoded)
    # A lone "." line is harmless for SMTP (dot-stuffed) but some tools mangle it.
    return re.sub(r"(?m)^\.$", "=2E", encoded)


def _base64(data: bytes) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return "".join(encoded[i : i + 76] + "\n" for i in range(0, len(encoded), 76))


def _make_seven_bit(entity: EmailMessage) -> None:
    """Re-encode every leaf: body text as quoted-printable, files and anything else as
    base64 (RFC 3156 section 3: signed data must survive any transport unchanged)."""
    for part in entity.walk():
        if part.is_multipart():
            continue
        payload = leaf_bytes(part)
        # Attached files (orders, commitments) must reach players byte for byte: base64.
        if part.get_content_maintype() == "text" and part.get_filename() is None:
            encoded, encoding = _quoted_printable(payload), "quoted-printable"
        else:
            encoded, encoding = _base64(payload), "base64"
        del part["Content-Transfer-Encoding"]
        part["Content-Transfer-Encoding"] = encoding
        part.set_payload(encoded)


def _stable_bytes(entity: EmailMessage) -> tuple[EmailMessage, bytes]:
    """Serialize and re-parse until the bytes no longer change, so that the part inside the
    final message serializes to exactly the bytes that were signed."""
    data = entity.as_bytes(policy=policy.SMTP)
    for _ in range(3):
        parsed = message_from_bytes(data, policy=policy.default)
        again = parsed.as_bytes(policy=policy.SMTP)
        if again == data:
            return parsed, data
        data = again
    raise GpgError("the message does not serialize to stable bytes; it cannot be signed")


def sign_message(
    keyring: Keyring, message: EmailMessage, signer: str, *, passphrase: str | None = None
) -> EmailMessage:
    """A PGP/MIME signed copy of ``message``: its headers (From, To, Subject, ...) stay on
    the outside, its content becomes the signed first part."""
    inner = copy.deepcopy(message)
    for name in {name for name in inner.keys() if not _is_content_header(name)}:
        del inner[name]
    if "Content-Type" not in inner:
        inner["Content-Type"] = 'text/plain; charset="utf-8"'
    _make_seven_bit(inner)
    signed_part, signed_bytes = _stable_bytes(inner)

    armored = keyring.sign_detached(signed_bytes, signer, passphrase=passphrase)
    [info] = detached_signatures(dearmor(armored).data)

    signature_part = EmailMessage()
    signature_part["Content-Type"] = f'{SIGNATURE_TYPE}; name="signature.asc"'
    signature_part["Content-Description"] = "OpenPGP digital signature"
    signature_part["Content-Disposition"] = 'attachment; filename="signature.asc"'
    signature_part.set_payload(armored.decode("ascii"))

    outer = EmailMessage()
    for name, value in message.items():
        if not _is_content_header(name) and name.lower() != "mime-version":
            outer[name] = value
    outer["MIME-Version"] = "1.0"
    boundary = _fresh_boundary(signed_bytes)
    outer["Content-Type"] = (
        f'multipart/signed; micalg="{micalg_for(info.hash_algorithm)}"; '
        f'protocol="{SIGNATURE_TYPE}"; boundary="{boundary}"'
    )
    outer.set_payload([signed_part, signature_part])

    reproduced, _ = split_signed(outer.as_bytes(policy=policy.SMTP))
    if reproduced != signed_bytes:
        raise GpgError("the signed part changed when the message was serialized; not sent")
    return outer


def _fresh_boundary(content: bytes) -> str:
    while True:
        boundary = "=-=signed-" + secrets.token_hex(12)
        if boundary.encode() not in content:
            return boundary


def _header_end(raw: bytes) -> int:
    """Offset of the body: after the first empty line (CRLF or LF mail)."""
    match = re.search(rb"\r?\n\r?\n", raw)
    if not match:
        raise ValueError("the message has no body")
    return match.end()


def split_signed(raw: bytes) -> tuple[bytes, bytes]:
    """(signed first part with CRLF line endings, the raw second part) of a multipart/signed
    message, taken from the bytes as received, not re-serialized."""
    message = message_from_bytes(raw, policy=policy.default)
    boundary = message.get_boundary()
    if message.get_content_type() != "multipart/signed" or not boundary:
        raise ValueError(f"not a PGP/MIME signed message (Content-Type {message.get_content_type()})")
    body = raw[_header_end(raw):]
    delimiter = re.compile(
        rb"(?:\A|\r?\n)--" + re.escape(boundary.encode()) + rb"(--)?[ \t]*(?:\r?\n|\Z)"
    )
    marks = list(delimiter.finditer(body))
    if len(marks) < 3 or marks[0].group(1) or marks[1].group(1):
        raise ValueError("the multipart/signed body does not hold two parts")
    first = body[marks[0].end() : marks[1].start()]
    second = body[marks[1].end() : marks[2].start()]
    return _to_crlf(first), second


def _to_crlf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def verify_message(
    keyring: Keyring, raw: bytes, expected_fingerprint: str | None = None
) -> MimeVerdict:
    """Check a received PGP/MIME message from its raw bytes (as received or archived)."""
    try:
        signed_bytes, _ = split_signed(raw)
    except ValueError as exc:
        return MimeVerdict(Verdict(False, None, None, str(exc)), None, b"")
    message = message_from_bytes(raw, policy=policy.default)
    parts = cast("list[EmailMessage]", message.get_payload())  # with policy.default, parts are EmailMessages
    assert isinstance(parts, list)
    signature_part = parts[1]
    if signature_part.get_content_type() != SIGNATURE_TYPE:
        verdict = Verdict(False, None, None,
                          f"the second part is {signature_part.get_content_type()}, not {SIGNATURE_TYPE}")
        return MimeVerdict(verdict, parts[0], signed_bytes)
    signature = leaf_bytes(signature_part)
    verdict = keyring.verify_detached(signature, signed_bytes)
    if verdict.valid and expected_fingerprint:
        expected = normalize_fingerprint(expected_fingerprint)
        if verdict.fingerprint != expected:
            verdict = Verdict(False, verdict.fingerprint, verdict.key_id,
                              f"signed by {verdict.fingerprint}, not by the expected key {expected}")
    return MimeVerdict(verdict, parts[0], signed_bytes)
