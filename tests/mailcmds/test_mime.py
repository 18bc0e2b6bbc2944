"""Mail as clients send it, and malformed MIME: always a ParsedMail, never an exception."""

from __future__ import annotations

import base64
import email
import email.policy
from email.message import EmailMessage

import pytest

from judge.commands.commitments import Commit, Reveal, SetKey
from judge.commands.press import Press
from judge.commands.settings import SetWait
from judge.commands.signon import Signon
from mailcmds import Attachment, OrderLines, ParsedMail
from judge.commands.registry import parse_mail
from mailcmds.htmltext import html_to_text


def from_bytes(raw: bytes) -> ParsedMail:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    return parse_mail(message)


def head(content_type: str = "text/plain; charset=utf-8", extra: str = "") -> bytes:
    return (f"From: Player One <P1@Example.org>\nTo: judge@localhost\nSubject: orders\n"
            f"MIME-Version: 1.0\nContent-Type: {content_type}\n{extra}\n").encode()


def order_texts(parsed: ParsedMail) -> list[str]:
    return [t for c in parsed.of_type(OrderLines) for t in c.texts]


# --- ordinary clients ----------------------------------------------------------------------

def test_plain_mail_sender_subject_and_line_numbers():
    parsed = from_bytes(head(extra="Reply-To: other@example.org\n") + b"SIGNON Fg pw\r\nA PAR - BUR\r\n")
    assert (parsed.sender, parsed.sender_name, parsed.reply_to) == ("p1@example.org", "Player One", "other@example.org")
    assert parsed.subject == "orders"
    assert [c.source.number for c in parsed.commands] == [1, 2]
    assert order_texts(parsed) == ["A PAR - BUR"]


def test_multipart_alternative_reads_the_plain_part_only():
    message = EmailMessage()
    message["From"] = "p@example.org"
    message.set_content("SIGNON Fg pw\nA PAR H\n")
    message.add_alternative("<p>SIGNON Fg pw</p><p>A MAR H</p>", subtype="html")
    parsed = parse_mail(message)
    assert order_texts(parsed) == ["A PAR H"] and parsed.attachments == ()


def test_html_only_is_converted_and_quoted_html_ignored():
    html = (
        "<html><head><style>p {color: red}</style></head><body>"
        "<div>SIGNON Fg pw</div><div>A&nbsp;PAR&nbsp;-&nbsp;BUR<br>F BRE &ndash; MAO</div>"
        "<div class=gmail_quote>On Mon, 1 Jan 2025, Judge &lt;judge@x&gt; wrote:<br>"
        "<blockquote><div>A MUN - BER</div></blockquote></div></body></html>"
    )
    parsed = from_bytes(head("text/html; charset=utf-8") + html.encode())
    assert order_texts(parsed) == ["A PAR - BUR", "F BRE – MAO"]
    assert parsed.errors == ()
    assert any("HTML" in n for n in parsed.notices)


def test_html_to_text_keeps_pre_and_breaks_blocks():
    text = html_to_text("<p>one</p><pre>  a  b\n c</pre><ul><li>x</li><li>y</li></ul><script>no()</script>")
    assert text.split("\n") == ["one", "  a  b", " c", "x", "y"]


def test_quoted_printable_non_ascii():
    body = "SIGNON Fg pw\nPRESS TO E\nBonjour, café à la crème =\nlong line\nENDPRESS\n"
    raw = head("text/plain; charset=iso-8859-1", "Content-Transfer-Encoding: quoted-printable\n")
    qp = "SIGNON Fg pw\nPRESS TO E\nBonjour, caf=E9 =E0 la cr=E8me =3D=\n long line\nENDPRESS\n"
    parsed = from_bytes(raw + qp.encode("ascii"))
    assert parsed.of_type(Press)[0].body == "Bonjour, café à la crème = long line\n"
    assert parsed.body_charset == "iso-8859-1"
    assert body  # the readable form of the test input


