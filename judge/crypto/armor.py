"""OpenPGP ASCII armor (RFC 4880 section 6): text block <-> binary packets.

Pure: no I/O.  Players paste armored blocks into mail bodies, so the reader is lenient
about what mail does to text (CRLF, indentation, blank lines at the edges) and strict
about what matters (the base64 data and its CRC-24 checksum).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

_BEGIN = re.compile(r"^-----BEGIN PGP ([A-Z0-9 ,/]+)-----$")
_END = re.compile(r"^-----END PGP ([A-Z0-9 ,/]+)-----$")
_HEADER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: ")

_CRC24_INIT = 0xB704CE
_CRC24_POLY = 0x1864CFB


class ArmorError(ValueError):
    """An armored block that cannot be read; the message says what is wrong and what is expected."""


@dataclass(frozen=True)
class Armored:
    """One decoded armor block: its label (``SIGNATURE``, ``MESSAGE``, ``PUBLIC KEY BLOCK`` ...)
    and the binary packets it carries."""

    label: str
    data: bytes


def crc24(data: bytes) -> int:
    crc = _CRC24_INIT
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= _CRC24_POLY
    return crc & 0xFFFFFF


def _quote(line: str, limit: int = 60) -> str:
    return repr(line if len(line) <= limit else line[:limit] + "...")


def _as_text(block: bytes | str) -> str:
    if isinstance(block, bytes):
        try:
            return block.decode("ascii")
        except UnicodeDecodeError as exc:
            raise ArmorError(
                f"the armored block contains a non-ASCII byte at offset {exc.start}; an OpenPGP "
                "armored block is plain ASCII from '-----BEGIN PGP' to '-----END PGP'"
            ) from None
    return block


def dearmor_all(block: bytes | str) -> list[Armored]:
    """Every armored block in ``block`` (text around the blocks is ignored)."""
    lines = [line.strip() for line in _as_text(block).splitlines()]
    found: list[Armored] = []
    index = 0
    while index < len(lines):
        begin = _BEGIN.match(lines[index])
        if not begin:
            index += 1
            continue
        label = begin.group(1)
        if label.startswith("SIGNED MESSAGE"):
            index += 1  # clearsigned text: its signature block follows later
            continue
        data, index = _read_body(lines, index + 1, label)
        found.append(Armored(label, data))
    return found


def dearmor(block: bytes | str, *, expect: tuple[str, ...] = ()) -> Armored:
    """The one armored block in ``block``; ``expect`` limits the accepted labels."""
    blocks = dearmor_all(block)
    wanted = " or ".join(f"'-----BEGIN PGP {label}-----'" for label in expect) or "'-----BEGIN PGP ...-----'"
    if not blocks:
        raise ArmorError(f"no OpenPGP armored block found: expected a block starting with {wanted}")
    if len(blocks) > 1:
        labels = ", ".join(b.label for b in blocks)
        raise ArmorError(f"found {len(blocks)} armored blocks ({labels}); send exactly one")
    if expect and blocks[0].label not in expect:
        raise ArmorError(f"found a 'PGP {blocks[0].label}' block; expected {wanted}")
    return blocks[0]


def _read_body(lines: list[str], index: int, label: str) -> tuple[bytes, int]:
    # Armor headers ("Version: ...", "Comment: ...") run up to the first blank line.  Some
    # mailers drop that blank line, so a header block is recognised by its shape as well.
    while index < len(lines) and _HEADER.match(lines[index]):
        index += 1
    while index < len(lines) and not lines[index]:
        index += 1
    payload: list[str] = []
    checksum: str | None = None
    while index < len(lines):
        line = lines[index]
        end = _END.match(line)
        if end:
            if end.group(1) != label:
                raise ArmorError(
                    f"armor block opened as 'PGP {label}' but closed as 'PGP {end.group(1)}'"
                )
            return _decode(payload, checksum, label), index + 1
        if line.startswith("=") and len(line) == 5:
            checksum = line[1:]
        elif line:
            if checksum is not None:
                raise ArmorError(f"data after the checksum line in the 'PGP {label}' block: {_quote(line)}")
            payload.append(line)
        index += 1
    raise ArmorError(
        f"the 'PGP {label}' block has no '-----END PGP {label}-----' line: it was cut off"
    )


def _decode(payload: list[str], checksum: str | None, label: str) -> bytes:
    for line in payload:
        if not re.fullmatch(r"[A-Za-z0-9+/]+=*", line):
            raise ArmorError(f"the 'PGP {label}' block has a line that is not base64: {_quote(line)}")
    try:
        data = base64.b64decode("".join(payload), validate=True)
    except binascii.Error as exc:
        raise ArmorError(f"the 'PGP {label}' block's base64 data is damaged ({exc})") from None
    if not data:
        raise ArmorError(f"the 'PGP {label}' block is empty")
    if checksum is not None:
        try:
            expected = int.from_bytes(base64.b64decode(checksum, validate=True), "big")
        except binascii.Error:
            raise ArmorError(f"the 'PGP {label}' block's checksum line '={checksum}' is not base64") from None
        if crc24(data) != expected:
            raise ArmorError(
                f"the 'PGP {label}' block fails its checksum: it was changed in transit "
                "(send it as an attachment, or paste it unchanged)"
            )
    return data


def enarmor(data: bytes, label: str = "MESSAGE") -> str:
    """Armor binary packets as ``-----BEGIN PGP <label>-----`` text with a CRC-24 line."""
    encoded = base64.b64encode(data).decode("ascii")
    body = "\n".join(encoded[i : i + 64] for i in range(0, len(encoded), 64))
    crc = base64.b64encode(crc24(data).to_bytes(3, "big")).decode("ascii")
    return f"-----BEGIN PGP {label}-----\n\n{body}\n={crc}\n-----END PGP {label}-----\n"


def clearsigned_text(text: str) -> str | None:
    """The text a clearsigned block signs (dash-escaping undone), or None if ``text`` holds
    no clearsigned block.  Only the text between the armor lines is signed: anything a
    mailer adds around it is not."""
    lines = text.replace("\r\n", "\n").split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.rstrip() == "-----BEGIN PGP SIGNED MESSAGE-----")
    except StopIteration:
        return None
    index = start + 1
    while index < len(lines) and lines[index].strip():  # "Hash: SHA256" headers
        index += 1
    body: list[str] = []
    for line in lines[index + 1 :]:
        if line.rstrip() == "-----BEGIN PGP SIGNATURE-----":
            return "\n".join(body)
        body.append(line[2:] if line.startswith("- ") else line)
    return None
