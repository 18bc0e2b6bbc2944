"""PRESS and BROADCAST: options, bodies, terminators, errors."""

from __future__ import annotations

import pytest

from judge.commands.press import Press
from judge.commands.settings import SetWait
from judge.commands.signoff import Signoff
from mailcmds import OrderLines
from judge.commands.registry import parse_text


def press_of(text: str) -> Press:
    parsed = parse_text("SIGNON Fg pw\n" + text)
    assert parsed.errors == (), parsed.errors
    presses = parsed.of_type(Press)
    assert len(presses) == 1
    return presses[0]


def test_press_to_initials_with_body_until_endpress():
    press = press_of("PRESS TO EG\nLet us talk.\n// keep this line\n\nRegards\nENDPRESS\nSET WAIT")
    assert press.recipients == ("EG",) and not press.broadcast and not press.grey
    assert press.body == "Let us talk.\n// keep this line\n\nRegards\n"
    assert press.source.number == 2 and [l.number for l in press.lines] == [3, 4, 5, 6]


@pytest.mark.parametrize("header, recipients, excluded, grey, broadcast, quiet", [
    ("PRESS TO FRANCE, GERMANY", ("FRANCE", "GERMANY"), (), False, False, False),
    ("PRESS TO F G GREY", ("F", "G"), (), True, False, False),
    ("press gray to m", ("M",), (), True, False, False),
    ("PRESS TO ALL BUT RT", None, ("RT",), False, False, False),
    ("PRESS TO ALL", None, (), False, True, False),
    ("PRESS", None, (), False, True, False),
    ("PRESS +FGR QUIET", ("FGR",), (), False, False, True),
    ("PRESS TO E WHITE", ("E",), (), False, False, False),
    ("BROADCAST", None, (), False, True, False),
    ("BROADCAST GREY", None, (), True, True, False),
])
def test_press_options(header, recipients, excluded, grey, broadcast, quiet):
    press = press_of(f"{header}\nhello\nENDPRESS")
    assert (press.recipients, press.excluded, press.grey, press.broadcast, press.quiet) == (
        recipients, excluded, grey, broadcast, quiet)


def test_press_ends_at_signoff_which_still_signs_off():
    parsed = parse_text("SIGNON Fg pw\nPRESS TO E\nhi\nSIGNOFF\nA PAR H")
    press, signoff = parsed.commands[1:]
    assert press.body == "hi\n" and isinstance(signoff, Signoff)
    assert [l.text for l in parsed.unprocessed] == ["A PAR H"]


def test_press_ends_at_end_of_mail_and_endbroadcast():
    assert press_of("PRESS TO E\nlast words").body == "last words\n"
    parsed = parse_text("SIGNON Fg pw\nBROADCAST\nhi all\nENDBROADCAST\nA PAR H")
    assert isinstance(parsed.commands[-1], OrderLines)


def test_a_forgotten_endpress_never_presses_a_password():
    parsed = parse_text("SIGNON Fg pw\nPRESS TO E\nhi\nSIGNON Gg pw2\nA BER H")
    press = parsed.of_type(Press)[0]
    assert "pw2" not in press.body
    assert parsed.commands[2].game == "g" and isinstance(parsed.commands[3], OrderLines)


@pytest.mark.parametrize("header, fragment", [
    ("PRESS TO", "TO needs at least one recipient"),
    ("PRESS TO E TO F", "listed twice"),
    ("PRESS LOUDLY", "'LOUDLY' is not a press option"),
    ("PRESS FAKE FROM E", "not offered"),
    ("PRESS TO ALL BUT", "powers to leave out"),
    ("PRESS GREY WHITE TO E", "GREY or WHITE once"),
    ("BROADCAST TO E", "BROADCAST goes to everyone"),
    ("PRESS TO E?", "is not a power"),
])
def test_press_header_errors_keep_the_body_out_of_the_orders(header, fragment):
    parsed = parse_text(f"SIGNON Fg pw\n{header}\nsecret plans\nENDPRESS\nSET WAIT")
    assert len(parsed.errors) == 1 and fragment in parsed.errors[0].message
    assert "PRESS" in parsed.errors[0].message or "BROADCAST" in parsed.errors[0].message
    assert [l.text for l in parsed.unprocessed] == ["secret plans"]
    assert not parsed.of_type(OrderLines) and parsed.of_type(SetWait)


def test_empty_press_is_an_error():
    parsed = parse_text("SIGNON Fg pw\nPRESS TO E\n\nENDPRESS")
    assert "has no message" in parsed.errors[0].message


def test_end_press_in_two_words_ends_the_press():
    parsed = parse_text("SIGNON Fg pw\nPRESS TO E\nhi\nEND PRESS\nA PAR H")
    assert parsed.of_type(Press)[0].body == "hi\n" and isinstance(parsed.commands[-1], OrderLines)


def test_english_words_that_are_commands_stay_in_the_press():
    press = press_of("PRESS TO E\njoin the alliance\nCreate a diversion\nSignon is at noon\nENDPRESS")
    assert press.body == "join the alliance\nCreate a diversion\nSignon is at noon\n"
