"""Password hashes for game masters and players: scrypt with a random salt, never plain.

Stored form: ``scrypt$<n>$<r>$<p>$<salt hex>$<hash hex>`` so the cost can be raised later
without breaking existing hashes.

Verified passwords are remembered in memory.  A player sends the same SIGNON password
with every mail, and checking it with scrypt (about 0.1 s of CPU, on purpose) would cap
the judge at about ten signed-on mails per second per core.  So after scrypt has said yes
once, ``VerifiedPasswords`` keeps, per stored hash, an HMAC-SHA256 of the password under
a random key made when the process starts; the next mail with that password is checked
against the HMAC in microseconds.  Why this is no weaker:

- Nothing changes at rest: the database holds only scrypt hashes, and the cache is never
  written anywhere; the key dies with the process.
- Only a password scrypt has accepted enters the cache, and only for the stored hash it
  was checked against.  A changed password is a new stored hash (new salt), so old entries
  simply stop matching; a wrong password always costs a full scrypt.
- Whoever can read this process's memory can already read every password as its mail
  arrives, so the HMACs add nothing to what such an attacker has.
- The cache is bounded (least recently used entries go first), so it cannot grow with
  the number of members.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from collections import OrderedDict

_N, _R, _P, _DKLEN = 2**14, 8, 1, 32

#: Entries of the default cache: about 250 bytes each, so at most a few MB.
CACHE_ENTRIES = 8192


class VerifiedPasswords:
    """Stored hash -> HMAC of the password scrypt accepted for it, bounded, thread-safe."""

    def __init__(self, max_entries: int = CACHE_ENTRIES) -> None:
        self.max_entries = max_entries
        self._key = os.urandom(32)
        self._entries: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def _tag(self, password: str) -> bytes:
        return hmac.new(self._key, password.encode("utf-8"), hashlib.sha256).digest()

    def known(self, password: str, stored: str) -> bool:
        """True when ``password`` was verified against ``stored`` before (and is still cached)."""
        tag = self._tag(password)
        with self._lock:
            remembered = self._entries.get(stored)
            if remembered is None:
                return False
            self._entries.move_to_end(stored)
        return hmac.compare_digest(remembered, tag)

    def remember(self, password: str, stored: str) -> None:
        """Record that ``password`` matches ``stored`` (call only after scrypt said so)."""
        tag = self._tag(password)
        with self._lock:
            self._entries[stored] = tag
            self._entries.move_to_end(stored)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


#: The process's cache, used by ``verify_password`` unless the caller passes its own.
verified = VerifiedPasswords()


def hash_password(password: str, *, cache: VerifiedPasswords | None = None) -> str:
    """A new salted scrypt hash; the password is remembered as verified for it (the member
    who just chose it signs on with it next)."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=_DKLEN)
    stored = f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"
    (verified if cache is None else cache).remember(password, stored)
    return stored


def _scrypt_matches(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = bytes.fromhex(digest_hex)
        actual = hashlib.scrypt(
            password.encode("utf-8"), salt=bytes.fromhex(salt_hex),
            n=int(n), r=int(r), p=int(p), dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


def verify_password(password: str, stored: str, *, cache: VerifiedPasswords | None = None) -> bool:
    """True when ``password`` matches ``stored``; a malformed stored hash never matches.

    A password verified before against the same stored hash is recognised from the
    in-memory cache (see the module docstring) without running scrypt again.
    """
    cache = verified if cache is None else cache
    if cache.known(password, stored):
        return True
    if not _scrypt_matches(password, stored):
        return False
    cache.remember(password, stored)
    return True
