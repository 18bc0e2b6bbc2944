"""Passwords never come back: the masked form of any line of user text.

A line is masked by its structure, not by a pattern on its first word: it is read as a
command would be (Unicode compatibility forms folded, so fullwidth ``ＳＩＧＮＯＮ`` is
``SIGNON``; invisible format characters such as a byte-order mark dropped; a leading
``Re:`` or ``Fwd:``, or a label such as a quoted header's ``Subject:``, skipped), and every word from the verb's first secret argument on is
replaced by the mask.  A line that only looks like a misspelt password-bearing command is
masked after its first word (after its second for a two-word verb such as SET PASSWORD).
"""

from __future__ import annotations

import re
import unicodedata

from .model import MASK
from .registry import VerbTable
from .syntax import strip_comment

_REPLY_PREFIX = re.compile(r"(?i)^(?:re|fw|fwd|aw|sv|antw|tr|wg)\s*(?:\[\d+\])?:$")
#: A label before a line's text, as a forwarded mail's header quoted in a body has:
#: ``Subject: SIGNON france@g1 pw`` (no verb ends with a colon).
_LABEL = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:$")


def normalized(text: str) -> str:
    """``text`` as the command reader sees it: NFKC-folded, without format characters
    (byte-order marks, zero-width joiners, bidirectional marks)."""
    if text.isascii():  # NFKC leaves ASCII as it is, and no ASCII character is a format one
        return text
    folded = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def masked(text: str, verbs: VerbTable) -> str:
    """``text`` with any password it may carry replaced by the mask; unchanged (as
    written) when it carries none."""
    prefix, words, secret_from = _split_secret(text, verbs)
    if secret_from is None:
        return text
    return " ".join([*prefix, *words[:secret_from], MASK])


def redacted(text: str, source: str, verbs: VerbTable, max_lines: int = 2000) -> str:
    """``text`` (an error message, a traceback) with every word that a command line of
    ``source`` (the mail it came from) keeps secret replaced by the mask, wherever it
    stands.  Reads at most ``max_lines`` lines of ``source``."""
    secrets: set[str] = set()
    for line in source.splitlines()[:max_lines]:
        _, words, secret_from = _split_secret(line, verbs)
        if secret_from is not None:
            secrets.update(words[secret_from:])
    for secret in sorted(secrets, key=len, reverse=True):
        text = re.sub(rf"(?<![\w@.]){re.escape(secret)}(?![\w@.])", MASK, text)
    return text


def _split_secret(text: str, verbs: VerbTable) -> tuple[list[str], list[str], int | None]:
    """A line's reply/label prefix words, its command words, and the index of the first
    command word that is secret (None when the line carries no secret)."""
    words = normalized(strip_comment(text)).split()
    prefix: list[str] = []
    while words and (_REPLY_PREFIX.match(words[0]) or _LABEL.match(words[0])):
        prefix.append(words.pop(0))
    if not words:
        return prefix, words, None
    secret_from = _secret_from(tuple(words), verbs)
    if secret_from is None or secret_from >= len(words):
        return prefix, words, None
    return prefix, words, secret_from


def _secret_from(words: tuple[str, ...], verbs: VerbTable) -> int | None:
    """The index of the first word that may be secret, or None when none may be."""
    found = verbs.lookup(words)
    if found is not None:
        verb, length = found
        return length + min(verb.secret_args) if verb.secret_args else None
    if verbs.verbs_starting(words[0]):
        return 2  # SET PASWORD x: a misspelt second word
    guess = verbs.near_miss(words[0])
    if guess is not None and guess.secret_args:
        return 1
    return None
