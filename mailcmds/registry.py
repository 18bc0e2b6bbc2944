"""The verb table: every command family's verbs, found by their first one to three words."""

from __future__ import annotations

import dataclasses
import difflib
from types import MappingProxyType
from typing import Mapping, Sequence

from . import create, draw, fair, info, join, master, orders, press, sealed, settings, signon
from .syntax import Verb

FAMILIES = {
    "signon": signon, "join": join, "orders": orders, "press": press, "settings": settings,
    "draw": draw, "info": info, "sealed": sealed, "fair": fair, "create": create, "master": master,
}


def _build() -> tuple[tuple[Verb, ...], Mapping[tuple[str, ...], Verb]]:
    verbs: list[Verb] = []
    table: dict[tuple[str, ...], Verb] = {}
    for family, module in FAMILIES.items():
        for verb in module.VERBS:
            verb = dataclasses.replace(verb, family=family)
            verbs.append(verb)
            for words in (verb.words, *verb.aliases):
                if words in table:
                    raise RuntimeError(f"verb {' '.join(words)} registered twice")
                table[words] = verb
    return tuple(verbs), MappingProxyType(table)


VERBS, _TABLE = _build()
_LONGEST = max(len(words) for words in _TABLE)
#: First words that start a command (used to spot near-miss spellings).
_FIRST_WORDS = sorted({words[0] for words in _TABLE if len(words[0]) >= 5})
#: Words that begin orders: never taken for a misspelt command.
_ORDER_WORDS = {"BUILD", "REMOVE", "DISBAND", "WAIVE", "RETREAT", "HOLD", "HOLDS", "SUPPORT", "CONVOY", "ARMY", "FLEET"}


def lookup(words: Sequence[str]) -> tuple[Verb, int] | None:
    """The verb the line starts with and how many words it took, or ``None``."""
    upper = tuple(w.upper() for w in words[:_LONGEST])
    for length in range(min(_LONGEST, len(upper)), 0, -1):
        verb = _TABLE.get(upper[:length])
        if verb is not None:
            return verb, length
    return None


def near_miss(word: str) -> Verb | None:
    """The verb a misspelt first word probably meant (``SIGNOF`` -> SIGNOFF), if any."""
    token = word.upper()
    if len(token) < 5 or token in _ORDER_WORDS or not token.isalpha():
        return None
    close = difflib.get_close_matches(token, _FIRST_WORDS, n=1, cutoff=0.8)
    if not close:
        return None
    for words, verb in _TABLE.items():
        if words[0] == close[0]:
            return verb
    return None


def verbs_of(family: str) -> tuple[Verb, ...]:
    return tuple(verb for verb in VERBS if verb.family == family)


def verbs_starting(word: str) -> tuple[Verb, ...]:
    """Multi-word verbs whose first word is ``word`` (SET -> SET WAIT, SET DRAW, ...)."""
    token = word.upper()
    return tuple(verb for verb in VERBS if len(verb.words) > 1 and verb.words[0] == token)