def test_base64_utf8_body():
    payload = base64.encodebytes("SIGNON Fg pw\nPRESS\nЗдравствуйте 👋\nENDPRESS\n".encode())
    parsed = from_bytes(head(extra="Content-Transfer-Encoding: base64\n") + payload)
    assert parsed.of_type(Press)[0].body == "Здравствуйте 👋\n"


def test_windows_and_old_mac_line_endings():
    parsed = from_bytes(head() + b"SIGNON Fg pw\r\nA PAR H\rA MAR H\r\n")
    assert order_texts(parsed) == ["A PAR H", "A MAR H"]
    assert [l.number for l in parsed.of_type(OrderLines)[0].lines] == [2, 3]


def test_format_flowed_lines_are_joined():
    raw = head("text/plain; charset=utf-8; format=flowed")
    parsed = from_bytes(raw + b"SIGNON Fg pw\nPRESS TO E\nThis is a long \nparagraph.\n>quoted \n>more\nENDPRESS\n")
    assert parsed.of_type(Press)[0].body == "This is a long paragraph.\n"


# --- replies, signatures, forwarded mail ---------------------------------------------------------

def test_quoted_reply_attribution_and_signature_are_ignored():
    body = (
        "SIGNON Fg pw\nA PAR H\n\nOn Tue, Jan 7, 2025 at 9:00 AM Judge <judge@x> wrote:\n\n"
        "> SIGNON Gg other\n> A BER H\n>\nSET WAIT\n-- \nPlayer One\nJOIN x y\n"
    )
    parsed = from_bytes(head() + body.encode())
    assert parsed.errors == ()
    assert [type(c) for c in parsed.commands] == [Signon, OrderLines, SetWait]


def test_outlook_original_message_separator_ends_the_text():
    body = "SIGNON Fg pw\nA PAR H\n\n-----Original Message-----\nFrom: judge\nSIGNON Gg x\n"
    parsed = from_bytes(head() + body.encode())
    assert len(parsed.commands) == 2 and parsed.errors == ()
    body = "SIGNON Fg pw\nA PAR H\n________________________________\nFrom: judge\nA MUN H\n"
    assert order_texts(from_bytes(head() + body.encode())) == ["A PAR H"]


def test_forwarded_mail_is_not_read_as_commands():
    inner = EmailMessage()
    inner["From"] = "someone@example.org"
    inner.set_content("SIGNON Gg stolen\nA BER H\n")
    outer = EmailMessage()
    outer["From"] = "p@example.org"
    outer.set_content("SIGNON Fg pw\nA PAR H\n")
    outer.add_attachment(inner)
    parsed = parse_mail(outer)
    assert order_texts(parsed) == ["A PAR H"]
    assert len(parsed.attachments) == 1 and parsed.attachments[0].content_type == "message/rfc822"


def test_subject_command_is_line_zero_but_replies_are_not_read():
    message = EmailMessage()
    message["From"] = "p@example.org"
    message["Subject"] = "SIGNON Fg pw"
    message.set_content("A PAR H\n")
    parsed = parse_mail(message)
    assert parsed.commands[0].source.number == 0 and order_texts(parsed) == ["A PAR H"]
    message.replace_header("Subject", "Re: SIGNON Fg pw")
    assert parse_mail(message).commands == ()


def test_clearsigned_mail_commands_are_read_and_the_block_kept():
    body = (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nSIGNON Fg pw\n- -dash escaped order?\nA PAR H\n"
        "-----BEGIN PGP SIGNATURE-----\n\niHUEARYKAB0=\n=abcd\n-----END PGP SIGNATURE-----\n"
    )
    parsed = from_bytes(head() + body.encode())
    assert isinstance(parsed.commands[0], Signon)
    assert order_texts(parsed) == ["-dash escaped order?", "A PAR H"]
    assert parsed.armored[0].kind == "PGP SIGNED MESSAGE" and parsed.armored[0].text == body


# --- attachments ----------------------------------------------------------------------------

