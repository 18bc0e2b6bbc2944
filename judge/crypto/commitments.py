"""Sealed-orders commitments: a signed hash now, the orders later.

Two forms:

* ``COMMIT`` with a detached signature (``gpg --armor --detach-sign orders.txt``).  At
  commit time the judge has no orders, so :func:`check_commitment` checks the structure and
  the signer's key id only; :func:`verify_reveal` checks the revealed bytes with gpg.
* ``COMMIT SHA256 <hex>`` for players without PGP (weaker: nothing proves who made it, and a
  short salt can be brute-forced over the small space of plausible orders).  The hashed
  bytes are defined by :func:`salted_bytes`.

Lottery numbers and preference lists use the same functions (the committed file holds one
number, :func:`read_number`, or one list).  The reveal step of all three commit-reveal
flows is :func:`check_reveal`; each flow keeps its own storage and publishing.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Callable

from judge.crypto.armor import ArmorError, dearmor
from judge.crypto.gpg import Keyring
from judge.crypto.packets import (
    SIGNATURE_TYPES,
    WEAK_HASHES,
    PacketError,
    SignatureInfo,
    detached_signatures,
)
from judge.crypto.verdict import Verdict, normalize_fingerprint

SALT_PREFIX = "SALT "
MIN_SALT_LENGTH = 16


class CommitmentFormatError(ValueError):
    """Input that is not a commitment, a salted reveal or a number; the message quotes it."""


# -- signed commitments -------------------------------------------------------------------
def signature_packets(signature_bytes: bytes) -> bytes:
    """The binary signature packets of an armored block (found among other text, CRLF or
    indented as mail leaves it) or of a binary ``.sig`` file."""
    if b"-----BEGIN PGP" in signature_bytes:
        try:
            return dearmor(signature_bytes, expect=("SIGNATURE", "MESSAGE")).data
        except ArmorError as exc:
            raise CommitmentFormatError(f"malformed signature block: {exc}") from None
    if signature_bytes[:1] and signature_bytes[0] & 0x80:
        return signature_bytes
    raise CommitmentFormatError(
        "no signature found: expected an armored block starting with "
        "'-----BEGIN PGP SIGNATURE-----' (gpg --armor --detach-sign orders.txt)"
    )


def read_signature(signature_bytes: bytes) -> SignatureInfo:
    """The one detached signature in an armored (or binary ``.sig``) block."""
    data = signature_packets(signature_bytes)
    try:
        signatures = detached_signatures(data)
    except PacketError as exc:
        raise CommitmentFormatError(f"malformed signature: {exc}") from None
    if len(signatures) != 1:
        raise CommitmentFormatError(
            f"the block holds {len(signatures)} signatures; sign with one key only"
        )
    signature = signatures[0]
    if signature.signature_type not in SIGNATURE_TYPES:
        raise CommitmentFormatError(
            f"signature type 0x{signature.signature_type:02x} is not a document signature; "
            "use gpg --armor --detach-sign orders.txt"
        )
    if signature.hash_algorithm in WEAK_HASHES:
        raise CommitmentFormatError(
            f"the signature uses {signature.hash_name}, which has known collisions (a "
            "commitment could then be opened two ways); sign with SHA256, gpg's default "
            "(or add --digest-algo SHA256)"
        )
    if not signature.issuer:
        raise CommitmentFormatError("the signature does not say which key made it")
    return signature


def check_commitment(keyring: Keyring, signature_bytes: bytes, registered_fingerprint: str) -> Verdict:
    """Is this a well-formed detached signature made by the player's registered key?

    Checks structure and signer only (the data comes later, at reveal); an unknown key
    and another player's key are refused.
    """
    try:
        signature = read_signature(signature_bytes)
    except CommitmentFormatError as exc:
        return Verdict(False, None, None, str(exc))
    return _check_signer(keyring, signature, normalize_fingerprint(registered_fingerprint))


def _check_signer(keyring: Keyring, signature: SignatureInfo, registered: str) -> Verdict:
    issuer = signature.issuer or ""
    signer = keyring.primary_fingerprint(issuer)
    key_id = signature.issuer_key_id
    if signer is None:
        return Verdict(
            False, None, key_id,
            f"unknown key: the signature was made by key {issuer}, which is not registered "
            f"on this judge; your registered key is {registered} (send SET KEY to change it)",
        )
    if signer != registered:
        return Verdict(
            False, signer, key_id,
            f"signed by another key: {keyring.user_id(signer)} ({signer}), not your registered "
            f"key {registered}",
        )
    return Verdict(True, signer, key_id, f"well-formed detached signature by the registered key {signer}")


# -- reveals ------------------------------------------------------------------------------
def _to_lf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n")


def _to_crlf(data: bytes) -> bytes:
    return _to_lf(data).replace(b"\n", b"\r\n")


def _newline_of(data: bytes) -> bytes:
    return b"\r\n" if b"\r\n" in data else b"\n"


def _add_final_newline(data: bytes) -> bytes:
    # Unconditional: a file ending in a blank line that lost its last newline ends in one.
    return data + _newline_of(data)


def _remove_final_newline(data: bytes) -> bytes:
    if data.endswith(b"\r\n"):
        return data[:-2]
    return data[:-1] if data.endswith(b"\n") else data


def _strip_trailing_whitespace(data: bytes) -> bytes:
    newline = _newline_of(data)
    return newline.join(line.rstrip(b" \t") for line in _to_lf(data).split(b"\n"))


# What mail does to text on the way (see shared/recipes/real-components.md): line endings
# converted, a final newline added or dropped, trailing spaces added.  Each variant is a
# sequence of these steps applied to the revealed bytes.
_STEPS: dict[str, Callable[[bytes], bytes]] = {
    "CRLF line endings -> LF": _to_lf,
    "LF line endings -> CRLF": _to_crlf,
    "final newline added": _add_final_newline,
    "final newline removed": _remove_final_newline,
    "trailing whitespace removed": _strip_trailing_whitespace,
}
_VARIANTS: tuple[tuple[str, ...], ...] = tuple(
    sorted(
        (
            tuple(step for step in (whitespace, ending, final) if step)
            for whitespace in ("", "trailing whitespace removed")
            for ending in ("", "CRLF line endings -> LF", "LF line endings -> CRLF")
            for final in ("", "final newline added", "final newline removed")
        ),
        key=len,  # the fewest changes first: exact bytes, then one step, ...
    )
)


def reveal_variants(revealed: bytes) -> list[tuple[str, bytes]]:
    """(name, bytes) for each distinct form of ``revealed`` worth trying, exact bytes first."""
    seen: set[bytes] = set()
    variants: list[tuple[str, bytes]] = []
    for steps in _VARIANTS:
        data = revealed
        for step in steps:
            data = _STEPS[step](data)
        if data not in seen:
            seen.add(data)
            variants.append((", ".join(steps) or "exact", data))
    return variants


def signed_variant(revealed: bytes, variant: str) -> bytes:
    """The bytes a verdict's ``variant`` names (what the player actually signed)."""
    for name, data in reveal_variants(revealed):
        if name == variant:
            return data
    raise ValueError(f"unknown variant {variant!r}")


