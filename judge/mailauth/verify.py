"""Who wrote a mail, as DNS can tell: DKIM (every signature, dkimpy), SPF of the envelope
sender and the connecting address (pyspf) and DMARC alignment of From with the policy the
From domain publishes (authheaders' DMARC logic and public suffix list, read once); the
verdict as an Authentication-Results header value (RFC 8601, written by authres).  An
rsa-sha256 signature is checked by OpenSSL (judge.mailauth.rsa_openssl), the same answer
as dkimpy's pure Python at a fraction of its cost.

DNS goes through dnspython's default resolver (``configure_resolver``), which all three
libraries use.  A DNS failure is ``temperror``, never ``fail``: such a mail is not refused
(judge.mailauth.trust), so a slow name server cannot cost a player a turn.  Bounded: at
most ``MAX_SIGNATURES`` signatures checked, a signature field longer than
``MAX_SIGNATURE_BYTES`` is a ``permerror`` unread, and each lookup waits ``timeout``.
"""

from __future__ import annotations

import importlib.resources
import re
import time
from functools import lru_cache
from typing import Any

import authres
import dkim
import dns.exception
import dns.rdataclass
import dns.rdatatype
import dns.resolver

from judge.mailauth import rsa_openssl  # noqa: F401  (rsa signatures checked by OpenSSL)
from judge.mailauth.trust import dmarc_outcome


def _org_domain_memo() -> None:
    """authheaders reads and parses the whole public suffix list at every DMARC check
    (about a second); the list is read once here and each domain's answer remembered."""
    import authheaders
    from authheaders import dmarc_lookup

    @lru_cache(maxsize=1)
    def suffixes() -> Any:
        from publicsuffix2 import PublicSuffixList

        try:
            from authheaders.findpsl import location  # a system copy, where the package found one
            with open(location) as listing:
                return PublicSuffixList(listing)
        except ModuleNotFoundError:
            ref = importlib.resources.files("authheaders") / "public_suffix_list.txt"
            with importlib.resources.as_file(ref) as path, open(path) as listing:
                return PublicSuffixList(listing)

    @lru_cache(maxsize=4096)
    def org_domain(domain: str) -> str:
        return str(suffixes().get_public_suffix(domain))

    dmarc_lookup.get_org_domain = org_domain
    authheaders.get_org_domain = org_domain  # imported by name there


_org_domain_memo()

_DOMAIN_PART = re.compile(r"@([a-z0-9.-]+)", re.I)


def _domain_part(address: str | bytes) -> str:
    """authheaders' own reads ``[a-z0-9.]`` after the @, so eve@t-online.de is of domain
    "t" (whose _dmarc.t has no policy): no DMARC verdict at all for hyphenated domains, a
    forged From of one never refused.  IndexError when there is none, as authheaders expects."""
    text = address.decode("utf-8", "replace") if isinstance(address, bytes) else str(address)
    return _DOMAIN_PART.findall(text)[0].lower().rstrip(".")


def _fix_domain_part() -> None:
    import authheaders

    authheaders.get_domain_part = _domain_part  # check_dmarc and dmarc_per_from read it from there


_fix_domain_part()

MAX_SIGNATURES = 4
MAX_SIGNATURE_BYTES = 4096
_FIELD = re.compile(rb"\n(?![ \t])")


def configure_resolver(server: str, timeout: float) -> None:
    """Every DNS lookup of this process through ``server`` ("host" or "host:port"; empty:
    dnspython's default, the system's resolv.conf), with a cache, each lookup given up
    after ``timeout`` s."""
    if server:
        host, _, port = server.rpartition(":") if server.count(":") == 1 else (server, "", "")
        use_nameservers([host or server], int(port) if port else 53, timeout)
    else:
        default = dns.resolver.get_default_resolver()
        use_nameservers([str(n) for n in default.nameservers], int(default.port), timeout)


