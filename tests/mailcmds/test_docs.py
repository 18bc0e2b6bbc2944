"""The HELP page and the grammar document cover every registered command, and their
examples parse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mailcmds
from mailcmds import parse_text
from mailcmds.create import STATUS_VERBS
from mailcmds.registry import VERBS

HERE = Path(mailcmds.__file__).parent
HELP = (HERE / "help.txt").read_text(encoding="utf-8")
GRAMMAR = (HERE / "grammar.md").read_text(encoding="utf-8")


def documented(verb, text: str) -> bool:
    """Whether a verb appears under one of its spellings (SET NODRAW or SET NO DRAW)."""
    for words in (verb.words, *verb.aliases):
        if re.search(rf"(?<![A-Z]){re.escape(' '.join(words))}(?![A-Z])", text):
            return True
    return False


@pytest.mark.parametrize("verb", [*VERBS, *STATUS_VERBS], ids=lambda v: " ".join(v.words))
def test_every_verb_is_documented(verb):
    assert documented(verb, HELP), f"{verb.words} missing from help.txt"
    assert documented(verb, GRAMMAR), f"{verb.words} missing from grammar.md"


def test_help_is_plain_text_that_fits_a_mail():
    assert all(len(line) <= 90 for line in HELP.splitlines())
    assert HELP.isascii()


def test_the_create_example_in_the_grammar_parses_cleanly():
    example = GRAMMAR.split("Example:\n\n```\n", 1)[1].split("```", 1)[0]
    parsed = parse_text(example)
    assert parsed.errors == ()
    create = parsed.commands[0]
    assert isinstance(create, mailcmds.Create) and len(create.status) == 5
