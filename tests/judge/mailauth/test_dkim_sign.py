"""DKIM signing: two signatures that dkimpy and OpenDKIM accept, and that break when the
mail is changed on the way."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import dkim
import pytest

from judge.config import JudgeSettings
from judge.mailauth import dkim_sign
from judge.mailauth.dkim_keys import ED25519, RSA, DkimKey, new_key
from judge.mailauth.dkim_sign import SigningError, signer_for
from judge.mailio.outgoing import OutgoingMail, message_bytes
from tests.judge.mailauth.dkim_checks import dkimpy_verdicts, only_signature, opendkim_passes

DOMAIN = "example.org"
KEYS = (new_key("judge-ed25519", ED25519), new_key("judge-rsa", RSA))
SIGNER = signer_for(DOMAIN, KEYS)
JUDGE = JudgeSettings(address="judge@example.org", domain="example.org")
NOW = datetime(2026, 11, 28, 18, 0, tzinfo=timezone.utc)


def a_reply(**extra: object) -> bytes:
    mail = OutgoingMail(recipients=("anna@example.net",), subject="Re: orders", body="Orders accepted.\nA PAR - BUR\n",
                        in_reply_to="q1@example.net", references=("q0@example.net",), **extra)  # type: ignore[arg-type]
    return message_bytes(mail, JUDGE, NOW)


def header_of(signed: bytes, algorithm: str) -> bytes:
    [field] = [f for f in re.split(rb"\n(?![ \t])", signed.split(b"\n\n")[0]) if f"a={algorithm};".encode() in f]
    return field


def test_two_signatures_rsa_on_top_both_verify() -> None:
    signed = SIGNER.sign(a_reply())
    assert signed.startswith(b"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org;")
    assert dkimpy_verdicts(signed, DOMAIN, KEYS) == [True, True]
    rsa = header_of(signed, "rsa-sha256").replace(b"\n ", b" ")
    assert b"s=judge-rsa;" in rsa and b" l=" not in rsa
    assert b"s=judge-ed25519;" in header_of(signed, "ed25519-sha256")
    signed_names = re.search(rb"h=([^;]*);", rsa).group(1).replace(b" ", b"").split(b":")  # type: ignore[union-attr]
    assert signed_names.count(b"from") == 2
    assert {b"to", b"subject", b"date", b"message-id", b"in-reply-to", b"references", b"list-id",
            b"list-unsubscribe", b"list-unsubscribe-post"} <= set(signed_names)


def test_line_ends_kept_and_the_crlf_form_is_what_was_signed() -> None:
    raw = a_reply()
    signed = SIGNER.sign(raw)
    assert b"\r" not in signed and signed.endswith(raw)
    wire = SIGNER.sign(raw.replace(b"\n", b"\r\n"))
    assert wire.count(b"\r\n") == wire.count(b"\n")
    assert dkimpy_verdicts(wire, DOMAIN, KEYS) == [True, True]


def test_every_list_header_is_signed() -> None:
    raw = a_reply(headers=(("List-Id", "Diplomacy game g1 <g1.example.org>"), ("List-Archive", "<https://x.org/a>"),
                           ("List-Custom-Thing", "<https://x.org/c>")))
    signed = SIGNER.sign(raw)
    names = header_of(signed, "rsa-sha256").replace(b"\n ", b" ").lower()
    assert b"list-custom-thing" in names and b"list-archive" in names
    changed = signed.replace(b"List-Custom-Thing: <https://x.org/c>", b"List-Custom-Thing: <https://evil.org/c>")
    assert dkimpy_verdicts(changed, DOMAIN, KEYS) == [False, False]


@pytest.mark.parametrize("tamper", [
    lambda m: m.replace(b"A PAR - BUR", b"A PAR - PIC"),
    lambda m: m.replace(b"Subject: Re: orders", b"Subject: Re: orderz"),
    lambda m: b"From: Mallory <judge@example.org>\n" + m,  # a second From: From is signed twice
    lambda m: m.replace(b"\n\n", b"\nList-Unsubscribe: <https://evil.org/u>\n\n", 1),
], ids=["body", "subject", "added-from", "added-list-header"])
def test_tampering_breaks_both_signatures_for_dkimpy_and_opendkim(tamper, tmp_path) -> None:
    signed = SIGNER.sign(a_reply())
    changed = tamper(signed)
    assert dkimpy_verdicts(changed, DOMAIN, KEYS) == [False, False]
    for algorithm in ("rsa-sha256", "ed25519-sha256"):
        assert opendkim_passes(only_signature(signed, algorithm), DOMAIN, KEYS, tmp_path)
        assert not opendkim_passes(only_signature(changed, algorithm), DOMAIN, KEYS, tmp_path)


def test_relaxed_canonicalisation_survives_refolding_and_trailing_space() -> None:
    signed = SIGNER.sign(a_reply())
    relaxed = signed.replace(b"Subject: Re: orders", b"Subject:  Re:\n\torders").replace(b"A PAR - BUR\n", b"A PAR - BUR  \n")
    assert dkimpy_verdicts(relaxed, DOMAIN, KEYS) == [True, True]


TRICKY = [
    b"From: a@example.org\nTo: b@example.net\nSubject:  spaced   out \t\n\nbody  with \t runs  \n\n\n",
    b"From: a@example.org\nSubject: folded\n\tover\n  three lines\nTo: b@example.net\n\nx\n",
    b"From: a@example.org\nTo: b@example.net\n\n",  # an empty body
    b"From: a@example.org\nTo: b@example.net\n\n \t\n\n",  # a body of blanks only
    b"From: a@example.org\nTo: b@example.net\n\nno line end at the end",
    b"From: a@example.org\nFrom: second@example.org\nTo: b@example.net\nTo: c@example.net\n\nx\n",
    b"FROM: a@example.org\nSUBJECT:shouting\nList-Archive: <https://x.org/a>\nList-Zed: z\n\nx\n",
    b"From: a@example.org\nSubject: =?utf-8?q?caf=C3=A9?=\nX-Other: not signed\n\n" + "café\n".encode(),
]


@pytest.mark.parametrize("raw", TRICKY, ids=[f"message{i}" for i in range(len(TRICKY))])
def test_signatures_equal_dkimpys_own(raw: bytes, monkeypatch) -> None:
    """Both algorithms are deterministic and the tags are dkimpy's: for one message and
    second, dkimpy's signatures and ours must be the same bytes (canonical forms, the body
    hash and the signature), and each verifier must pass ours."""
    monkeypatch.setattr("time.time", lambda: 1795891598)
    ours = SIGNER.sign(raw)
    wire = raw.replace(b"\n", b"\r\n")
    message = dkim.DKIM(wire, linesep=b"\r\n")
    names = [n.encode() for n in dkim_sign.SIGNED_HEADERS] + sorted(
        {m.lower() for m in re.findall(rb"(?im)^(list-[a-z-]+)\s*:", raw)} - {n.encode() for n in dkim_sign.SIGNED_HEADERS})
    theirs = b"".join(message.sign(k.selector.encode(), DOMAIN.encode(), k.private_key.encode(),
                                   signature_algorithm=k.signature_algorithm.encode(),
                                   canonicalize=(b"relaxed", b"relaxed"), include_headers=names)
                      for k in SIGNER.keys)

    def tags(signed: bytes, algorithm: str) -> dict[bytes, bytes]:
        field = header_of(signed.replace(b"\r\n", b"\n"), algorithm).split(b":", 1)[1]
        return {k.strip(): re.sub(rb"\s+", b" ", v).strip() if k.strip() == b"h" else re.sub(rb"\s+", b"", v)
                for k, _, v in (t.partition(b"=") for t in field.split(b";"))}

    for algorithm in ("rsa-sha256", "ed25519-sha256"):
        assert tags(ours, algorithm) == tags(theirs + wire, algorithm)
    assert dkimpy_verdicts(ours, DOMAIN, KEYS) == [True, True]


def test_a_message_without_a_header_block_is_refused_with_the_line() -> None:
    with pytest.raises(SigningError, match="cannot sign the message: a header line is not a field: b'not a header'"):
        SIGNER.sign(b"not a header\nFrom: a@example.org\n\nx\n")


def test_an_unreadable_key_is_refused_by_name() -> None:
    with pytest.raises(SigningError, match="selector 'bad' is not a PEM private key"):
        signer_for(DOMAIN, (DkimKey("bad", RSA, "not a key", "x"),))
    with pytest.raises(SigningError, match="selector 'bad' is not an ed25519 seed"):
        signer_for(DOMAIN, (DkimKey("bad", ED25519, "bm90IGEga2V5", "x"),))
