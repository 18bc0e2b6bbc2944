"""What the judge makes of an Authentication-Results header (RFC 8601): who is proven to
have written the mail, and whether its sign-ons are refused.  Pure.

Only a header whose authserv-id the judge trusts counts (its own verification at the
SMTP intake, or the receiving server's on the IMAP path), the topmost such one: a header
further down may be a stranger's forgery.  DMARC ``pass`` proves the From address (the
sign-on throttle then counts that address, not the connection).  DMARC ``fail`` of a
domain whose policy is ``reject`` or ``quarantine`` (the domain says such mail is not
its own) makes the mail untrusted under ``[mail] trust = "dmarc"``: its SIGNON, JOIN,
OBSERVE, TAKEOVER, CREATE and RESIGN are refused with this reason, so orders and press
(which need a sign-on) are not read.  ``temperror`` (DNS did not answer) refuses
nothing: a name server's trouble must not cost a player a turn.  ``p=none`` is the
domain saying it does not know its own mail yet: such mail is treated as unverified, and
so is mail of a domain with SPF but no DMARC policy, whatever SPF says (SPF speaks of the
envelope sender, not of From).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

TRUST_DMARC = "dmarc"
TRUST_ANY = "any"
_REFUSING_POLICIES = ("reject", "quarantine")
_POLICY_IN_COMMENT = re.compile(r"\bp=(\w+)", re.I)


@dataclass(frozen=True)
class Trust:
    """``authenticated``: the From address DMARC proved; ``distrust``: why the mail's
    sign-ons are refused (None: they are not); ``results``: the header that decided."""

    authenticated: str | None = None
    distrust: str | None = None
    results: str | None = None


def _authserv_id(value: str) -> str:
    return value.split(";", 1)[0].strip().split()[0].lower() if value.strip() else ""


def deciding_header(values: Iterable[str], trusted: Sequence[str]) -> str | None:
    """The topmost Authentication-Results value from a trusted authserv-id."""
    wanted = {t.strip().lower() for t in trusted if t.strip()}
    return next((v for v in values if _authserv_id(v) in wanted), None)


def trust_of(values: Iterable[str], trusted: Sequence[str], from_address: str, mode: str) -> Trust:
    """The verdict of the header values (top first) of a mail from ``from_address``."""
    import authres

    value = deciding_header(values, trusted)
    if value is None:
        return Trust()
    try:
        parsed = authres.AuthenticationResultsHeader.parse_value(" ".join(value.split()))
    except Exception:  # a header we cannot read decides nothing
        return Trust(results=value)
    dmarc = next((r for r in parsed.results if r.method == "dmarc"), None)
    return trust_from(dmarc_outcome(dmarc), from_address, mode, value)


def dmarc_outcome(dmarc: object | None) -> tuple[str, str]:
    """The result and the From domain's policy of an authres DMARC result (None: ``("", "")``)."""
    return ("", "") if dmarc is None else (str(getattr(dmarc, "result", "")), _policy(dmarc))


def trust_from(dmarc: tuple[str, str], from_address: str, mode: str, results: str) -> Trust:
    """The verdict of the deciding header ``results`` whose DMARC result and policy are
    ``dmarc`` (``("", "")``: no DMARC result): what trust_of makes of it, for a caller
    that holds them already (the SMTP intake, which has just made the header)."""
    outcome, policy = dmarc
    domain = from_address.rpartition("@")[2].lower()
    if outcome == "pass":
        return Trust(authenticated=from_address.lower(), results=results)
    if outcome != "fail" or mode != TRUST_DMARC or policy not in _REFUSING_POLICIES:
        return Trust(results=results)
    return Trust(distrust=(f"this mail fails DMARC: it is not signed by {domain or 'its From domain'} nor sent "
                           f"from a server {domain or 'that domain'} names, and {domain or 'that domain'} asks "
                           f"receivers to {policy} such mail; so it may not come from {from_address or 'its From'}, "
                           f"and sign-ons in it are not read (write from your own mail server, without a "
                           f"forwarding service that changes the mail)"), results=results)


def _policy(dmarc: object) -> str:
    for prop in getattr(dmarc, "properties", []):
        if getattr(prop, "type", "") == "policy" and getattr(prop, "name", "") == "dmarc":
            return str(prop.value).lower()
    found = _POLICY_IN_COMMENT.search(getattr(dmarc, "result_comment", None) or "")
    return found.group(1).lower() if found else ""
