"""Player commands: each form, and each malformed form's error."""

from __future__ import annotations

from datetime import time

import pytest

from mailcmds.orders import looks_like_prose
from judge.commands.create import ListStatus
from judge.commands.draw import SetConcede, SetDraw, SetNoConcede, SetNoDraw
from judge.commands.info import Help, History, ListGames, MapPicture, Summary
from judge.commands.keys import GetKey
from judge.commands.join import Join, Observe, Resign, Takeover
from judge.commands.orders import Clear
from judge.commands.settings import SetAbsence, SetAddress, SetPassword, SetWait, SetZone
from judge.commands.signoff import Signoff
from judge.commands.signon import Signon
from mailcmds import MASK, DateSpec, OrderLines
from judge.commands.registry import parse_text


def only(text: str):
    """The single command of a one-command mail (and no errors)."""
    parsed = parse_text(text)
    assert parsed.errors == (), parsed.errors
    assert len(parsed.commands) == 1, parsed.commands
    return parsed.commands[0]


def error_of(text: str):
    parsed = parse_text(text)
    assert len(parsed.errors) == 1, parsed.errors
    return parsed.errors[0]


# --- JOIN / OBSERVE / TAKEOVER / RESIGN ----------------------------------------------------

def test_join_game_password():
    command = only("JOIN MyGame s3cret")
    assert command == Join("mygame", "s3cret", None, None, source=command.source)
    assert command.source.number == 1
    assert "s3cret" not in command.source.text and MASK in command.source.text


def test_join_power_at_game_with_privacy_keyword():
    command = only("join france@mygame pw club")
    assert (command.power, command.game, command.password, command.privacy) == ("FRANCE", "mygame", "pw", "club")


@pytest.mark.parametrize("line, fragment", [
    ("JOIN", "JOIN needs a game name and a password"),
    ("JOIN mygame", "JOIN needs a game name and a password"),
    ("JOIN my!game pw", "is not a game name"),
    ("JOIN a@b@c pw", "power@game"),
])
def test_join_errors_say_what_is_accepted(line, fragment):
    error = error_of(line)
    assert fragment in error.message
    assert "JOIN game password or JOIN power@game password" in error.message
    assert error.line_no == 1


def test_join_extra_words_are_masked_in_the_error():
    error = error_of("JOIN mygame pw clubword more")
    assert error.text == f"JOIN mygame {MASK} {MASK} {MASK}"
    assert "clubword" not in error.message and "more" not in error.message and "unexpected" in error.message


def test_observe_takeover_resign():
    observe, takeover, resign_named = (
        parse_text("OBSERVE watcher@g1 pw\nTAKEOVER italy@g1 pw2\nRESIGN italy@g1 pw2").commands
    )
    assert isinstance(observe, Observe) and (observe.name, observe.game) == ("WATCHER", "g1")
    assert isinstance(takeover, Takeover) and (takeover.power, takeover.password) == ("ITALY", "pw2")
    assert isinstance(resign_named, Resign) and resign_named.power == "ITALY"
    assert isinstance(only("RESIGN"), Resign) and only("RESIGN").power is None


def test_observe_without_name_and_resign_with_a_bare_power_are_errors():
    assert "no '@'" in error_of("OBSERVE g1 pw").message
    assert "an observer name is letters" in error_of("OBSERVE john.smith@g1 pw").message
    assert "EJECT" in error_of("RESIGN FRANCE").message


def test_a_mail_with_an_error_refuses_resign():
    parsed = parse_text("SIGNON Fg1 pw\nRESIGN\nSET ZONE not a zone")
    assert any(isinstance(c, Resign) for c in parsed.commands)
    assert not parsed.resign_allowed
    assert parse_text("SIGNON Fg1 pw\nRESIGN").resign_allowed


# --- SIGNON, orders, CLEAR, SIGNOFF ----------------------------------------------------------

def test_signon_njudge_initial_form_and_power_at_game():
    assert only("SIGNON Fgame1 pw") == Signon("F", "game1", "pw", source=only("SIGNON Fgame1 pw").source)
    command = only("signon Master@Game1 pw")
    assert (command.power, command.game) == ("MASTER", "game1")


@pytest.mark.parametrize("line", ["SIGNON", "SIGNON Fgame", "SIGNON F pw", "SIGNON @g pw", "SIGNON Fgame pw extra"])
def test_signon_errors(line):
    error = error_of(line)
    assert "SIGNON power@game password" in error.message
    assert "pw" not in error.text.split()


def test_orders_after_signon_are_grouped_with_line_numbers_and_comments_stripped():
    parsed = parse_text("SIGNON Fg pw\n\nA Par - Bur   // the big one\n\nF Bre - MAO\nCLEAR\nA Mar H\n")
    signon, first, clear, second = parsed.commands
    assert isinstance(first, OrderLines) and isinstance(clear, Clear) and isinstance(second, OrderLines)
    assert [(l.number, l.text) for l in first.lines] == [(3, "A Par - Bur"), (5, "F Bre - MAO")]
    assert first.texts == ("A Par - Bur", "F Bre - MAO")
    assert second.lines[0].number == 7


