"""CREATE, FORM, JOIN, OBSERVE and the start of a game."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from judge.store.queries import as_utc
from judge.lifecycle import ACTIVE, FORMING, PREPARATION
from judge.store.models_game import Game, Membership
from judge.store.models_mail import OutboxMessage
from tests.judge.commands.conftest import MASTER, create_game, fill_game
from tests.judge.commands.harness import POWERS, START, player


def game_row(judge, name="g1") -> Game:
    with judge.session() as session:
        return session.execute(select(Game).where(Game.name == name)).scalar_one()


def test_create_makes_a_game_in_preparation_with_its_status_lines(judge):
    reply = judge.send(MASTER, "CREATE g1 masterpw\nRULE POWER_CHOICE\nTIMING MOVE 2D AT 20:00\n"
                               "DESC Friendly game\nZONE europe/paris\n").reply
    assert "ERROR" not in reply.body
    game = game_row(judge)
    assert game.status == PREPARATION
    assert game.rules == ["POWER_CHOICE"]
    assert game.zone == "Europe/Paris"
    assert "MOVE 2D" in game.timing["text"] and "AT 20:00" in game.timing["text"]
    assert "ZONE Europe/Paris" in game.timing["text"]
    assert game.description == "Friendly game"
    assert "masterpw" not in reply.body and game.master_password_hash.startswith("scrypt$")


def test_join_before_form_is_refused_and_after_form_accepted(judge):
    create_game(judge, form=False)
    refused = judge.send(player(0), "JOIN g1 pw0\n").reply
    assert "ERROR line 1: JOIN g1 ******" in refused.body
    assert "has not sent FORM" in refused.body
    assert judge.send(MASTER, "SIGNON master@g1 masterpw\nFORM\n").reply.body.count("ok ") == 2
    assert game_row(judge).status == FORMING
    joined = judge.send(player(0), "JOIN g1 pw0\n").reply
    assert "1 of 7 places taken" in joined.body


def test_create_with_errors_keeps_the_good_lines(judge):
    reply = judge.send(MASTER, "CREATE g1 masterpw\nRULE NO_SUCH_RULE\nMAP atlantis\nRULE NO_PRESS\n").reply
    assert "ERROR line 2: RULE NO_SUCH_RULE" in reply.body and "known rules:" in reply.body
    assert "ERROR line 3: MAP atlantis" in reply.body and "unknown map 'atlantis'" in reply.body
    assert game_row(judge).rules == ["NO_PRESS"]
    again = judge.send("other@example.net", "CREATE g1 pw\n").reply
    assert "already exists" in again.body


def test_no_such_game_and_wrong_power_choice(judge):
    create_game(judge)
    reply = judge.send(player(0), "JOIN nosuch pw\nJOIN france@g1 pw\n").reply
    assert "there is no game 'nosuch'" in reply.body
    assert "does not let players choose" in reply.body
    assert reply.body.count("ERROR line") == 2


def test_power_choice_reserves_the_power_and_refuses_it_twice(judge):
    create_game(judge, "RULE POWER_CHOICE")
    assert "as FRANCE" in judge.send(player(0), "JOIN france@g1 pw0\n").reply.body
    taken = judge.send(player(1), "JOIN F@g1 pw1\n").reply.body
    assert "FRANCE is taken" in taken and "still free" in taken
    for index in range(1, 7):
        judge.send(player(index), f"JOIN g1 pw{index}\n")
    with judge.session() as session:
        rows = session.execute(select(Membership).where(Membership.role == "player")).scalars().all()
        assert {m.address: m.power for m in rows}[player(0)] == "FRANCE"
        assert sorted(m.power for m in rows) == sorted(POWERS)


def test_the_last_join_starts_the_game_and_tells_everyone(judge):
    create_game(judge, "TIMING MOVE 2D")
    for index in range(6):
        judge.send(player(index), f"JOIN g1 pw{index}\n")
    assert game_row(judge).status == FORMING
    out = judge.send(player(6), "JOIN g1 pw6\n")
    game = game_row(judge)
    assert game.status == ACTIVE and game.phase == "S1901M"
    assert game.position["phase"] == "S1901M" and game.position["units"]["FRANCE"] == ["F BRE", "A MAR", "A PAR"]
    assert as_utc(game.deadline) == START + timedelta(days=4)  # first phase: twice MOVE 2D
    assert as_utc(game.next_due_at) == START
    starts = out.of_kind("game_start")
    personal = {m.address: m for m in starts if m.address.startswith("player")}
    assert len(personal) == 7
    told = {m.subject.rsplit(" ", 1)[1] for m in personal.values()}
    assert told == set(POWERS)
    for mail in personal.values():
        power = mail.subject.rsplit(" ", 1)[1]
        assert f"You play {power}." in mail.body
        assert "Deadline for S1901M: Fri 6 Mar 2026 12:00 UTC" in mail.body
        assert "FRANCE   units: F BRE, A MAR, A PAR" in mail.body
        assert mail.message["List-Id"] == "Diplomacy game g1 <g1.example.org>"
    [master_copy] = out.to(MASTER)
    assert "Game g1 has started" in master_copy.body and "You play" not in master_copy.body
    assert "game 'g1' is full and has started: you play" in out.reply.body
    full = judge.send("late@example.net", "JOIN g1 pw\n").reply.body
    assert "has started; TAKEOVER" in full


def test_masters_first_deadline_is_kept_when_later(judge):
    create_game(judge, "DEADLINE 2026-03-20 18:00")
    fill_game(judge)
    assert as_utc(game_row(judge).deadline) == START.replace(month=3, day=20, hour=18)


def test_one_place_per_address_and_private_keyword(judge):
    create_game(judge, "PRIVATE sesame")
    no_keyword = judge.send(player(0), "JOIN g1 pw0\n").reply.body
    assert "is private" in no_keyword
    wrong = judge.send(player(0), "JOIN g1 pw0 opensesame\n").reply.body
    assert "wrong keyword" in wrong and "opensesame" not in wrong
    assert "1 of 7" in judge.send(player(0), "JOIN g1 pw0 sesame\n").reply.body
    twice = judge.send(player(0), "JOIN g1 other sesame\n").reply.body
    assert "already has a place" in twice


def test_observer_gets_broadcasts_and_cannot_take_a_power_name(judge):
    create_game(judge)
    assert "ERROR" in judge.send("watcher@example.net", "OBSERVE france@g1 pw\n").reply.body
    ok = judge.send("watcher@example.net", "OBSERVE kibitz@g1 pw\n").reply.body
    assert "you observe game 'g1' as KIBITZ" in ok
    out = None
    for index in range(7):
        out = judge.send(player(index), f"JOIN g1 pw{index}\n")
    assert [m.kind for m in out.to("watcher@example.net")] == ["game_start"]


def test_passwords_are_never_in_any_outgoing_mail(judge, started):
    with judge.session() as session:
        raws = [row.raw for row in session.execute(select(OutboxMessage)).scalars()]
    assert raws
    for raw in raws:
        assert b"masterpw" not in raw
        assert not any(f"pw{index}".encode() in raw for index in range(7))
