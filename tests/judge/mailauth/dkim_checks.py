"""Checking DKIM signatures in tests: by dkimpy with the keys served through its lookup
hook, and by OpenDKIM (``opendkim -t``, its offline test mode) with the keys in a
``TestPublicKeys`` file: an implementation the judge does not share code with."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Sequence

import dkim

from judge.mailauth.dkim_keys import DkimKey


def dns_of(domain: str, keys: Sequence[DkimKey]) -> dict[bytes, bytes]:
    return {f"{k.selector}._domainkey.{domain}.".encode(): k.txt_value().encode() for k in keys}


def dkimpy_verdicts(message: bytes, domain: str, keys: Sequence[DkimKey]) -> list[bool]:
    """Each DKIM-Signature's verdict, top first."""
    records = dns_of(domain, keys)

    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        return records.get(name if name.endswith(b".") else name + b".")

    checker = dkim.DKIM(message)
    count = len(re.findall(rb"(?im)^dkim-signature:", message.split(b"\n\n", 1)[0].replace(b"\r", b"")))
    verdicts = []
    for i in range(count):
        try:
            verdicts.append(bool(checker.verify(idx=i, dnsfunc=lookup)))
        except dkim.DKIMException:
            verdicts.append(False)
    return verdicts


def opendkim_binary() -> str:
    found = shutil.which("opendkim") or shutil.which("opendkim", path="/usr/sbin:/usr/local/sbin")
    assert found, "opendkim is not installed (Debian: apt-get install opendkim opendkim-tools; .ci/run does)"
    return found


def only_signature(message: bytes, algorithm: str) -> bytes:
    """``message`` keeping only its DKIM-Signature of ``a=algorithm`` (OpenDKIM's test
    mode reports the first signature only: each is checked alone)."""
    head, sep, body = message.partition(b"\n\n")
    fields = re.split(rb"\n(?![ \t])", head)
    kept = [f for f in fields if not f.lower().startswith(b"dkim-signature:") or f"a={algorithm};".encode() in f]
    return b"\n".join(kept) + sep + body


def opendkim_verdict(message: bytes, domain: str, keys: Sequence[DkimKey], work: Path) -> str:
    """OpenDKIM's line about ``message`` (LF line ends, as in a Maildir file)."""
    keyfile = work / "test-public-keys"
    keyfile.write_text("".join(f"{k.selector}._domainkey.{domain} {k.txt_value()}\n" for k in keys))
    conf = work / "opendkim.conf"
    conf.write_text(f"Mode v\nSyslog no\nTestPublicKeys {keyfile}\n")
    path = work / "message.eml"
    path.write_bytes(message)
    done = subprocess.run([opendkim_binary(), "-x", str(conf), "-t", str(path)], capture_output=True, text=True,
                          timeout=30)
    return (done.stdout + done.stderr).strip()


def opendkim_passes(message: bytes, domain: str, keys: Sequence[DkimKey], work: Path) -> bool:
    said = opendkim_verdict(message, domain, keys, work)
    assert "verification" in said, said
    return said.endswith("succeeded")