def test_attachments_keep_exact_bytes_and_serve_commit_and_reveal():
    orders = b"F Bre - MAO\r\nA Mar - Spa  \r\nA Par - Bur\r\n"
    signature = b"-----BEGIN PGP SIGNATURE-----\n\niHUE\n=ab\n-----END PGP SIGNATURE-----\n"
    message = EmailMessage()
    message["From"] = "p@example.org"
    message.set_content("SIGNON Fg pw\nCOMMIT\nREVEAL\n")
    message.add_attachment(signature, maintype="application", subtype="pgp-signature", filename="orders.txt.asc")
    message.add_attachment(orders, maintype="text", subtype="plain", filename="orders.txt")
    parsed = from_bytes(message.as_bytes())
    assert parsed.of_type(Commit)[0].attachment.data == signature
    reveal = parsed.of_type(Reveal)[0]
    assert reveal.attachment == Attachment("orders.txt", "text/plain", orders)
    assert reveal.data() == orders


def test_attachment_without_charset_and_nested_multiparts():
    raw = (
        b"From: p@example.org\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=OUT\n\n"
        b"--OUT\nContent-Type: multipart/alternative; boundary=ALT\n\n"
        b"--ALT\nContent-Type: text/plain\n\nSIGNON Fg pw\nREVEAL\n"
        b"--ALT\nContent-Type: text/html\n\n<p>SIGNON Fg pw</p>\n--ALT--\n"
        b"--OUT\nContent-Type: text/plain\nContent-Disposition: attachment; filename=\"f.txt\"\n"
        b"Content-Transfer-Encoding: 8bit\n\nA Par - Bur \xe9\n--OUT--\n"
    )
    parsed = from_bytes(raw)
    reveal = parsed.of_type(Reveal)[0]
    assert reveal.attachment.data == b"A Par - Bur \xe9"  # the newline before a boundary is the boundary's
    assert [a.filename for a in parsed.attachments] == ["f.txt"]


def test_pgp_mime_signed_mail_text_is_read_and_signature_kept():
    raw = (
        b"From: p@example.org\nMIME-Version: 1.0\nContent-Type: multipart/signed; micalg=pgp-sha256;"
        b" protocol=\"application/pgp-signature\"; boundary=S\n\n"
        b"--S\nContent-Type: text/plain; charset=utf-8\n\nSIGNON Fg pw\nSET WAIT\n"
        b"--S\nContent-Type: application/pgp-signature; name=signature.asc\n\n"
        b"-----BEGIN PGP SIGNATURE-----\n\niHUE\n-----END PGP SIGNATURE-----\n--S--\n"
    )
    parsed = from_bytes(raw)
    assert parsed.of_type(SetWait) and parsed.errors == ()
    assert parsed.attachments[0].content_type == "application/pgp-signature"


# --- malformed MIME: never an exception --------------------------------------------------------

