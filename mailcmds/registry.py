"""The verb table: the verbs of every command module, found by their first one to three words.

The table is a value built from the verbs it is given (judge/commands/registry.py gives it
every command module's); the parser, the masking of passwords and the HELP page read it,
so none of them lists a verb.
"""

from __future__ import annotations

import difflib
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from .syntax import Verb

#: Words that begin orders: never taken for a misspelt command.
_ORDER_WORDS = frozenset({"BUILD", "REMOVE", "DISBAND", "WAIVE", "RETREAT", "HOLD", "HOLDS", "SUPPORT", "CONVOY",
                          "ARMY", "FLEET"})


class VerbTable:
    """The verbs in the order given, each under its words and aliases (a word sequence
    given twice is a wiring mistake: ValueError)."""

    def __init__(self, verbs: Iterable[Verb]) -> None:
        self.verbs: tuple[Verb, ...] = tuple(verbs)
        table: dict[tuple[str, ...], Verb] = {}
        for verb in self.verbs:
            for words in (verb.words, *verb.aliases):
                if words in table:
                    raise ValueError(f"verb {' '.join(words)} registered twice")
                table[words] = verb
        self._table: Mapping[tuple[str, ...], Verb] = MappingProxyType(table)
        self._longest = max((len(words) for words in table), default=1)
        # First words that start a command (used to spot near-miss spellings).
        self._first_words = sorted({words[0] for words in table if len(words[0]) >= 5})

    def with_verb(self, verb: Verb) -> VerbTable:
        """This table and one more verb (tests)."""
        return VerbTable((*self.verbs, verb))

    def lookup(self, words: Sequence[str]) -> tuple[Verb, int] | None:
        """The verb the line starts with and how many words it took, or ``None``."""
        upper = tuple(w.upper() for w in words[:self._longest])
        for length in range(min(self._longest, len(upper)), 0, -1):
            verb = self._table.get(upper[:length])
            if verb is not None:
                return verb, length
        return None

    def near_miss(self, word: str) -> Verb | None:
        """The verb a misspelt first word probably meant (``SIGNOF`` -> SIGNOFF), if any."""
        token = word.upper()
        if len(token) < 5 or token in _ORDER_WORDS or not token.isalpha():
            return None
        close = difflib.get_close_matches(token, self._first_words, n=1, cutoff=0.8)
        if not close:
            return None
        for words, verb in self._table.items():
            if words[0] == close[0]:
                return verb
        return None

    def verbs_of(self, family: str) -> tuple[Verb, ...]:
        return tuple(verb for verb in self.verbs if verb.family == family)

    def verbs_starting(self, word: str) -> tuple[Verb, ...]:
        """Multi-word verbs whose first word is ``word`` (SET -> SET WAIT, SET DRAW, ...)."""
        token = word.upper()
        return tuple(verb for verb in self.verbs if len(verb.words) > 1 and verb.words[0] == token)
