"""SET KEY, COMMIT, REVEAL (sealed orders) and the fair-assignment commands."""

from __future__ import annotations

import pytest

from judge.commands.commitments import Commit, CommitSha256, Reveal, RevealNumber, SetKey
from judge.commands.fair import (
    BlindFactor,
    BlindList,
    BlindReceipt,
    BlindedMessage,
    EscrowDeposit,
    EscrowPeel,
    SetPreference,
    ShuffledList,
)
from judge.commands.settings import SetWait
from mailcmds import Attachment, OrderLines
from judge.commands.registry import parse_text
from judge.commands.fair import parse_preference

KEY_BLOCK = """\
-----BEGIN PGP PUBLIC KEY BLOCK-----

mDMEZz//AAAWCSsGAQQB2kcPAQEHQFakeKeyDataOnlyForParsing0123456789
//ThisLineStartsWithSlashesAndMustSurvive+abc==
=AbCd
-----END PGP PUBLIC KEY BLOCK-----"""

SIGNATURE_BLOCK = """\
-----BEGIN PGP SIGNATURE-----

iHUEABYKAB0WIQRfakeSignatureData//0123456789abcdefABCDEF
=XyZw
-----END PGP SIGNATURE-----"""

ORDERS_FILE = b"Here are the orders for France in S1901M\r\n\r\nF Bre - MAO\r\nA Mar - Spa\r\nA Par - Bur\r\n"


def test_set_key_with_inline_block_keeps_it_byte_for_byte():
    parsed = parse_text(f"SIGNON Fg pw\nSET KEY\n{KEY_BLOCK}\nSET WAIT")
    assert parsed.errors == ()
    key = parsed.of_type(SetKey)[0]
    assert key.key == KEY_BLOCK + "\n" and key.attachment is None
    assert key.key_data == (KEY_BLOCK + "\n").encode()
    assert parsed.of_type(SetWait) and not parsed.of_type(OrderLines)


def test_set_key_from_an_attachment():
    attachment = Attachment("me.asc", "application/pgp-keys", (KEY_BLOCK + "\n").encode())
    parsed = parse_text("SIGNON Fg pw\nSET KEY", [attachment])
    assert parsed.of_type(SetKey)[0].attachment == attachment


def test_set_key_without_a_key_says_how_to_export_one():
    parsed = parse_text("SIGNON Fg pw\nSET KEY")
    assert "gpg --armor --export" in parsed.errors[0].message


def test_commit_inline_and_attached_and_sha256():
    inline = parse_text(f"SIGNON Fg pw\nCOMMIT\n\n{SIGNATURE_BLOCK}").of_type(Commit)[0]
    assert inline.signature == SIGNATURE_BLOCK + "\n"
    signature = Attachment("orders.txt.asc", "application/pgp-signature", (SIGNATURE_BLOCK + "\n").encode())
    other = Attachment("photo.png", "image/png", b"\x89PNG")
    attached = parse_text("SIGNON Fg pw\nCOMMIT", [other, signature]).of_type(Commit)[0]
    assert attached.attachment == signature and attached.signature_data == signature.data
    digest = "AB" * 32
    sha = parse_text(f"SIGNON Fg pw\nCOMMIT SHA256 {digest}").of_type(CommitSha256)[0]
    assert sha.digest == digest.lower()


def test_binary_detached_signature_attachment_is_accepted():
    binary = Attachment("orders.txt.sig", "application/octet-stream", b"\x88\x75\x04\x00\x16\x0a")
    assert parse_text("SIGNON Fg pw\nCOMMIT", [binary]).of_type(Commit)[0].attachment == binary


def test_two_commits_take_two_attachments_in_order():
    first = Attachment("a.asc", "application/pgp-signature", b"-----BEGIN PGP SIGNATURE-----\n1")
    second = Attachment("b.asc", "application/pgp-signature", b"-----BEGIN PGP SIGNATURE-----\n2")
    commits = parse_text("SIGNON Fg pw\nCOMMIT\nCOMMIT", [first, second]).of_type(Commit)
    assert [c.attachment for c in commits] == [first, second]


@pytest.mark.parametrize("line, fragment", [
    ("COMMIT", "gpg --armor --detach-sign"),
    ("COMMIT SHA256 1234", "64 hexadecimal digits"),
    ("COMMIT NOW", "cannot follow COMMIT"),
])
def test_commit_errors(line, fragment):
    parsed = parse_text(f"SIGNON Fg pw\n{line}")
    assert fragment in parsed.errors[0].message


def test_a_stray_armored_block_is_an_error_and_not_orders():
    parsed = parse_text(f"SIGNON Fg pw\n{SIGNATURE_BLOCK}\nA PAR H")
    assert "read only below SET KEY, COMMIT" in parsed.errors[0].message
    assert parsed.of_type(OrderLines)[0].texts == ("A PAR H",)
    assert [l.number for l in parsed.unprocessed] == [2, 4, 5, 6]  # the blank line is not listed