MALFORMED = {
    "missing boundary": b"From: p@example.org\nContent-Type: multipart/mixed\n\nSIGNON Fg pw\nA PAR H\n",
    "boundary never used": b"From: p@example.org\nContent-Type: multipart/mixed; boundary=X\n\nSIGNON Fg pw\n",
    "wrong charset label": head("text/plain; charset=x-no-such-charset") + "SIGNON Fg pw\nPRESS\nçà\nENDPRESS\n".encode(),
    "ascii label on utf-8": head("text/plain; charset=us-ascii") + "SIGNON Fg pw\nPRESS\nnaïve\n".encode(),
    "8-bit without charset": head("text/plain", "Content-Transfer-Encoding: 8bit\n") + b"SIGNON Fg pw\nPRESS\ncaf\xe9\n",
    "broken base64": head(extra="Content-Transfer-Encoding: base64\n") + b"U0lHTk9OIEZnIHB3Cg=!!*\n@@@",
    "empty body": head(),
    "no headers at all": b"\n\n",
    "garbage headers": b"From: <<<@@@>>>\nSubject: =?utf-8?q?broken\nContent-Type: ;;;\n\nSIGNON Fg pw\n",
    "binary top level": b"From: p@example.org\nContent-Type: application/octet-stream\n\n\x00\x01\x02",
    "nested without end": b"From: p@example.org\nContent-Type: multipart/mixed; boundary=A\n\n--A\n"
                          b"Content-Type: multipart/alternative; boundary=B\n\n--B\nContent-Type: text/plain\n\nSIGNON Fg pw\n",
    "huge line": head() + b"SIGNON Fg pw\n" + b"A" * 2_000_000 + b"\n",
    "null bytes": head() + b"SIGNON Fg pw\n\x00\x00A PAR H\x00\n",
    "html only broken": head("text/html") + b"<div><blockquote><p>SIGNON x y</b></i><div><<<>>>&#xZZZ;",
    "unterminated armor": head() + b"SIGNON Fg pw\nSET KEY\n-----BEGIN PGP PUBLIC KEY BLOCK-----\nabc\n",
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_mime_never_raises(name):
    parsed = from_bytes(MALFORMED[name])
    assert isinstance(parsed, ParsedMail)


def test_malformed_mime_still_yields_what_can_be_read():
    assert order_texts(from_bytes(MALFORMED["missing boundary"])) == ["A PAR H"]
    assert any("broken" in n for n in from_bytes(MALFORMED["missing boundary"]).notices)
    wrong = from_bytes(MALFORMED["wrong charset label"])
    assert wrong.of_type(Press)[0].body == "çà\n" and any("unknown" in n for n in wrong.notices)
    assert from_bytes(MALFORMED["ascii label on utf-8"]).of_type(Press)[0].body == "naïve\n"
    assert from_bytes(MALFORMED["8-bit without charset"]).of_type(Press)[0].body == "café\n"
    assert isinstance(from_bytes(MALFORMED["broken base64"]).commands[0], Signon)
    empty = from_bytes(MALFORMED["empty body"])
    assert empty.commands == () and empty.errors == ()
    assert isinstance(from_bytes(MALFORMED["nested without end"]).commands[0], Signon)
    assert from_bytes(MALFORMED["binary top level"]).attachments[0].data == b"\x00\x01\x02"
    unterminated = from_bytes(MALFORMED["unterminated armor"])
    assert "SET KEY needs your public key" in unterminated.errors[0].message


def test_huge_line_is_refused_with_a_short_quote():
    parsed = from_bytes(MALFORMED["huge line"])
    assert "at most 1000" in parsed.errors[0].message and len(parsed.errors[0].text) <= 200


@pytest.mark.parametrize("subject, kinds", [
    ("SIGNON Fg pw", ["Signon", "OrderLines"]),
    ("help", ["Help"]),
    ("LIST g1", ["ListGames"]),
    ("Help with my orders", []),
    ("Resign", []),
    ("SIGNOFF", []),
    ("PRESS TO E", []),
    ("Re: JOIN g1 pw", []),
    ("JOIN", []),
])
def test_only_a_good_signon_join_or_information_subject_is_read(subject, kinds):
    message = EmailMessage()
    message["From"] = "p@example.org"
    message["Subject"] = subject
    message.set_content("A PAR H\n")
    parsed = parse_mail(message)
    assert [type(c).__name__ for c in parsed.commands] == kinds
    assert all(e.line_no != 0 for e in parsed.errors)


def test_set_key_inside_a_clearsigned_mail():
    body = (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nSIGNON Fg pw\nSET KEY\n"
        "- -----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZz\n=AbCd\n- -----END PGP PUBLIC KEY BLOCK-----\nSET WAIT\n"
        "-----BEGIN PGP SIGNATURE-----\n\niHUE\n-----END PGP SIGNATURE-----\n"
    )
    parsed = from_bytes(head() + body.encode())
    assert parsed.errors == ()
    key = parsed.of_type(SetKey)[0]
    assert key.key == "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZz\n=AbCd\n-----END PGP PUBLIC KEY BLOCK-----\n"
    assert parsed.of_type(SetWait)
