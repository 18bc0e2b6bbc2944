"""Just enough OpenPGP packet parsing (RFC 4880 section 4-5) to inspect what players send
without gpg: who made a signature, with which hash, and to whom a message is encrypted.

Pure: no I/O.  Cryptographic checks stay with gpg; this only reads headers, so that a
commitment can be checked for its signer before the signed data exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

TAG_PKESK = 1
TAG_SIGNATURE = 2
TAG_SECRET_KEY = 5
TAG_PUBLIC_KEY = 6
TAG_SECRET_SUBKEY = 7
TAG_COMPRESSED = 8
TAG_LITERAL = 11
TAG_USER_ID = 13
TAG_PUBLIC_SUBKEY = 14
TAG_ONE_PASS_SIGNATURE = 4

HASH_NAMES: dict[int, str] = {
    1: "MD5", 2: "SHA1", 3: "RIPEMD160", 8: "SHA256", 9: "SHA384", 10: "SHA512", 11: "SHA224",
    12: "SHA3-256", 14: "SHA3-512",
}
# Hashes with practical collision attacks: a commitment made with one of them could be
# opened two ways, which defeats its purpose.
WEAK_HASHES = frozenset({1, 2, 3})

SIGNATURE_TYPES: dict[int, str] = {0x00: "binary document", 0x01: "text document"}


class PacketError(ValueError):
    """Packet data that cannot be read; the message says what is wrong."""


@dataclass(frozen=True)
class Packet:
    tag: int
    body: bytes


@dataclass(frozen=True)
class SignatureInfo:
    """The readable header of one signature packet."""

    version: int
    signature_type: int
    hash_algorithm: int
    issuer_key_id: str | None  # 16 upper-case hex digits
    issuer_fingerprint: str | None  # upper-case hex, v4 (40) or v5 (64)

    @property
    def hash_name(self) -> str:
        return HASH_NAMES.get(self.hash_algorithm, f"hash #{self.hash_algorithm}")

    @property
    def issuer(self) -> str | None:
        """The most precise issuer identity present: fingerprint, else key id."""
        return self.issuer_fingerprint or self.issuer_key_id


def iter_packets(data: bytes) -> Iterator[Packet]:
    offset = 0
    while offset < len(data):
        header = data[offset]
        if not header & 0x80:
            raise PacketError(f"byte {offset} (0x{header:02x}) is not an OpenPGP packet header")
        offset += 1
        if header & 0x40:  # new format
            tag = header & 0x3F
            body, offset = _new_format_body(data, offset)
        else:
            tag = (header >> 2) & 0x0F
            body, offset = _old_format_body(data, offset, header & 0x03)
        yield Packet(tag, body)


def _need(data: bytes, offset: int, count: int) -> None:
    if offset + count > len(data):
        raise PacketError("the packet data is truncated")


def _new_format_length(data: bytes, offset: int) -> tuple[int, int, bool]:
    """(length, new offset, partial?)"""
    _need(data, offset, 1)
    first = data[offset]
    if first < 192:
        return first, offset + 1, False
    if first < 224:
        _need(data, offset, 2)
        return ((first - 192) << 8) + data[offset + 1] + 192, offset + 2, False
    if first == 255:
        _need(data, offset, 5)
        return int.from_bytes(data[offset + 1 : offset + 5], "big"), offset + 5, False
    return 1 << (first & 0x1F), offset + 1, True


def _new_format_body(data: bytes, offset: int) -> tuple[bytes, int]:
    chunks: list[bytes] = []
    while True:
        length, offset, partial = _new_format_length(data, offset)
        _need(data, offset, length)
        chunks.append(data[offset : offset + length])
        offset += length
        if not partial:
            return b"".join(chunks), offset


def _old_format_body(data: bytes, offset: int, length_type: int) -> tuple[bytes, int]:
    if length_type == 3:
        return data[offset:], len(data)
    size = (1, 2, 4)[length_type]
    _need(data, offset, size)
    length = int.from_bytes(data[offset : offset + size], "big")
    offset += size
    _need(data, offset, length)
    return data[offset : offset + length], offset + length


def parse_signature(body: bytes) -> SignatureInfo:
    if not body:
        raise PacketError("empty signature packet")
    version = body[0]
    if version == 3:
        if len(body) < 19 or body[1] != 5:
            raise PacketError("malformed version 3 signature packet")
        return SignatureInfo(
            version=3,
            signature_type=body[2],
            hash_algorithm=body[16],
            issuer_key_id=body[7:15].hex().upper(),
            issuer_fingerprint=None,
        )
    if version not in (4, 5):
        raise PacketError(f"signature packet version {version} is not supported (expected 3, 4 or 5)")
    if len(body) < 6:
        raise PacketError("the signature packet is truncated")
    signature_type, hash_algorithm = body[1], body[3]
    count_size = 2 if version == 4 else 4
    offset = 4
    key_id: str | None = None
    fingerprint: str | None = None
    for _ in range(2):  # hashed, then unhashed subpackets
        _need(body, offset, count_size)
        area_length = int.from_bytes(body[offset : offset + count_size], "big")
        offset += count_size
        _need(body, offset, area_length)
        for kind, value in _subpackets(body[offset : offset + area_length]):
            if kind == 16 and len(value) == 8:
                key_id = key_id or value.hex().upper()
            elif kind == 33 and len(value) in (21, 33):
                fingerprint = fingerprint or value[1:].hex().upper()
        offset += area_length
    if fingerprint and not key_id:
        key_id = fingerprint[-16:] if version == 4 else fingerprint[:16]
    return SignatureInfo(version, signature_type, hash_algorithm, key_id, fingerprint)


def _subpackets(area: bytes) -> Iterator[tuple[int, bytes]]:
    offset = 0
    while offset < len(area):
        first = area[offset]
        if first < 192:
            length, offset = first, offset + 1
        elif first < 255:
            _need(area, offset, 2)
            length, offset = ((first - 192) << 8) + area[offset + 1] + 192, offset + 2
        else:
            _need(area, offset, 5)
            length, offset = int.from_bytes(area[offset + 1 : offset + 5], "big"), offset + 5
        if length == 0:
            raise PacketError("a signature subpacket has length 0")
        _need(area, offset, length)
        yield area[offset] & 0x7F, area[offset + 1 : offset + length]
        offset += length


def detached_signatures(data: bytes) -> list[SignatureInfo]:
    """The signatures of a detached-signature block; refuses anything else (a signed or
    encrypted message, a key, literal data) with a message saying what was found."""
    packets = list(iter_packets(data))
    if not packets:
        raise PacketError("no packets found")
    others = sorted({p.tag for p in packets if p.tag != TAG_SIGNATURE})
    if others:
        what = ", ".join(describe_tag(tag) for tag in others)
        raise PacketError(
            f"this is not a detached signature: it contains {what}. Make one with "
            "'gpg --armor --detach-sign FILE' and send the resulting FILE.asc"
        )
    return [parse_signature(p.body) for p in packets]


def recipient_key_ids(data: bytes) -> list[str]:
    """Key ids of the public-key encrypted session key packets (the message's recipients);
    '0000000000000000' marks a hidden recipient."""
    ids: list[str] = []
    for packet in iter_packets(data):
        if packet.tag == TAG_PKESK:
            if len(packet.body) < 10 or packet.body[0] != 3:
                raise PacketError("unsupported encrypted session key packet (expected version 3)")
            ids.append(packet.body[1:9].hex().upper())
    return ids


def key_packet_tags(data: bytes) -> list[int]:
    return [p.tag for p in iter_packets(data)]


def describe_tag(tag: int) -> str:
    names = {
        TAG_PKESK: "an encrypted session key",
        TAG_SIGNATURE: "a signature",
        TAG_ONE_PASS_SIGNATURE: "a one-pass signature (a signed message)",
        TAG_SECRET_KEY: "a SECRET key",
        TAG_PUBLIC_KEY: "a public key",
        TAG_SECRET_SUBKEY: "a SECRET subkey",
        TAG_COMPRESSED: "compressed data (a signed or encrypted message)",
        TAG_LITERAL: "literal data (a signed message with its text inside)",
        TAG_USER_ID: "a user id",
        TAG_PUBLIC_SUBKEY: "a public subkey",
        18: "encrypted data",
    }
    return names.get(tag, f"packet type {tag}")


def micalg_for(hash_algorithm: int) -> str:
    """The RFC 3156 ``micalg`` parameter for a hash algorithm id."""
    name = HASH_NAMES.get(hash_algorithm)
    if name is None:
        raise PacketError(f"unknown hash algorithm #{hash_algorithm}")
    return "pgp-" + name.lower()