def verify_reveal(
    keyring: Keyring, signature_bytes: bytes, revealed_bytes: bytes, fingerprint: str
) -> Verdict:
    """Do the revealed bytes match the commitment, signed by ``fingerprint``?

    Exact bytes first, then the variants of :func:`reveal_variants`; the verdict's
    ``variant`` says which one verified.
    """
    registered = normalize_fingerprint(fingerprint)
    structure = check_commitment(keyring, signature_bytes, registered)
    if not structure.valid:
        return structure
    # gpg gets the packets alone: surrounding text and mail damage to the armor are gone.
    packets = signature_packets(signature_bytes)
    first: Verdict | None = None
    for name, data in reveal_variants(revealed_bytes):
        verdict = keyring.verify_detached(packets, data)
        if verdict.valid:
            if verdict.fingerprint != registered:  # the issuer packet lied about the signer
                return Verdict(False, verdict.fingerprint, verdict.key_id,
                               f"signed by {verdict.fingerprint}, not the registered key {registered}")
            where = "the revealed bytes exactly" if name == "exact" else f"the revealed text after: {name}"
            return Verdict(True, verdict.fingerprint, verdict.key_id,
                           f"{verdict.reason}; matches {where}", variant=name)
        first = first or verdict
        if "BAD signature" not in verdict.reason:
            break  # not a content mismatch: other forms of the text cannot help
    assert first is not None
    return first


# -- SHA-256 commitments ------------------------------------------------------------------
def salted_bytes(orders_text: str, salt_line: str) -> bytes:
    """The exact bytes a ``COMMIT SHA256`` hashes: the orders text with LF line endings,
    ending in one newline if it has any text, then the salt line and a newline, in UTF-8.

    That is the file ``sha256sum`` sees when the salt is the last line of the orders file
    (saved with LF line endings).
    """
    orders = orders_text.replace("\r\n", "\n").replace("\r", "\n")
    if orders and not orders.endswith("\n"):
        orders += "\n"
    return (orders + salt_line.rstrip("\r\n") + "\n").encode("utf-8")


def sha256_commitment(orders_text: str, salt_line: str) -> str:
    check_salt_line(salt_line)
    return hashlib.sha256(salted_bytes(orders_text, salt_line)).hexdigest()