class _RememberingResolver(dns.resolver.Resolver):
    """dnspython's resolver, each answer with records kept by the question as asked until
    it expires: a mail asks the same few names three times (its DKIM key, SPF, DMARC) and a
    judge hears from the same domains, and dnspython's own cache still builds a resolution
    per question (about a fifth of a mail's checks).  An answer without records, and any
    error, goes through dnspython's resolution (and its cache) each time."""

    MAX_REMEMBERED = 4096

    def __init__(self) -> None:
        super().__init__(configure=False)
        self._answers: dict[tuple[str, int, int], dns.resolver.Answer] = {}

    def resolve(self, qname: Any, rdtype: Any = dns.rdatatype.A, rdclass: Any = dns.rdataclass.IN,
                *args: Any, **kwargs: Any) -> dns.resolver.Answer:
        key = (str(qname).lower().rstrip("."), int(dns.rdatatype.RdataType.make(rdtype)),
               int(dns.rdataclass.RdataClass.make(rdclass)))
        answer = self._answers.get(key)
        if answer is not None and answer.expiration > time.time():
            return answer
        answer = super().resolve(qname, rdtype, rdclass, *args, **kwargs)
        if answer.rrset is not None:
            if len(self._answers) >= self.MAX_REMEMBERED:
                self._answers.clear()
            self._answers[key] = answer
        return answer


def use_nameservers(nameservers: list[str], port: int, timeout: float) -> None:
    """Every DNS lookup of this process through ``nameservers`` on ``port``, each answer
    remembered until it expires."""
    resolver = _RememberingResolver()
    resolver.nameservers = list(nameservers)
    resolver.port = port
    resolver.lifetime = timeout
    resolver.timeout = timeout
    resolver.cache = dns.resolver.Cache()
    dns.resolver.default_resolver = resolver


class _Lookups:
    """dkimpy's key lookup, remembering what went wrong: dkimpy answers False both for a
    bad signature and for a key DNS could not give, which are fail, permerror (no key)
    and temperror (DNS trouble, SERVFAIL included) to the judge."""

    def __init__(self) -> None:
        self.trouble: str | None = None

    def __call__(self, name: bytes, timeout: int = 5) -> bytes | None:
        try:
            answer = dns.resolver.resolve(name.decode("ascii"), dns.rdatatype.TXT, raise_on_no_answer=False,
                                          lifetime=timeout)
        except dns.resolver.NXDOMAIN:
            self.trouble = "permerror"
            return None
        except (dns.resolver.NoNameservers, dns.exception.Timeout, dns.resolver.NoResolverConfiguration) as exc:
            self.trouble = "temperror"
            raise dkim.DnsTimeoutError(str(exc)) from exc
        for rrset in answer.response.answer:
            if rrset.rdtype == dns.rdatatype.TXT:
                return b"".join(list(rrset.items)[0].strings)
        self.trouble = "permerror"
        return None


def dkim_results(raw: bytes, timeout: float) -> list[Any]:
    """One DKIM result per signature (at most MAX_SIGNATURES), or ``none`` when unsigned."""
    from authheaders import DKIMAuthenticationResult

    head = raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    fields = [f for f in _FIELD.split(head) if f[:15].lower() == b"dkim-signature:"]
    if not fields:
        return [DKIMAuthenticationResult(result="none")]
    checker = dkim.DKIM(raw, timeout=int(max(timeout, 1)))
    results = []
    for index, field in enumerate(fields[:MAX_SIGNATURES]):
        tags = dict(re.findall(rb"(?:^|;)\s*([a-z]+)\s*=\s*([^;]*)", field.split(b":", 1)[1].replace(b"\n", b"")))
        domain = tags.get(b"d", b"").strip().decode("ascii", "replace")[:253]
        selector = tags.get(b"s", b"").strip().decode("ascii", "replace")[:63]
        algorithm = tags.get(b"a", b"").strip().decode("ascii", "replace")[:32]
        why: str | None
        if len(field) > MAX_SIGNATURE_BYTES:
            result, why = "permerror", "signature too large"
        else:
            lookups = _Lookups()
            try:
                passed = checker.verify(idx=index, dnsfunc=lookups)
                result, why = ("pass", None) if passed else (
                    ("temperror", "DNS lookup failed") if lookups.trouble == "temperror" else
                    ("permerror", "no key in DNS") if lookups.trouble == "permerror" else ("fail", "bad signature"))
            except dkim.DnsTimeoutError:
                result, why = "temperror", "DNS lookup failed"
            except dkim.DKIMException as exc:
                result, why = "permerror", str(exc)[:120]
            except Exception as exc:  # a malformed signature must never stop the intake
                result, why = "permerror", type(exc).__name__
        results.append(DKIMAuthenticationResult(result=result, result_comment=why, header_d=domain,
                                                header_s=selector, header_a=algorithm))
    return results


