"""One mail costs a bounded amount of work and reply (issue 12.1), through the real worker."""

from __future__ import annotations

import re


from judge.commands.reply import MAX_REPLY_CHARS
from mailcmds.syntax import MAX_COMMANDS_PER_MAIL
from tests.judge.commands.conftest import create_game, fill_game  # noqa: F401



def test_help_a_hundred_thousand_times_is_answered_once(judge):
    body = "HELP\n" * 100_000  # 500 KB of mail
    reply = judge.send("flood@example.net", body).reply.body
    assert reply.count("HOW TO WRITE TO THE JUDGE") == 1
    assert len(reply) < 20_000
    assert "answered once" in reply and "were not read: send them in another mail" in reply
    assert "... and 99979 more lines" in reply


def test_a_thousand_helps_in_a_small_mail_make_one_small_reply(judge):
    reply = judge.send("flood@example.net", "HELP\n" * 1000).reply.body
    assert reply.count("HOW TO WRITE TO THE JUDGE") == 1 and len(reply) < 16_000  # one HELP (with its order forms and 16 maps)


def test_the_same_list_asked_twice_is_answered_once_but_different_requests_are_all_answered(judge):
    create_game(judge)
    create_game(judge, name="g2")
    reply = judge.send("curious@example.net", "LIST g1\nLIST g2\nLIST g1\n").reply.body
    assert reply.count("Game g1") == 1 and reply.count("Game g2") == 1
    assert "line 3: LIST g1" in reply.split("Lines not processed:")[1]
    assert "answered once (line 3 not processed)" in reply


def test_orders_past_the_line_limit_are_set_aside_not_lost_silently(judge):
    create_game(judge)
    seats = fill_game(judge)
    france = seats["FRANCE"]
    body = f"{france.signon}\n" + "A PAR - BUR\n" * 600 + "SET WAIT\n"
    reply = judge.send(france.address, body).reply.body
    assert "were not read: send them in another mail" in reply
    assert "line 602: SET WAIT" not in reply.split("Lines not processed:")[0]  # not done
    assert "ok    line 2: A PAR - BUR" in reply and "ok    line 500: A PAR - BUR" in reply
    assert "line 501: A PAR - BUR" in reply.split("Lines not processed:")[1]


def test_commands_past_the_command_limit_are_not_run(judge):
    create_game(judge)
    lines = [f"LIST g{i}" for i in range(MAX_COMMANDS_PER_MAIL + 20)]
    reply = judge.send("curious@example.net", "\n".join(lines) + "\n").reply.body
    assert f"LIST g{MAX_COMMANDS_PER_MAIL - 1}" in reply
    assert reply.count("ERROR line") == MAX_COMMANDS_PER_MAIL - 1  # every game but g1 is unknown
    assert "were not read" in reply


def test_a_reply_is_cut_at_its_limit_with_a_line_that_says_so():
    from judge.commands.reply import bounded

    long = "x" * 80 + "\n"
    body = long * (MAX_REPLY_CHARS // 81 + 100)
    cut = bounded(body)
    assert len(cut) < MAX_REPLY_CHARS + 300 and "The reply was cut here" in cut
    assert bounded("short\n") == "short\n"


def test_a_mail_past_the_read_limit_is_read_up_to_it_and_the_reply_says_so(judge):
    """Issue 12.1, memory per mail: a 10 MB flood of HELP lines took the worker to 430 MB
    (the email parser and the extractor hold every line); only the first MB is read now.
    The peak itself is measured in tests/reliability/test_hostile_mail.py."""
    from judge.mailio.read import READ_LIMIT_BYTES

    reply = judge.send("flood@example.net", "LIST\n" + "HELP\n" * (2 * READ_LIMIT_BYTES // 5)).reply.body
    assert "it is longer than the 1,024 KB of a mail the judge reads, so what follows them was not read" in reply
    assert reply.count("HOW TO WRITE TO THE JUDGE") == 1 and "Youngstown Redux" in reply  # HELP and LIST answered
    set_aside = int(re.search(r"the (\d+) lines after line 500 were not read", reply).group(1))
    assert 100_000 < set_aside < 2 * READ_LIMIT_BYTES // 5 - 500  # what was read, not the whole mail
