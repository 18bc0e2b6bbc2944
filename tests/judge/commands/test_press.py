"""PRESS and BROADCAST: relayed from the power's name, within the game's rules."""

from __future__ import annotations

from sqlalchemy import select

from judge.store.models_game import PressLog
from tests.judge.commands.conftest import MASTER, create_game, fill_game


def start(judge, *rules: str):
    create_game(judge, *(f"RULE {rule}" for rule in rules))
    return fill_game(judge)


def test_private_press_reaches_only_its_recipient_from_the_power_name(judge, started):
    france, germany = started["FRANCE"], started["GERMANY"]
    out = judge.send(france.address, f"{france.signon}\nPRESS TO G\nShall we split Belgium?\nENDPRESS\n")
    assert "press sent to GERMANY" in out.reply.body
    assert "Shall we split Belgium?" in out.reply.body  # the sender's copy
    [mail] = out.of_kind("press")
    assert mail.address == germany.address
    assert mail.subject == "g1: press from FRANCE"
    assert "Press in game g1 from FRANCE to GERMANY:\n\nShall we split Belgium?" in mail.body
    assert france.address not in mail.message.as_string()
    assert mail.message["From"].addresses[0].addr_spec == "judge@example.org"
    with judge.session() as session:
        [log] = session.execute(select(PressLog)).scalars().all()
        assert (log.sender, log.recipients, log.broadcast) == ("FRANCE", ["GERMANY"], False)


def test_broadcast_goes_to_everyone_else_with_list_headers(judge, started):
    france = started["FRANCE"]
    judge.send("watcher@example.net", "OBSERVE kibitz@g1 pw\n")
    out = judge.send(france.address, f"{france.signon}\nBROADCAST\nPeace in our time.\nENDPRESS\n")
    press = out.of_kind("press")
    expected = {seat.address for seat in started.values()} - {france.address} | {MASTER, "watcher@example.net"}
    assert {m.address for m in press} == expected
    assert all(len(m.message["To"].addresses) == 1 for m in press)
    for mail in press:
        assert mail.message["List-Id"] == "Diplomacy game g1 <g1.example.org>"
        assert mail.message["List-Unsubscribe"].startswith("<mailto:judge@example.org?")
        assert "Broadcast in game g1 from FRANCE:" in mail.body


def test_external_list_gets_one_copy(judge):
    create_game(judge, "LIST diplomacy-g1@lists.example.org")
    seats = fill_game(judge)
    france = seats["FRANCE"]
    out = judge.send(france.address, f"{france.signon}\nBROADCAST\nhello list\nENDPRESS\n")
    assert [m.address for m in out.of_kind("press")] == ["diplomacy-g1@lists.example.org"]


def test_no_press_allows_the_master_only(judge):
    seats = start(judge, "NO_PRESS")
    france = seats["FRANCE"]
    out = judge.send(france.address, f"{france.signon}\nPRESS TO G\nhi\nENDPRESS\nPRESS TO M\nhelp\nENDPRESS\n"
                                     "BROADCAST\nall\nENDPRESS\n")
    body = out.reply.body
    assert "ERROR line 2: PRESS TO G\n      this game has RULE NO_PRESS" in body
    assert "ok    line 5: PRESS TO M" in body
    assert "ERROR line 8: BROADCAST" in body
    assert [m.address for m in out.of_kind("press")] == [MASTER]


def test_public_press_allows_broadcasts_only(judge):
    seats = start(judge, "PUBLIC_PRESS")
    france = seats["FRANCE"]
    out = judge.send(france.address, f"{france.signon}\nPRESS TO GI\nx\nENDPRESS\nBROADCAST\ny\nENDPRESS\n")
    assert "RULE PUBLIC_PRESS: only broadcasts" in out.reply.body
    assert len(out.of_kind("press")) == 7  # the six other players and the master
    assert all("Broadcast" in m.body for m in out.of_kind("press"))


def test_grey_press_needs_its_rule_and_hides_the_sender(judge):
    seats = start(judge, "GREY_PRESS")
    france = seats["FRANCE"]
    out = judge.send(france.address, f"{france.signon}\nPRESS TO E GREY\nboo\nENDPRESS\n")
    [mail] = out.of_kind("press")
    assert "FRANCE" not in mail.body and "FRANCE" not in mail.subject
    assert "from an anonymous power (grey press)" in mail.body


def test_grey_press_refused_without_the_rule(judge, started):
    france = started["FRANCE"]
    out = judge.send(france.address, f"{france.signon}\nPRESS TO E GREY\nboo\nENDPRESS\nA PAR - BUR\n")
    assert "grey press is not allowed in this game" in out.reply.body
    assert out.of_kind("press") == []
    assert "accepted: A PAR - BUR" in out.reply.body  # nothing else in the mail is lost


def test_gunboat_allows_no_press_until_the_end(judge):
    seats = start(judge, "GUNBOAT")
    france = seats["FRANCE"]
    out = judge.send(france.address, f"{france.signon}\nBROADCAST\nhi\nENDPRESS\n")
    assert "gunboat game (RULE GUNBOAT)" in out.reply.body
    assert out.of_kind("press") == []


def test_late_power_may_not_send_private_press_after_the_deadline(judge, started):
    france, germany = started["FRANCE"], started["GERMANY"]
    judge.advance(days=7)
    late = judge.send(france.address, f"{france.signon}\nPRESS TO G\nsorry\nENDPRESS\n").reply.body
    assert "FRANCE is late: after the deadline a late power may send only broadcast press" in late
    to_master = judge.send(france.address, f"{france.signon}\nPRESS TO M\nsorry\nENDPRESS\n").reply.body
    assert "press sent to MASTER" in to_master


def test_unknown_recipient_is_a_clear_error(judge, started):
    france = started["FRANCE"]
    body = judge.send(france.address, f"{france.signon}\nPRESS TO X\nhi\nENDPRESS\n").reply.body
    assert "'X' is not the initial of a power of this game" in body


def test_press_before_the_game_starts_goes_to_the_master_only(judge):
    create_game(judge)
    body = judge.send("a@example.net", "JOIN g1 pw\nBROADCAST\nhi\nENDPRESS\n").reply.body
    assert "press between players starts when the game has started" in body
