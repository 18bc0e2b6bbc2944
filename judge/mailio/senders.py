"""Who sent a mail, as far as the judge can tell: the one place that names a sender for the
limits a stranger must not turn against someone else (the SIGNON throttle, CREATE's daily
limit).

From and Reply-To are whatever the sender typed, so they never name the sender here.  In
order of trust: the identity a verifier vouched for (``InboundMail.authenticated``: DKIM,
DMARC or SMTP AUTH, None until such a check exists), else the envelope sender (for mail
read over IMAP, the Return-Path its last relay wrote), each paired with the connecting
client's IP address when the client is not on this host (a local relay's loopback address
says nothing of who sent the mail).  A stranger who forges the envelope sender as well
is still told apart by that address; behind a local relay only verification can tell
him from the owner.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from judge.mailio.addresses import parsed_address
from judge.mailio.inbound import InboundMail, usable_address

#: Stored keys are at most this long (game.created_by, signon_failure.address).
KEY_LENGTH = 320


@dataclass(frozen=True)
class Sender:
    """``address``: the verified identity or the envelope sender ("" when the mail gives
    none); ``peer``: the client's IP address when it is another host's; ``verified``: the
    address was vouched for, not just written."""

    address: str
    peer: str | None = None
    verified: bool = False

    @property
    def key(self) -> str:
        """One text naming this sender, for counting what it did."""
        # A verified sender's own key: refusals of mail that only wrote its address (a
        # forger's) are never counted as its own.
        text = (f"{self.address} (verified)" if self.verified
                else self.address if not self.peer else f"{self.address} [{self.peer}]")
        return text[:KEY_LENGTH]


def sender_of(inbound: InboundMail) -> Sender:
    """Who sent ``inbound``, by what a stranger cannot simply write in a header."""
    if inbound.authenticated:
        return Sender(inbound.authenticated.strip().lower(), verified=True)
    return Sender(_envelope(inbound) or inbound.from_address, _remote(inbound.peer))


def _envelope(inbound: InboundMail) -> str:
    if inbound.mail_from is not None:
        return usable_address(inbound.mail_from)
    try:  # IMAP: the last relay's record of the envelope
        return_path = str(inbound.message.get("Return-Path", "") or "")
    except (ValueError, TypeError, IndexError, AttributeError):  # a header too malformed to read
        return_path = ""
    return usable_address(parsed_address(return_path)[1])


def _remote(peer: str | None) -> str | None:
    """``peer`` when it is another host's IP address; None for this host's, or none."""
    if not peer:
        return None
    try:
        address = ipaddress.ip_address(peer.split("%", 1)[0])
    except ValueError:
        return None
    if address.is_loopback or address.is_unspecified:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None and mapped.is_loopback:
        return None
    return str(address)