def test_lines_before_any_signon_are_errors_not_orders():
    parsed = parse_text("A PAR - BUR\nhello judge\nSIGNOFF")
    assert [type(c).__name__ for c in parsed.commands] == ["Signoff"]
    assert "orders must follow a SIGNON" in parsed.errors[0].message
    assert "unknown command 'hello'" in parsed.errors[1].message  # words before a command: an error


def test_a_failed_signon_sets_its_orders_aside():
    parsed = parse_text("SIGNON Fgame\nA PAR - BUR\nF BRE - MAO")
    assert parsed.commands == ()
    assert [l.text for l in parsed.unprocessed] == ["A PAR - BUR", "F BRE - MAO"]
    assert len(parsed.errors) == 1


def test_signoff_ends_the_mail_and_the_rest_is_unprocessed():
    parsed = parse_text("SIGNON Fg pw\nA PAR H\nSIGNOFF\nA MAR H\n\nJOIN other pw")
    assert isinstance(parsed.commands[-1], Signoff)
    assert [l.text for l in parsed.unprocessed] == ["A MAR H", "JOIN other pw"]
    assert len(parsed.commands) == 3


def test_clear_takes_no_arguments():
    assert "CLEAR takes nothing" in error_of("CLEAR ALL").message


def test_commands_are_case_insensitive():
    assert isinstance(only("sEt WaIt"), SetWait)
    assert isinstance(only("Signoff"), Signoff)


def test_misspelt_commands_are_named_not_taken_for_orders():
    parsed = parse_text("SIGNON Fg pw\nSIGNOF")
    assert "did you mean SIGNOFF" in parsed.errors[0].message
    assert len(parsed.commands) == 1


def test_misspelt_signon_masks_everything_after_the_verb():
    error = error_of("SIGNIN Fgame hunter2")
    assert "hunter2" not in error.text and "hunter2" not in error.message


def test_stray_endpress_is_ignored():
    parsed = parse_text("SIGNON Fg pw\nENDPRESS")
    assert parsed.errors == () and len(parsed.commands) == 1


def test_overlong_line_is_an_error_quoted_short():
    parsed = parse_text("SIGNON Fg pw\n" + "A PAR H " * 500)
    assert "at most 1000" in parsed.errors[0].message
    assert len(parsed.errors[0].text) <= 200


# --- SET ... ---------------------------------------------------------------------------------

def test_wait_nowait():
    assert only("SET WAIT").wait is True
    assert only("SET NOWAIT").wait is False
    assert only("SET NO WAIT").wait is False
    assert "SET WAIT takes nothing" in error_of("SET WAIT please").message


def test_set_password_is_masked_and_needs_one_word():
    command = only("SET PASSWORD n3w")
    assert isinstance(command, SetPassword) and command.password == "n3w"
    assert "n3w" not in command.source.text
    error = error_of("SET PASSWORD two words")
    assert "two" not in error.text and "words" not in error.text and "words" not in error.message


def test_set_address():
    assert only("SET ADDRESS Me@Example.org") == SetAddress("Me@Example.org", source=only("SET ADDRESS Me@Example.org").source)
    assert only("SET ADDRESS").address is None
    assert "not an e-mail address" in error_of("SET ADDRESS nowhere").message


def test_set_absence_forms():
    both = only("SET ABSENCE 2025-01-10 TO 14 Jan 2025")
    assert both == SetAbsence(DateSpec(2025, 1, 10), DateSpec(2025, 1, 14), source=both.source)
    assert only("SET ABSENCE TO Jan 20").start is None
    assert only("SET ABSENCE TO Jan 20").end == DateSpec(None, 1, 20)
    day = only("SET ABSENCE 3 Feb 12:30")
    assert day.start == day.end == DateSpec(None, 2, 3, time(12, 30))


@pytest.mark.parametrize("line, fragment", [
    ("SET ABSENCE", "needs a date"),
    ("SET ABSENCE 2025-02-30", "no day 30"),
    ("SET ABSENCE 14 Foo", "is not a date"),
    ("SET ABSENCE 1 Jan TO", "needs the last date"),
    ("SET ABSENCE 1 Jan 25:00", "24-hour"),
])
def test_set_absence_errors(line, fragment):
    error = error_of(line)
    assert fragment in error.message and "SET ABSENCE date [TO date]" in error.message


def test_set_zone():
    assert only("SET ZONE Europe/Paris") == SetZone("Europe/Paris", source=only("SET ZONE Europe/Paris").source)
    assert "unexpected 'extra'" in error_of("SET ZONE Europe/Paris extra").message
    assert "IANA" in error_of("SET ZONE 12:00").message


# --- draws ------------------------------------------------------------------------------------