def spf_result(ip: str | None, mail_from: str, helo: str, timeout: float) -> Any:
    import spf
    from authheaders import SPFAuthenticationResult

    if not ip or _is_local(ip):  # a relay on this host: its address says nothing of the sender
        return SPFAuthenticationResult(result="none", result_comment="no remote client address",
                                       smtp_mailfrom=mail_from or None)
    try:
        result, why = spf.check2(i=ip, s=mail_from or f"postmaster@{helo}", h=helo or "unknown", timeout=timeout,
                                 querytime=max(1, int(timeout)))
    except Exception as exc:  # pyspf raises on DNS trouble it does not classify
        result, why = "temperror", type(exc).__name__
    return SPFAuthenticationResult(result=result, result_comment=str(why)[:120] or None,
                                   smtp_mailfrom=mail_from or None, smtp_helo=None if mail_from else helo)


def _is_local(ip: str) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(ip.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def dmarc_result(raw: bytes, spf: Any, dkims: list[Any]) -> Any:
    from authheaders import DMARCAuthenticationResult, check_dmarc

    passing = [d for d in dkims if d.result == "pass"]
    try:
        from_domain = _from_domain(raw)
        aligned = [d for d in passing if from_domain and (d.header_d or "").lower().endswith(from_domain)]
        return check_dmarc(raw, spf, (aligned or passing or dkims)[0])
    except (dns.exception.DNSException, OSError) as exc:
        return DMARCAuthenticationResult(result="temperror", result_comment=f"DNS: {type(exc).__name__}")
    except Exception as exc:
        return DMARCAuthenticationResult(result="permerror", result_comment=type(exc).__name__)


def _from_domain(raw: bytes) -> str:
    from email.utils import getaddresses

    head = raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0].decode("utf-8", "replace")
    froms = [f.split(":", 1)[1].replace("\n", " ") for f in re.split(r"\n(?![ \t])", head)
             if f.lower().startswith("from:")]
    addresses = [a for _, a in getaddresses(froms) if "@" in a]
    return addresses[0].rsplit("@", 1)[1].lower() if len(addresses) == 1 else ""


def verified(raw: bytes, *, authserv_id: str, ip: str | None, mail_from: str, helo: str,
             timeout: float) -> tuple[str, tuple[str, str]]:
    """The Authentication-Results value (without the field name) of ``raw``, and the result
    and policy of its DMARC check (judge.mailauth.trust.trust_from reads them without
    parsing the value again).  Plain strings: this runs in a verifier process too."""
    spf = spf_result(ip, mail_from, helo, timeout)
    dkims = dkim_results(raw, timeout)
    dmarc = dmarc_result(raw, spf, dkims)
    header = str(authres.AuthenticationResultsHeader(authserv_id=authserv_id, results=[spf, *dkims, dmarc]))
    return header.split(":", 1)[1].strip(), dmarc_outcome(dmarc)


def authentication_results(raw: bytes, *, authserv_id: str, ip: str | None, mail_from: str, helo: str,
                           timeout: float) -> str:
    """The Authentication-Results value (without the field name) of ``raw``."""
    return verified(raw, authserv_id=authserv_id, ip=ip, mail_from=mail_from, helo=helo, timeout=timeout)[0]
