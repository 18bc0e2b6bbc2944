"""Tokens in links and addresses the judge hands out, each a keyed hash (HMAC-SHA256) so
nobody can make one for another person: an unsubscribe link names a game and, by its
hash, one member's address; a bounce address (VERP) names one outgoing mail and, by its
hash, its recipient.  Pure: the key is given (judge.mailauth.keystore keeps it).

Forms, lower case so they survive case-folding mail systems: ``u<game>-<hash>`` and
``b<outbox id>-<hash>``, the hash 16 base32 characters (80 bits).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

_HASH_CHARS = 16
_FORM = re.compile(r"([ub])(\d{1,12})-([a-z2-7]{16})\Z")


def _mac(key: bytes, purpose: str, number: int, address: str) -> str:
    data = f"{purpose}\0{number}\0{address.strip().lower()}".encode("utf-8")
    digest = hmac.new(key, data, hashlib.sha256).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:_HASH_CHARS]


@dataclass(frozen=True)
class Token:
    """A token read back: its kind (``u`` unsubscribe, ``b`` bounce), its number (the
    game or the outbox row) and the hash, to be matched against an address."""

    kind: str
    number: int
    mac: str

    def names(self, key: bytes, address: str) -> bool:
        return hmac.compare_digest(self.mac, _mac(key, self.kind, self.number, address))


def unsubscribe_token(key: bytes, game_id: int, address: str) -> str:
    return f"u{game_id}-{_mac(key, 'u', game_id, address)}"


def bounce_token(key: bytes, outbox_id: int, address: str) -> str:
    return f"b{outbox_id}-{_mac(key, 'b', outbox_id, address)}"


def read_token(text: str, kind: str) -> Token | None:
    """``text`` as a token of ``kind``, or None when it is not one (the hash is not
    checked here: ``Token.names`` does, against each candidate address)."""
    found = _FORM.match(text.strip().lower())
    if found is None or found.group(1) != kind:
        return None
    return Token(kind, int(found.group(2)), found.group(3))
