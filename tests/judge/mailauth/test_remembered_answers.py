"""The verifier's resolver (judge.mailauth.verify.use_nameservers) remembers each answer
with records until it expires; no such name and no records stay what they were."""

from __future__ import annotations

import time

import dns.rdatatype
import dns.resolver
import pytest

from judge.mailauth.verify import use_nameservers
from tests.fixtures.dns_server import LOOPBACK_DNS


@pytest.fixture
def resolver() -> dns.resolver.Resolver:
    use_nameservers([LOOPBACK_DNS.host], LOOPBACK_DNS.port, 1.0)
    return dns.resolver.get_default_resolver()


def test_an_answer_is_asked_once_until_it_expires(resolver, monkeypatch) -> None:
    LOOPBACK_DNS.txt["players.test"] = ["v=spf1 -all"]
    first = dns.resolver.resolve("players.test", "TXT")
    again = dns.resolver.resolve("Players.Test.", dns.rdatatype.TXT, raise_on_no_answer=False)
    assert again is first and LOOPBACK_DNS.asked.count("players.test") == 1
    LOOPBACK_DNS.txt["players.test"] = ["v=spf1 ip4:192.0.2.1 -all"]
    later = time.time() + 61  # the loopback server's records live 60 s
    monkeypatch.setattr(time, "time", lambda: later)
    renewed = dns.resolver.resolve("players.test", "TXT")
    assert LOOPBACK_DNS.asked.count("players.test") == 2
    assert b"192.0.2.1" in b"".join(renewed.rrset[0].strings)


def test_no_such_name_and_no_records_keep_their_answers(resolver) -> None:
    LOOPBACK_DNS.a["mx.players.test"] = ["192.0.2.7"]
    for _ in range(2):
        with pytest.raises(dns.resolver.NXDOMAIN):
            dns.resolver.resolve("nobody.test", "TXT")
        assert dns.resolver.resolve("mx.players.test", "TXT", raise_on_no_answer=False).rrset is None
    # The question without records is still refused where the caller wants records.
    with pytest.raises(dns.resolver.NoAnswer):
        dns.resolver.resolve("mx.players.test", "TXT")


def test_a_remembered_answer_needs_no_resolution(resolver, monkeypatch) -> None:
    # dnspython's own cache also spares the name server, but builds a resolution for each
    # question: what is remembered here is given back without one.
    LOOPBACK_DNS.txt["_dmarc.players.test"] = ["v=DMARC1; p=reject"]
    resolutions = []
    plain = dns.resolver.Resolver.resolve

    def counted(self, *args, **kwargs):
        resolutions.append(args[0])
        return plain(self, *args, **kwargs)

    monkeypatch.setattr(dns.resolver.Resolver, "resolve", counted)
    for _ in range(3):
        dns.resolver.resolve("_dmarc.players.test", "TXT")
    assert resolutions == ["_dmarc.players.test"]
