"""The HELP page and the grammar document cover every registered command, and their
examples parse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mailcmds
from judge.commands.registry import parse_text
from judge.commands.create import STATUS_VERBS, Create
from judge.commands.registry import VERB_TABLE

HERE = Path(mailcmds.__file__).parent
HELP = (HERE / "help.txt").read_text(encoding="utf-8")
GRAMMAR = (HERE / "grammar.md").read_text(encoding="utf-8")


def documented(verb, text: str) -> bool:
    """Whether a verb appears under one of its spellings (SET NODRAW or SET NO DRAW)."""
    for words in (verb.words, *verb.aliases):
        if re.search(rf"(?<![A-Z]){re.escape(' '.join(words))}(?![A-Z])", text):
            return True
    return False


@pytest.mark.parametrize("verb", [*VERB_TABLE.verbs, *STATUS_VERBS], ids=lambda v: " ".join(v.words))
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
    assert isinstance(create, Create) and len(create.status) == 5


# -- one declaration: the committed texts are the ones the verbs make ---------------------

from judge.commands.registry import STATUS_VERBS as ALL_STATUS_VERBS  # noqa: E402
from mailcmds import help_page

ROOT = HERE.parent
GENERATE = "run: python -m judge.commands.help_docs"


def test_help_txt_is_what_the_verbs_make():
    assert HELP == help_page.help_text(VERB_TABLE, ALL_STATUS_VERBS), GENERATE


def _render(path):
    render = help_page.grammar_block if path.endswith("grammar.md") else help_page.readme_table
    return lambda keys: render(keys, VERB_TABLE, ALL_STATUS_VERBS)


@pytest.mark.parametrize("path", ["mailcmds/grammar.md", "README.md"])
def test_generated_command_rows_are_what_the_verbs_make(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert help_page.BEGIN.split("{")[0] in text
    assert text == help_page.fill_blocks(text, _render(path)), GENERATE


def test_a_stale_row_is_found_and_made_anew():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    stale = text.replace("| open the game for players to join |", "| open the game |", 1)
    assert stale != text
    assert help_page.fill_blocks(stale, _render("README.md")) == text


def test_every_verb_with_help_rows_is_on_a_section_of_the_page():
    keys = {section.key for section in help_page.SECTIONS}
    rows = {where for verb in (*VERB_TABLE.verbs, *ALL_STATUS_VERBS) for where, _, _ in verb.help}
    assert rows <= keys, f"help rows for sections the page does not have: {rows - keys}"
    shown = [verb for verb, _ in help_page.shown_verbs(VERB_TABLE, ALL_STATUS_VERBS)]
    assert len(shown) == len({id(verb) for verb in shown}), "a verb shown twice"
    assert {verb.words for verb in ALL_STATUS_VERBS} <= {verb.words for verb in shown}
