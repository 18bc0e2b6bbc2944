"""The plain-English press forms both ways (judge/press/english.py), pure: a player's press
lines read into DAIDE at the game's level, and DAIDE press written for players."""

from __future__ import annotations

import pytest

import maps
from adjudicator import api
from daide.messages import from_text, to_text
from daide.press import Grammar
from daide.tokens import TokenTable
from judge.press.english import Conversation, UnreadablePress, in_english, is_press_line, read_line

VARIANT = maps.load("standard")
TABLE = TokenTable.for_variant(VARIANT)
BOARD = api.prepare(VARIANT, api.initial_position(VARIANT))


def _talk(level: int = 30, received: str | None = None, proposed: str | None = None) -> Conversation:
    return Conversation(Grammar(TABLE, level), BOARD, "ENGLAND", ("FRANCE",), received, proposed)


@pytest.mark.parametrize("line, daide", [
    ("propose peace", "PRP (PCE (ENG FRA))"),
    ("PROPOSE PEACE WITH GERMANY", "PRP (PCE (ENG FRA GER))"),
    ("Propose alliance against G R", "PRP (ALY (ENG FRA) VSS (GER RUS))"),
    ("PROPOSE DMZ ENG BEL", "PRP (DMZ (ENG FRA) (ECH BEL))"),
    ("PROPOSE ORDER F BRE - MAO", "PRP (XDO ((FRA FLT BRE) MTO MAO))"),
    ("propose order a par s a mar - bur", "PRP (XDO ((FRA AMY PAR) SUP (FRA AMY MAR) MTO BUR))"),
    ("PROPOSE DRAW", "PRP (DRW)"),
    ("FCT (PCE (ENG FRA))", "FCT (PCE (ENG FRA))"),
    ("YES (PRP (PCE (FRA ENG)))", "YES (PRP (PCE (FRA ENG)))"),
])
def test_a_press_line_reads_into_daide(line: str, daide: str) -> None:
    assert is_press_line(line)
    assert to_text(read_line(line, _talk())) == daide


def test_accept_reject_and_cancel_answer_the_latest_proposals() -> None:
    talk = _talk(received="PRP (DMZ (FRA ENG) (ECH))", proposed="PRP (PCE (ENG FRA))")
    assert to_text(read_line("ACCEPT", talk)) == "YES (PRP (DMZ (FRA ENG) (ECH)))"
    assert to_text(read_line("reject", talk)) == "REJ (PRP (DMZ (FRA ENG) (ECH)))"
    assert to_text(read_line("Cancel", talk)) == "CCL (PRP (PCE (ENG FRA)))"


@pytest.mark.parametrize("line, level, problem", [
    ("ACCEPT", 30, "no proposal has come from them"),
    ("CANCEL", 30, "no proposal to cancel"),
    ("ACCEPT the offer", 30, "takes nothing after it"),
    ("PROPOSE NONSENSE", 30, "PROPOSE PEACE, ALLIANCE AGAINST, DMZ, ORDER or DRAW"),
    ("PROPOSE DMZ XYZ", 30, "'XYZ' is no province"),
    ("PROPOSE ORDER F XYZ - NTH", 30, "is no order of a unit"),
    ("PROPOSE ALLIANCE AGAINST NOBODY", 30, "NOBODY"),
    ("PROPOSE ORDER F BRE - MAO", 10, "XDO is no arrangement at press level 10"),
    ("PRP (PCE (ENG FRA)", 30, "unbalanced"),
    ("PRP (ALY (ENG FRA))", 30, "VSS"),
])
def test_a_press_line_that_cannot_be_read_says_why(line: str, level: int, problem: str) -> None:
    with pytest.raises(UnreadablePress) as refused:
        read_line(line, _talk(level))
    assert problem in str(refused.value)


def test_prose_is_no_press_line() -> None:
    assert not is_press_line("Let us be friends this year.")
    assert not is_press_line("")
    assert not is_press_line("prp is not upper case, so this is prose")


@pytest.mark.parametrize("daide, english", [
    ("PRP (PCE (ENG FRA))", "proposes peace between ENGLAND and FRANCE."),
    ("YES (PRP (ALY (ENG FRA) VSS (GER)))", "accepts the proposal of an alliance of ENGLAND and FRANCE against GERMANY."),
    ("PRP (AND (XDO ((ENG FLT LON) MTO ECH)) (DMZ (ENG FRA) (ECH BEL)))",
     "proposes all of: the order ENGLAND F LON - ENG; that ENGLAND and FRANCE keep out of ENG and BEL "
     "(a demilitarised zone)."),
    ("PRP (ORR (XDO ((RUS FLT (STP SCS)) MTO GOB)) (DRW))",
     "proposes one or more of: the order RUSSIA F STP/SC - BOT; a draw."),
    ("CCL (PRP (DRW))", "cancels the proposal of a draw."),
    ("FCT (NOT (PCE (ENG GER)))", "states as a fact: not peace between ENGLAND and GERMANY."),
    ("TRY (PRP PCE)", "can read press with: PRP PCE."),
])
def test_daide_press_reads_as_english(daide: str, english: str) -> None:
    assert in_english(from_text(daide), TABLE) == english
