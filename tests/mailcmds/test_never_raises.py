"""Property tests: whatever the text or the bytes, parsing gives a ParsedMail."""

from __future__ import annotations

import email
import email.policy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mailcmds import MASK, ParsedMail
from judge.commands.registry import parse_mail, parse_text
from judge.commands.registry import VERB_TABLE

# Lines built from command words, orders, armor and press terminators find more paths
# than uniform text does.
WORDS = sorted({w for verb in VERB_TABLE.verbs for w in verb.words} | {
    "TO", "ALL", "BUT", "GREY", "ENDPRESS", "ENDREVEAL", "SHA256", "A", "F", "PAR", "-", "BUR", "fr@g", "Fg",
    "2025-01-14", "14", "Jan", "20:00", "MOVE", "3D", "(AE)", "[FG]", "%", "*", "//", ">", "-- ",
    "-----BEGIN PGP SIGNATURE-----", "-----END PGP SIGNATURE-----", "-----BEGIN PGP PUBLIC KEY BLOCK-----",
    "-----END PGP PUBLIC KEY BLOCK-----", "-----BEGIN PGP SIGNED MESSAGE-----", "pw", "0123",
})
line = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join),
    st.text(max_size=40),
)
mail_text = st.lists(line, max_size=25).map("\n".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mail_text)
def test_parse_text_never_raises(text):
    parsed = parse_text(text)
    assert isinstance(parsed, ParsedMail)
    for error in parsed.errors:
        assert error.message and len(error.text) <= 200


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600), st.sampled_from([
    b"", b"Content-Type: multipart/mixed; boundary=B\n", b"Content-Transfer-Encoding: base64\n",
    b"Content-Type: text/html; charset=x-bad\n", b"Content-Transfer-Encoding: quoted-printable\n",
]))
def test_parse_mail_never_raises_on_arbitrary_bytes(body, headers):
    message = email.message_from_bytes(b"From: p@example.org\n" + headers + b"\n" + body, policy=email.policy.default)
    assert isinstance(parse_mail(message), ParsedMail)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126, blacklist_characters="/"), min_size=3, max_size=12))
def test_passwords_never_appear_in_errors(suffix):
    password = "zZ" + suffix  # never equal to one of the fixed words of the lines below
    bad_lines = [
        f"SIGNON Fg {password} extra", f"JOIN g {password} x y", f"SET PASSWORD {password} more",
        f"SIGNIN Fg {password}", f"SET PASWORD {password}", f"TAKEOVER fr@g {password} x y",
        f"CREATE g {password} standard", f"OBSERVE g {password}",
    ]
    parsed = parse_text("\n".join(bad_lines))
    assert len(parsed.errors) == len(bad_lines)
    for error in parsed.errors:
        assert password not in error.message and password not in error.text
    assert all(MASK in e.text for e in parsed.errors)
