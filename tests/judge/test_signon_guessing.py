"""Password guessing (issue 12.2): one sign-on attempt per game and power in a mail."""

from __future__ import annotations

import pytest

from tests.judge.services.conftest import MASTER, cheap_scrypt, create_game, fill_game  # noqa: F401
from tests.judge.services.harness import JudgeHarness


@pytest.fixture
def judge(tmp_path):
    harness = JudgeHarness(tmp_path)
    yield harness
    harness.close()


def test_two_hundred_guesses_in_one_mail_try_one_and_show_nothing(judge):
    create_game(judge)
    guesses = [f"SIGNON master@g1 guess{n}" for n in range(199)] + ["SIGNON master@g1 masterpw", "PAUSE"]
    body = judge.send("attacker@example.net", "\n".join(guesses) + "\n").reply.body
    assert body.count("wrong password") == 1
    # the next 99 are refused unread; the rest are past the 100 commands a mail may hold
    assert body.count("not tried: one sign-on attempt for MASTER in game 'g1' per mail") == 99
    assert "were not read" in body
    assert "signed on as MASTER" not in body  # the right password, sent 200th, was not tried either
    assert "masterpw" not in body


def test_the_owner_signs_on_in_the_next_mail(judge):
    create_game(judge)
    judge.send("attacker@example.net", "SIGNON master@g1 wrong\nSIGNON master@g1 wrong2\n")
    body = judge.send(MASTER, "SIGNON master@g1 masterpw\n").reply.body
    assert "signed on as MASTER" in body


def test_other_powers_in_the_same_mail_are_still_tried(judge):
    create_game(judge)
    seats = fill_game(judge)
    france, italy = seats["FRANCE"], seats["ITALY"]
    body = judge.send(france.address, f"SIGNON france@g1 wrong\n{italy.signon}\nSIGNON france@g1 {france.password}\n").reply.body
    assert "signed on as ITALY" in body
    assert "not tried: one sign-on attempt for FRANCE" in body
