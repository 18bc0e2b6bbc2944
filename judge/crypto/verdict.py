"""The outcome of checking one signature, as a value the rest of the judge can store and print."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """``valid`` is True only for a good signature by the key that was asked for.

    ``fingerprint`` is the signer's primary-key fingerprint when known, ``key_id`` the
    16-hex-digit issuer id the signature names, ``reason`` a sentence for humans, and
    ``variant`` (reveals only) which form of the revealed text verified, e.g. ``"exact"``
    or ``"LF line endings -> CRLF"``.
    """

    valid: bool
    fingerprint: str | None
    key_id: str | None
    reason: str
    variant: str | None = None


def normalize_fingerprint(text: str) -> str:
    """Upper-case hex without spaces or a 0x prefix, as gpg prints it with --with-colons."""
    cleaned = "".join(text.split()).upper()
    return cleaned[2:] if cleaned.startswith("0X") else cleaned


def spaced(fingerprint: str) -> str:
    """``ABCD 1234 ...``: how gpg --fingerprint prints it, easier to compare by eye."""
    return " ".join(fingerprint[i:i + 4] for i in range(0, len(fingerprint), 4))