def test_reveal_inline_text_and_attachment():
    parsed = parse_text("SIGNON Fg pw\nREVEAL\n\nF Bre - MAO   \nA Mar - Spa // not a comment here\n\nENDREVEAL\nSET WAIT")
    reveal = parsed.of_type(Reveal)[0]
    assert reveal.text == "F Bre - MAO   \nA Mar - Spa // not a comment here\n"
    assert reveal.data() == reveal.text.encode()
    assert [l.number for l in reveal.lines] == [3, 4, 5, 6]
    assert parsed.of_type(SetWait) and not parsed.of_type(OrderLines)
    orders = Attachment("f_s1901m.txt", "text/plain", ORDERS_FILE)
    signature = Attachment("f_s1901m.txt.asc", "application/pgp-signature", b"-----BEGIN PGP SIGNATURE-----\n")
    attached = parse_text("SIGNON Fg pw\nREVEAL", [signature, orders]).of_type(Reveal)[0]
    assert attached.attachment == orders and attached.data() == ORDERS_FILE  # byte-exact, CRLF kept


def test_reveal_ends_at_signoff_and_needs_something():
    parsed = parse_text("SIGNON Fg pw\nREVEAL\nA PAR H\nSIGNOFF")
    assert parsed.of_type(Reveal)[0].text == "A PAR H\n"
    assert "REVEAL needs your orders" in parse_text("SIGNON Fg pw\nREVEAL").errors[0].message
    assert "cannot follow REVEAL" in parse_text("SIGNON Fg pw\nREVEAL -3").errors[0].message


def test_reveal_number():
    assert parse_text("SIGNON Fg pw\nREVEAL 5").of_type(RevealNumber)[0].number == 5


@pytest.mark.parametrize("spec, tiers, reserve", [
    ("AE(GI)R", (("A",), ("E",), ("G", "I"), ("R",)), False),
    ("E[FGR][TAI]", (("E",), ("F", "G", "R"), ("T", "A", "I")), False),
    ("(EFG)TI(AR)", (("E", "F", "G"), ("T",), ("I",), ("A", "R")), False),
    ("*", (), False),
    ("", (), False),
    ("%REG", (("R",), ("E",), ("G",)), True),
    ("a e (g i) r", (("A",), ("E",), ("G", "I"), ("R",)), False),
])
def test_preferences(spec, tiers, reserve):
    command = parse_text(f"SIGNON Fg pw\nSET PREFERENCE {spec}").of_type(SetPreference)[0]
    assert (command.tiers, command.reserve) == (tiers, reserve)


@pytest.mark.parametrize("spec, fragment", [
    ("A(EG", "unclosed"),
    ("AE)", "unmatched"),
    ("A(E[G])", "nests"),
    ("A()", "empty brackets"),
    ("AEA", "names A twice"),
    ("A1", "not a power initial"),
    ("(AE]", "unmatched"),
])
def test_preference_errors(spec, fragment):
    parsed = parse_text(f"SIGNON Fg pw\nSET PREFERENCE {spec}")
    assert fragment in parsed.errors[0].message and "SET PREFERENCE AE(GI)R" in parsed.errors[0].message
    with pytest.raises(ValueError):
        parse_preference(spec)


def test_escrow_and_peel():
    block = "-----BEGIN PGP MESSAGE-----\n\nhQEMA1234==\n=abcd\n-----END PGP MESSAGE-----"
    parsed = parse_text(f"SIGNON Fg pw\nESCROW\n{block}\nPEEL\n{block}")
    deposit, peel = parsed.commands[1:]
    assert isinstance(deposit, EscrowDeposit) and deposit.message == block + "\n"
    assert isinstance(peel, EscrowPeel) and peel.message == block + "\n"
    assert "armored PGP MESSAGE" in parse_text("SIGNON Fg pw\nPEEL").errors[0].message


def test_blinded_assignment_messages_keep_leading_zeros():
    parsed = parse_text(
        "BLINDED g1 07554237\nBLIND g1 00446534\nSHUFFLED g1 98106841 21906998\n  44560464, 00000001\n"
        "BLINDS g1\n87446534\nRECEIVED g1"
    )
    assert parsed.errors == ()
    blinded, factor, shuffled, blinds, receipt = parsed.commands
    assert blinded == BlindedMessage("g1", "07554237", source=blinded.source)
    assert isinstance(factor, BlindFactor) and factor.value == "00446534"
    assert isinstance(shuffled, ShuffledList) and shuffled.values == ("98106841", "21906998", "44560464", "00000001")
    assert isinstance(blinds, BlindList) and blinds.values == ("87446534",)
    assert isinstance(receipt, BlindReceipt) and receipt.game == "g1"


def test_blinded_assignment_errors():
    assert "not a number" in parse_text("BLINDED g1 12a4").errors[0].message
    assert "at least one number" in parse_text("SHUFFLED g1").errors[0].message
    assert "needs the game and the number" in parse_text("BLIND g1").errors[0].message


def test_reveal_naming_whose_commitment_it_answers():
    """``REVEAL who@game`` (issue 12.9): no SIGNON needed; the target is kept lower-cased."""
    inline = parse_text("REVEAL France@G1\nA PAR H\nENDREVEAL").of_type(Reveal)[0]
    assert inline.target == "france@g1" and inline.text == "A PAR H\n"
    number = parse_text("REVEAL p3@g1 4").of_type(RevealNumber)[0]
    assert (number.target, number.number) == ("p3@g1", 4)
    assert parse_text("SIGNON Fg pw\nREVEAL\nA PAR H").of_type(Reveal)[0].target is None
    assert "cannot follow REVEAL" in parse_text("REVEAL p3@g1 x y").errors[0].message