def check_salt_line(salt_line: str) -> None:
    line = salt_line.rstrip("\r\n")
    if not line.startswith(SALT_PREFIX) or len(line[len(SALT_PREFIX):].strip()) < MIN_SALT_LENGTH:
        raise CommitmentFormatError(
            f"salt line {line!r} is not accepted: write 'SALT ' followed by at least "
            f"{MIN_SALT_LENGTH} secret random characters, e.g. 'SALT 7fQ2kL9zR4mW1xBc'"
        )


def parse_sha256_hex(text: str) -> str:
    cleaned = text.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", cleaned):
        raise CommitmentFormatError(
            f"{text.strip()!r} is not a SHA-256 digest: expected 64 hexadecimal digits as "
            "printed by 'sha256sum orders.txt'"
        )
    return cleaned


def split_salted(revealed_text: str) -> tuple[str, str]:
    """(orders text, salt line) of a salted reveal: the salt is the last non-blank line."""
    lines = revealed_text.replace("\r\n", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise CommitmentFormatError("the reveal is empty: send the orders text ending with your 'SALT ...' line")
    salt_line = lines[-1].rstrip()
    check_salt_line(salt_line)
    orders_lines = lines[:-1]
    return ("\n".join(orders_lines) + "\n" if orders_lines else ""), salt_line


def verify_sha256_reveal(commitment_hex: str, revealed: bytes) -> Verdict:
    """Does the revealed text (orders, then the salt line) hash to the commitment?

    The defined form (:func:`salted_bytes`) first, then the raw bytes as sent, with and
    without a final newline, and with CRLF line endings (a file saved on Windows).
    """
    try:
        expected = parse_sha256_hex(commitment_hex)
        text = revealed.decode("utf-8")
        orders, salt_line = split_salted(text)
    except UnicodeDecodeError as exc:
        return Verdict(False, None, None, f"the revealed text is not UTF-8 (byte {exc.start})")
    except CommitmentFormatError as exc:
        return Verdict(False, None, None, str(exc))
    canonical = salted_bytes(orders, salt_line)
    candidates = [("defined form", canonical), ("exact", revealed),
                  ("final newline added", _add_final_newline(revealed)),
                  ("final newline removed", _remove_final_newline(revealed)),
                  ("CRLF line endings", _to_crlf(canonical)),
                  ("CRLF line endings, final newline removed", _remove_final_newline(_to_crlf(canonical)))]
    for name, data in candidates:
        if hmac.compare_digest(hashlib.sha256(data).hexdigest(), expected):
            return Verdict(True, None, None, f"SHA-256 of the revealed text matches ({name})", variant=name)
    return Verdict(False, None, None,
                   "the SHA-256 of the revealed text (orders, then the SALT line) does not match the commitment")


# -- the reveal step of every flow ----------------------------------------------------------
@dataclass(frozen=True)
class Committed:
    """What a player committed to, as a flow stored it: a salted SHA-256 ``digest``, or a
    detached ``signature`` by the key with ``fingerprint``."""

    digest: str | None = None
    signature: bytes | None = None
    fingerprint: str = ""


@dataclass(frozen=True)
class RevealCheck:
    """The verdict on revealed bytes, and the bytes the commitment covers (for a signature,
    the form the player actually signed); ``signed`` is None when the reveal failed."""

    verdict: Verdict
    signed: bytes | None


def check_reveal(committed: Committed, revealed: bytes,
                 keyring: Callable[[], AbstractContextManager[Keyring]]) -> RevealCheck:
    """Revealed bytes against a commitment: the one reveal check of sealed orders, lottery
    numbers and preference lists.  ``keyring`` opens a keyring holding the signer's key; it
    is opened only for a signed commitment."""
    if committed.digest is not None:
        verdict = verify_sha256_reveal(committed.digest, revealed)
        return RevealCheck(verdict, revealed if verdict.valid else None)
    with keyring() as ring:
        verdict = verify_reveal(ring, committed.signature or b"", revealed, committed.fingerprint)
    if not verdict.valid:
        return RevealCheck(verdict, None)
    variant = verdict.variant or "exact"
    return RevealCheck(verdict, revealed if variant == "exact" else signed_variant(revealed, variant))


# -- committed numbers --------------------------------------------------------------------
def read_number(data: bytes, outcomes: int) -> int:
    """The number in a committed number file: one integer 0..outcomes-1 (blank lines and
    surrounding spaces allowed)."""
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise CommitmentFormatError("the number file is not text: it should hold one number, e.g. '4'") from None
    if not re.fullmatch(r"[0-9]+", text):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise CommitmentFormatError(
            f"{shown!r} is not a number: the file should hold one whole number from 0 to {outcomes - 1}"
        )
    number = int(text)
    if not 0 <= number < outcomes:
        raise CommitmentFormatError(f"{number} is outside 0..{outcomes - 1}: there are {outcomes} outcomes")
    return number
