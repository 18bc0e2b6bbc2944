"""Password guessing (issue 12.2): one sign-on attempt per game and power in a mail."""

from __future__ import annotations


from tests.judge.commands.conftest import MASTER, create_game, fill_game  # noqa: F401



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


def test_separate_wrong_passwords_from_one_address_are_throttled(judge):
    create_game(judge)
    replies = [judge.send("attacker@example.net", f"SIGNON master@g1 guess{n}\n").reply.body for n in range(20)]
    assert sum("wrong password" in body for body in replies) == 3
    assert "sign-ons from attacker@example.net were refused in the last day" in replies[3]
    assert "wrong password" not in replies[19]
    judge.advance(minutes=2)  # after 3 refusals the wait is one minute
    assert "wrong password" in judge.send("attacker@example.net", "SIGNON master@g1 guess20\n").reply.body
    body = judge.send("attacker@example.net", "SIGNON master@g1 guess21\n").reply.body
    assert "wrong password" not in body and "read from" in body  # now two minutes


def test_many_addresses_against_one_account_are_throttled_but_the_owner_is_not(judge):
    create_game(judge)
    seats = fill_game(judge)
    france = seats["FRANCE"]
    bodies = [judge.send(f"bot{n}@example.net", f"SIGNON france@g1 guess{n}\n").reply.body for n in range(10)]
    assert sum("wrong password" in body for body in bodies) == 3
    assert "sign-ons for FRANCE in game 'g1' were refused in the last day" in bodies[5]
    owner = judge.send(france.address, f"{france.signon}\n").reply.body
    assert "signed on as FRANCE" in owner
    # another address's attack never throttles this owner's own address
    judge.send("attacker@example.net", "SIGNON master@g1 a\nLIST\n")
    assert "signed on as FRANCE" in judge.send(france.address, f"{france.signon}\n").reply.body


def test_refused_sign_ons_are_forgotten_after_a_day(judge):
    from sqlalchemy import func, select

    from judge.store.models_signon import SignonFailure
    from judge.store.retention import purge_signon_failures

    create_game(judge)
    judge.send("attacker@example.net", "SIGNON master@g1 wrong\n")
    judge.advance(days=1, minutes=1)
    assert purge_signon_failures(judge.store, judge.now) == 1
    with judge.session() as session:
        assert session.execute(select(func.count()).select_from(SignonFailure)).scalar() == 0
