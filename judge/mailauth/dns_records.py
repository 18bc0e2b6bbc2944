"""The DNS records a judge's mail needs, as zone-file lines with full names.

One TXT record per DKIM selector (RFC 6376 3.6.2: ``<selector>._domainkey.<domain>``),
its value split into quoted strings of at most 255 characters (RFC 1035 3.3.14: one
string holds 255 octets; a 2048-bit rsa key's record is longer); an SPF suggestion
(RFC 7208) for the domain of the envelope sender and a DMARC one (RFC 7489).
"""

from __future__ import annotations

from typing import Sequence

from judge.mailauth.dkim_keys import DkimKey

MAX_STRING = 255


def quoted_strings(value: str) -> str:
    """``value`` as a TXT record's character-strings, each at most 255 characters."""
    if '"' in value or "\\" in value:
        raise ValueError("a DKIM or policy record never holds quotes or backslashes")
    pieces = [value[i:i + MAX_STRING] for i in range(0, len(value), MAX_STRING)] or [""]
    return " ".join(f'"{piece}"' for piece in pieces)


def dkim_lines(domain: str, keys: Sequence[DkimKey]) -> list[str]:
    return [f"{key.selector}._domainkey.{domain}. IN TXT {quoted_strings(key.txt_value())}" for key in keys]


def spf_line(domain: str, relay_host: str) -> str:
    """Mail from ``domain`` leaves through its MX hosts and the relay (when one is set);
    ``~all``: soft-fail the rest while the record is new (``-all`` once it is proven)."""
    mechanisms = ["mx"]
    if relay_host:
        kind = ("ip6" if ":" in relay_host else "ip4") if _is_address(relay_host) else "a"
        mechanisms.append(f"{kind}:{relay_host}")
    return f"{domain}. IN TXT {quoted_strings(' '.join(['v=spf1', *mechanisms, '~all']))}"


def dmarc_line(domain: str) -> str:
    """Strict DKIM alignment (the judge signs with its own domain); reports to postmaster."""
    policy = f"v=DMARC1; p=quarantine; adkim=s; aspf=r; rua=mailto:postmaster@{domain}"
    return f"_dmarc.{domain}. IN TXT {quoted_strings(policy)}"


def zone_lines(domain: str, keys: Sequence[DkimKey], relay_host: str) -> list[str]:
    """Every record, each preceded by a comment line saying what it is for."""
    lines = ["; DKIM: the public keys the judge's signatures are checked against"]
    lines += dkim_lines(domain, keys)
    lines += ["; SPF (a suggestion): who may send mail from this domain", spf_line(domain, relay_host),
              "; DMARC (a suggestion): what receivers do with mail that fails both", dmarc_line(domain)]
    return lines


def _is_address(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
