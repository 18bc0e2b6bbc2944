"""Armor and packet parsing, without gpg (the reference's own PGP 2.6 signature is one input)."""

from __future__ import annotations

import pytest

from judge.crypto.armor import ArmorError, dearmor, enarmor
from judge.crypto.packets import PacketError, detached_signatures, micalg_for, recipient_key_ids

# The signed hash printed in shared/reference/002 (pgp -sba, PGP 2.6.3i).
REFERENCE_SIGNATURE = """-----BEGIN PGP MESSAGE-----
Version: 2.6.3i

iQEVAwUBNaSBjN0PDznLLHdpAQFSEwf/XWFv/7yNx0d8O8sZLEdM06CP+dydJPu/
E1/k+o14Y2D7ydMTWxgsqmkG6pkNtgvoktiXOjYXrxtS1cH9sVb1cm1FHHAqIDrL
xyL7dqVr6s7sZx/36BSXnIS/KAgEkcicy3rZRat/13ODIDgcepsgY62r7+dsvkqb
FDWzz1lMrEmv8wPdh/tb6we+Fvmg9YzsqVerFhXnzBCMYMXrTRettywuDxBflnzo
CN9YACdGstjv6kQpYtaF2Z6DnHVjHCu0/MIJ/1pgomX0na+5zthiY2pH8EsZa3kS
fHIlJvia86KL9446AZ8X2hehs24ZKqDNc+TpxwRpmv5hS2ibFnYQJg==
=4RKz
-----END PGP MESSAGE-----
"""


def test_reference_signature_reads_as_a_v3_text_signature_with_md5() -> None:
    block = dearmor(REFERENCE_SIGNATURE)
    [signature] = detached_signatures(block.data)
    assert (signature.version, signature.signature_type, signature.hash_name) == (3, 1, "MD5")
    assert signature.issuer_key_id == "DD0F0F39CB2C7769"


def test_armor_survives_crlf_and_indentation() -> None:
    mangled = "\r\n".join("  " + line for line in REFERENCE_SIGNATURE.splitlines())
    assert dearmor(mangled).data == dearmor(REFERENCE_SIGNATURE).data


def test_enarmor_round_trip() -> None:
    data = bytes(range(256)) * 3
    assert dearmor(enarmor(data, "MESSAGE"), expect=("MESSAGE",)).data == data


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.replace("iQEVAwUB", "iQEVAwUC"), "checksum"),
        (lambda t: t.replace("-----END PGP MESSAGE-----\n", ""), "END PGP MESSAGE"),
        (lambda t: t.replace("fHIlJvia86", "fHIl Jvia86"), "not base64"),
        (lambda t: "just some text\n", "no OpenPGP armored block"),
        (lambda t: t + t, "found 2 armored blocks"),
        (lambda t: t.replace("END PGP MESSAGE", "END PGP SIGNATURE"), "closed as"),
    ],
)
def test_malformed_armor_is_refused_with_a_reason(change, message) -> None:
    with pytest.raises(ArmorError, match=message):
        dearmor(change(REFERENCE_SIGNATURE))


def test_truncated_packets_are_refused() -> None:
    data = dearmor(REFERENCE_SIGNATURE).data
    with pytest.raises(PacketError, match="truncated"):
        detached_signatures(data[:40])


def test_non_packet_bytes_are_refused() -> None:
    with pytest.raises(PacketError, match="not an OpenPGP packet"):
        detached_signatures(b"F Bre - MAO\n")


def test_a_literal_data_packet_is_not_a_detached_signature() -> None:
    literal = bytes([0xCB, 0x08]) + b"b\x00\x00\x00\x00\x00hi"
    with pytest.raises(PacketError, match="literal data"):
        detached_signatures(literal)


def test_recipient_key_ids_and_micalg() -> None:
    # A version 3 public-key encrypted session key packet for key id 0102030405060708.
    body = bytes([3]) + bytes(range(1, 9)) + bytes([18]) + b"\x00" * 4
    packet = bytes([0xC1, len(body)]) + body
    assert recipient_key_ids(packet) == ["0102030405060708"]
    assert micalg_for(8) == "pgp-sha256"
    assert micalg_for(10) == "pgp-sha512"
