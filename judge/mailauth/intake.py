"""The verdict on who wrote a mail, made where it arrives, before it is stored.

``Vetting.over_smtp``: the judge verifies the mail itself (judge.mailauth.verify) and
records the result as an ``Authentication-Results`` header, its authserv-id ``[mail]
authserv_id`` (else ``[judge] domain``), kept beside the stored bytes (which stay as
received) as if on top of them; ``Vetting.over_imap``: the receiving server's own header
is read instead (its authserv-id among ``[mail] trusted_authserv_ids``; the judge's own
id counts for nothing there).  Either way judge.mailauth.trust says what the topmost
trusted header means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from email.utils import getaddresses
from typing import Protocol

from judge.config import JudgeSettings, MailSettings
from judge.mailauth.trust import trust_from, trust_of
from judge.mailauth.verify import verified
from judge.store.inbound import Vetted

__all__ = ["Vetted", "Vetting", "from_address"]

_FIELD = re.compile(rb"\r?\n(?![ \t])")


def _head_fields(raw: bytes) -> list[tuple[str, str]]:
    head = re.split(rb"\r?\n\r?\n", raw, maxsplit=1)[0]
    fields = []
    for field in _FIELD.split(head):
        name, sep, value = field.partition(b":")
        if sep:
            fields.append((name.strip().lower().decode("ascii", "replace"),
                           " ".join(value.decode("utf-8", "replace").split())))
    return fields


def from_address(raw: bytes) -> str:
    """The one From address ("" when there are none or several)."""
    found = [a for _, a in getaddresses([v for n, v in _head_fields(raw) if n == "from"]) if "@" in a]
    return found[0].lower() if len(found) == 1 else ""


class Verifier(Protocol):
    def __call__(self, raw: bytes, *, authserv_id: str, ip: str | None, mail_from: str, helo: str,
                 timeout: float) -> tuple[str, tuple[str, str]]: ...


@dataclass(frozen=True)
class Vetting:
    """``verifier``: judge.mailauth.verify.verified, here or in a process of its own
    (judge.mailauth.verifier_pool)."""

    mail: MailSettings
    judge: JudgeSettings
    verifier: Verifier = verified

    def _verdict(self, raw: bytes, trusted: tuple[str, ...]) -> Vetted:
        values = [v for n, v in _head_fields(raw) if n == "authentication-results"]
        trust = trust_of(values, trusted, from_address(raw), self.mail.trust)
        return Vetted(None, trust.authenticated, trust.distrust)

    def over_smtp(self, raw: bytes, *, mail_from: str, peer: str | None, helo: str) -> Vetted:
        """``raw`` verified; the verdict reads the judge's own header first."""
        if not self.mail.verify:
            return self._verdict(raw, self.mail.authserv_ids(self.judge))
        value, dmarc = self.verifier(raw, authserv_id=self.mail.authserv_id or self.judge.domain, ip=peer,
                                      mail_from=mail_from, helo=helo, timeout=self.mail.dns_timeout_seconds)
        # The judge's own header is on top and its id trusted: it decides (as _verdict would find).
        trust = trust_from(dmarc, from_address(raw), self.mail.trust, value)
        return Vetted(value, trust.authenticated, trust.distrust)

    def over_imap(self, raw: bytes) -> Vetted:
        """Only ``trusted_authserv_ids`` count: the judge verified nothing on this path, so a
        header under its own authserv-id in a fetched mail was written by someone else."""
        return self._verdict(raw, replace(self.mail, verify=False).authserv_ids(self.judge))