def test_draw_votes():
    assert only("SET DRAW").powers is None
    assert only("SET DRAW ALL").powers is None
    assert only("SET DRAW AEF").powers == ("AEF",)
    assert only("SET DRAW austria, England").powers == ("AUSTRIA", "ENGLAND")
    assert isinstance(only("SET NO DRAW"), SetNoDraw) and isinstance(only("SET NODRAW"), SetNoDraw)
    assert only("SET CONCEDE france") == SetConcede("FRANCE", source=only("SET CONCEDE france").source)
    assert isinstance(only("SET NO CONCEDE"), SetNoConcede)
    assert isinstance(only("SET DRAW"), SetDraw)


def test_draw_errors():
    assert "needs the power" in error_of("SET CONCEDE").message
    assert "is not a power" in error_of("SET DRAW A!E").message
    assert "takes nothing" in error_of("SET NO DRAW AEF").message


# --- information -----------------------------------------------------------------------------

def test_information_requests():
    assert only("LIST") == ListGames(None, source=only("LIST").source)
    assert only("LIST Game1").game == "game1"
    assert isinstance(only("LIST list@lists.example.org"), ListStatus)
    assert only("SUMMARY g1").game == "g1"
    assert only("HISTORY g1 f1901m") == History("g1", "F1901M", source=only("HISTORY g1 f1901m").source)
    assert only("HISTORY S1902A").phase == "S1902A" and only("HISTORY S1902A").game is None
    assert only("HISTORY g1").phase is None
    assert isinstance(only("HELP"), Help) and isinstance(only("GET KEY"), GetKey)
    assert isinstance(only("SUMMARY"), Summary)
    assert only("MAP g1 f1901m") == MapPicture("g1", "F1901M", source=only("MAP g1 f1901m").source)
    assert (only("MAP S1902A").game, only("MAP S1902A").phase) == (None, "S1902A")
    assert (only("MAP g1").game, only("MAP g1").phase) == ("g1", None)
    assert (only("MAP").game, only("MAP").phase) == (None, None)


def test_information_errors():
    assert "phase" in error_of("HISTORY g1 spring").message
    assert "unexpected" in error_of("LIST a b").message
    assert "'spring' is not a phase" in error_of("MAP g1 spring").message
    assert "unexpected" in error_of("MAP g1 S1901M now").message
    assert "GET KEY takes nothing" in error_of("GET KEY now").message


def test_a_failing_verb_parser_costs_one_line_not_the_mail(monkeypatch):
    import mailcmds
    from judge.commands.registry import VERB_TABLE
    from mailcmds.registry import VerbTable
    from mailcmds.syntax import Verb

    def broken(ctx, line):
        raise IndexError("bug")

    table = VerbTable([verb for verb in VERB_TABLE.verbs if verb.words != ("CLEAR",)]).with_verb(
        Verb(("CLEAR",), "CLEAR", "clear", broken))
    parsed = mailcmds.parse_text("SIGNON Fg pw\nCLEAR\nSET WAIT", table)
    assert [type(c) for c in parsed.commands] == [Signon, SetWait]
    assert "could not read this line (IndexError)" in parsed.errors[0].message


def test_a_subject_is_a_command_only_when_it_is_a_whole_command_on_its_own():
    """Issue 17.6: Subject "summary" (no game) is not a command; Subject "list newbie"
    with the same line in the body is answered once, by the body's line."""
    from email.message import EmailMessage

    from judge.commands.info import ListGames, Summary
    from judge.commands.registry import parse_mail

    def mail(subject: str, body: str):
        message = EmailMessage()
        message["From"], message["Subject"] = "a@example.org", subject
        message.set_content(body)
        return parse_mail(message)

    summary = mail("summary", "SUMMARY newbie\n")
    assert [type(c) for c in summary.commands] == [Summary] and summary.commands[0].game == "newbie"
    assert summary.errors == ()
    listing = mail("list newbie", "LIST newbie\n")
    assert [(type(c), c.source.number) for c in listing.commands] == [(ListGames, 1)]
    assert listing.unprocessed == () and listing.notices == ()
    alone = mail("list newbie", "")
    assert [(type(c), c.source.number) for c in alone.commands] == [(ListGames, 0)]


@pytest.mark.parametrize("line, prose", [
    ("Thanks,", True), ("John", True), ("Sent from my iPhone", True),
    ("Sounds good, let us support each other.", True),
    ("A PAR - BUR", False), ("PAR-BUR", False), ("Par S Mar", False), ("F BRE H", False),
    ("WAIVE", False), ("jane@example.net", False), ("PAR -> BUR", False),
])
def test_looks_like_prose_tells_words_from_orders(line, prose):
    assert looks_like_prose(line) is prose


def test_words_after_the_last_order_are_set_aside_once_with_a_note():
    parsed = parse_text("SIGNON Fgame pw\nA PAR - BUR\n\nThanks,\nJohn\n")
    assert parsed.errors == ()
    [orders] = [c for c in parsed.commands if isinstance(c, OrderLines)]
    assert orders.texts == ("A PAR - BUR",)
    assert [(line.number, line.text) for line in parsed.unprocessed] == [(4, "Thanks,"), (5, "John")]
    assert [n for n in parsed.notices if "lines 4-5 after your last command or order read as words" in n]
