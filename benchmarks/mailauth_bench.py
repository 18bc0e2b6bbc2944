"""Mail authentication benchmark: what DKIM signing and inbound verification cost per mail.

    python -m benchmarks.mailauth_bench [--mails 500]

Signing: a typical reply (judge/mailio/outgoing.py's bytes) signed by the judge's ``Signer``,
both signatures (rsa-sha256 2048 and ed25519-sha256), as the outbox sender does for every
mail.  Verification: a player's mail signed the same way, checked as the SMTP intake
does (``authentication_results``: every DKIM signature, SPF, DMARC) against a DNS server
on loopback holding the keys and the policy (the resolver's cache warm after the first
mail, as on a judge hearing from the same players).  Also shown, side by side: the same
two signatures made by dkimpy (its pure-Python rsa; judge.mailauth.dkim_sign makes them
itself), and the verification with dkimpy's pure-Python rsa check, which
judge.mailauth.rsa_openssl replaces by OpenSSL's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import datetime, timezone
from typing import Callable, Sequence

import dkim

from judge.config import JudgeSettings
from judge.mailauth import rsa_openssl
from judge.mailauth.dkim_keys import ED25519, RSA, new_key
from judge.mailauth.dkim_sign import SIGNED_HEADERS, signer_for
from judge.mailauth.verify import authentication_results, configure_resolver
from judge.mailio.outgoing import OutgoingMail, message_bytes


def per_mail_ms(action: Callable[[], object], count: int) -> dict[str, float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"median_ms": round(statistics.median(times), 3), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3),
            "mean_ms": round(statistics.fmean(times), 3)}


def run(mails: int) -> dict[str, object]:
    from tests.fixtures.dns_server import start_zone  # the tests' loopback DNS server

    keys = (new_key("judge-rsa", RSA), new_key("judge-ed25519", ED25519))
    judge = JudgeSettings(address="judge@example.org", domain="example.org")
    reply = message_bytes(OutgoingMail(recipients=("anna@players.test",), subject="Re: orders",
                                       body="Orders for S1901M:\n  A PAR - BUR\n  A MAR S A PAR - BUR\n  F BRE - MAO\n" * 3,
                                       in_reply_to="q1@players.test"), judge, datetime.now(timezone.utc))
    judge_signer = signer_for("example.org", keys)
    player_keys = (new_key("s1", RSA), new_key("s2", ED25519))
    inbound = signer_for("players.test", player_keys).sign(
        b"From: anna@players.test\nTo: judge@example.org\nSubject: orders\nMessage-ID: <q1@players.test>\n\n"
        b"SIGNON Fgame secret\nA PAR - BUR\nA MAR S A PAR - BUR\nF BRE - MAO\n")
    zone = start_zone()
    zone.txt["_dmarc.players.test"] = ["v=DMARC1; p=reject"]
    for key in player_keys:
        zone.txt[f"{key.selector}._domainkey.players.test"] = [key.txt_value()]
    configure_resolver(zone.server, 2.0)

    def verify() -> str:
        return authentication_results(inbound, authserv_id="example.org", ip="127.0.0.1",
                                      mail_from="anna@players.test", helo="mx.players.test", timeout=2.0)

    assert "dmarc=pass" in verify() and verify().count("dkim=pass") == 2
    signing = per_mail_ms(lambda: judge_signer.sign(reply), mails)
    verifying = per_mail_ms(verify, mails)
    def dkimpy_signs() -> bytes:
        message = dkim.DKIM(reply.replace(b"\n", b"\r\n"), linesep=b"\r\n")
        return b"".join(message.sign(k.selector.encode(), b"example.org", k.private_key.encode(),
                                     signature_algorithm=k.signature_algorithm.encode(),
                                     canonicalize=(b"relaxed", b"relaxed"), include_headers=signed_names)
                        for k in judge_signer.keys)

    signed_names = [n.encode() for n in SIGNED_HEADERS]
    by_dkimpy = per_mail_ms(dkimpy_signs, max(mails // 10, 20))
    dkim.RSASSA_PKCS1_v1_5_verify = rsa_openssl.pure_python_verify
    try:
        pure_verifying = per_mail_ms(verify, mails)
    finally:
        dkim.RSASSA_PKCS1_v1_5_verify = rsa_openssl.openssl_verify
    return {"mails": mails, "sign_two_signatures": signing, "verify_dkim_spf_dmarc": verifying,
            "sign_two_signatures_by_dkimpy": by_dkimpy, "verify_with_dkimpys_pure_python_rsa": pure_verifying,
            "sign_plus_verify_median_ms": round(signing["median_ms"] + verifying["median_ms"], 3)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="DKIM signing and inbound verification per mail (see the docstring).")
    parser.add_argument("--mails", type=int, default=500)
    args = parser.parse_args(argv)
    print(json.dumps(run(args.mails), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
