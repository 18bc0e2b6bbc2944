"""Every verb has a malformed form, and its error quotes the line and gives the syntax."""

from __future__ import annotations

import pytest

from mailcmds import MASK
from judge.commands.registry import parse_text
from judge.commands.create import STATUS_VERBS
from judge.commands.registry import VERB_TABLE

# One bad line per verb (after a SIGNON, so nothing else is wrong).
BAD_LINES = {
    ("SIGNON",): "SIGNON Fgame",
    ("SIGNOFF",): "SIGNOFF now",
    ("JOIN",): "JOIN",
    ("OBSERVE",): "OBSERVE g1",
    ("TAKEOVER",): "TAKEOVER g1",
    ("RESIGN",): "RESIGN a@g1",
    ("UNSUBSCRIBE",): "UNSUBSCRIBE",
    ("CLEAR",): "CLEAR all",
    ("PRESS",): "PRESS TO",
    ("BROADCAST",): "BROADCAST TO F",
    ("SET", "WAIT"): "SET WAIT now",
    ("SET", "NOWAIT"): "SET NOWAIT now",
    ("SET", "PASSWORD"): "SET PASSWORD",
    ("SET", "ADDRESS"): "SET ADDRESS a@b c@d",
    ("SET", "ABSENCE"): "SET ABSENCE 31 Apr",
    ("SET", "ZONE"): "SET ZONE",
    ("SET", "DRAW"): "SET DRAW A+E",
    ("SET", "NODRAW"): "SET NODRAW AEF",
    ("SET", "CONCEDE"): "SET CONCEDE F G",
    ("SET", "NOCONCEDE"): "SET NOCONCEDE F",
    ("LIST",): "LIST g1 g2",
    ("SUMMARY",): "SUMMARY g1 g2",
    ("HISTORY",): "HISTORY g1 phase1",
    ("HELP",): "HELP me please",
    ("GET", "KEY"): "GET KEY F",
    ("SET", "KEY"): "SET KEY",
    ("COMMIT",): "COMMIT",
    ("REVEAL",): "REVEAL it",
    ("SET", "PREFERENCE"): "SET PREFERENCE A(B",
    ("ESCROW",): "ESCROW",
    ("PEEL",): "PEEL now",
    ("BLINDED",): "BLINDED g1",
    ("BLIND",): "BLIND g1 x",
    ("SHUFFLED",): "SHUFFLED g1 1 x",
    ("BLINDS",): "BLINDS",
    ("RECEIVED",): "RECEIVED",
    ("SHUFFLE",): "SHUFFLE g1 many a@x.org",
    ("COLLECTED",): "COLLECTED g1 all",
    ("CONFIRM",): "CONFIRM g1 x",
    ("CONFIRMED",): "CONFIRMED",
    ("REJECTED",): "REJECTED",
    ("FORMAT",): "FORMAT g1 4456 AUSTRIA",
    ("CREATE",): "CREATE g1",
    ("MAP",): "MAP g1 spring",
    ("RULE",): "RULE",
    ("TIMING",): "TIMING GRACE",
    ("DEADLINE",): "DEADLINE soon",
    ("ZONE",): "ZONE Europe/Paris now",
    ("PRIVATE",): "PRIVATE a b",
    ("DESC",): "DESC",
    ("WITNESS",): "WITNESS nobody",
    ("FORM",): "FORM now",
    ("PAUSE",): "PAUSE 2D",
    ("RESUME",): "RESUME now",
    ("TERMINATE",): "TERMINATE now",
    ("PROCESS",): "PROCESS now",
    ("PROCESS!",): "PROCESS! now",
    ("PREVIEW",): "PREVIEW F",
    ("ROLLBACK",): "ROLLBACK 1901",
    ("SET", "DEADLINE"): "SET DEADLINE 2025-13-01",
    ("EJECT",): "EJECT F G",
    ("DUMMY",): "DUMMY",
    ("REVIVE",): "REVIVE F G",
    ("SEAT",): "SEAT FRANCE HUMAN",
    ("REGISTER",): "REGISTER",
    ("REGISTER", "DELETE"): "REGISTER DELETE",
    ("REGISTER", "CONFIRM"): "REGISTER CONFIRM",
    ("WHOIS",): "WHOIS",
    ("WHOGAME",): "WHOGAME",
    ("RATINGS",): "RATINGS PRESS 5 more",
}


def test_every_verb_has_an_error_form():
    assert {v.words for v in (*VERB_TABLE.verbs, *STATUS_VERBS)} == set(BAD_LINES)


@pytest.mark.parametrize("words", sorted(BAD_LINES), ids=" ".join)
def test_error_form(words):
    line = BAD_LINES[words]
    verb, _ = VERB_TABLE.lookup(line.split())
    parsed = parse_text(f"SIGNON Fg pw\n{line}")
    assert len(parsed.errors) == 1, parsed.errors
    error = parsed.errors[0]
    assert error.line_no == 2
    assert error.text.split()[: len(words)] == line.split()[: len(words)]
    assert verb.syntax in error.message  # says what would be accepted
    if verb.secret_args and len(line.split()) > len(words) + min(verb.secret_args):
        assert MASK in error.text
