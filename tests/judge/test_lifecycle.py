"""The game's lifecycle (judge/lifecycle.py) and the unit of work's rescheduling
(judge/store/schedule.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from judge.lifecycle import (
    STATUS_TEXT,
    TRANSITIONS,
    GameStatus,
    TransitionRefused,
    before_start,
    in_play,
    is_live,
    may_move,
    move,
    seats_players,
    status_text,
    statuses_where,
)
from judge.mailio.inbound import CommandRefused
from judge.store.models_game import Game, Membership
from tests.judge.commands.conftest import MASTER, create_game, fill_game  # noqa: F401
from tests.judge.commands.harness import JudgeHarness


class _Game:
    def __init__(self, status: str) -> None:
        self.name, self.status = "g1", status


def test_every_status_has_moves_and_words():
    assert set(TRANSITIONS) == set(GameStatus) == set(STATUS_TEXT)
    for targets in TRANSITIONS.values():
        assert targets and all(isinstance(target, GameStatus) for target in targets)


def test_what_each_status_permits():
    assert statuses_where(before_start) == ("preparation", "forming")
    assert statuses_where(in_play) == ("active", "paused")
    assert statuses_where(seats_players) == ("forming", "active", "paused")
    assert statuses_where(is_live) == ("preparation", "forming", "active", "paused")
    # each status is either before the start, in play or over: no gap, no overlap
    for status in GameStatus:
        assert [before_start(status.value), in_play(status.value), not is_live(status.value)].count(True) == 1


def test_a_move_may_name_its_target_by_the_stored_string():
    game = _Game("forming")
    move(game, "active")
    assert game.status == "active"
    assert may_move("active", "paused") and not may_move("active", "forming")


def test_a_stored_status_is_named_in_words_and_an_unknown_one_as_stored():
    assert status_text("forming") == "forming (waiting for players)"
    assert status_text(GameStatus.PAUSED) == "paused by the master"
    assert status_text("archived") == "archived"


@pytest.mark.parametrize("start, target", [(s, t) for s in GameStatus for t in GameStatus if t in TRANSITIONS[s]])
def test_allowed_moves_set_the_stored_value(start, target):
    game = _Game(start.value)
    move(game, target)
    assert game.status == target.value and type(game.status) is str


def test_a_move_the_table_does_not_allow_is_refused_naming_both_statuses():
    game = _Game("ended")
    assert not may_move("ended", GameStatus.PAUSED)
    with pytest.raises(TransitionRefused) as refused:
        move(game, GameStatus.PAUSED)
    assert game.status == "ended"
    assert "is ended: it cannot become paused" in str(refused.value) and "active (by ROLLBACK)" in str(refused.value)
    assert isinstance(refused.value, CommandRefused)  # a mail's command gets it as an error line



def _game(judge: JudgeHarness) -> Game:
    with judge.session() as session:
        game = session.execute(select(Game)).scalar_one()
        session.expunge(game)
        return game


def _set_due(judge: JudgeHarness, when) -> None:
    with judge.session() as session:
        session.execute(select(Game)).scalar_one().next_due_at = when


def test_a_mail_that_touches_an_active_game_makes_it_due_without_the_handler_asking(judge):
    create_game(judge)
    seats = fill_game(judge)
    far = judge.now + timedelta(days=30)
    _set_due(judge, far)
    judge.advance(hours=1)
    france = seats["FRANCE"]
    judge.send(france.address, f"{france.signon}\nSET WAIT\n")  # a membership row changes
    assert _game(judge).next_due_at.replace(tzinfo=judge.now.tzinfo) == judge.now


def test_a_mail_that_changes_no_game_leaves_the_schedule_alone(judge):
    create_game(judge)
    fill_game(judge)
    far = judge.now + timedelta(days=30)
    _set_due(judge, far)
    judge.send("curious@example.net", "LIST g1\n")
    assert _game(judge).next_due_at.replace(tzinfo=far.tzinfo) == far


def test_a_game_that_is_not_active_leaves_the_index(judge):
    create_game(judge)
    seats = fill_game(judge)
    assert _game(judge).next_due_at is not None
    judge.send(MASTER, "SIGNON master@g1 masterpw\nPAUSE\n")
    assert _game(judge).status == "paused" and _game(judge).next_due_at is None
    with judge.session() as session:
        assert session.execute(select(Membership).where(Membership.power == "FRANCE")).scalar_one()
    assert seats


def test_a_transaction_that_schedules_a_game_itself_keeps_its_time(judge):
    create_game(judge)
    fill_game(judge)
    exact = judge.now + timedelta(days=2)
    with judge.store.unit_of_work(now=judge.now) as session:
        game = session.execute(select(Game)).scalar_one()
        game.delay = 3
        game.next_due_at = exact
    assert _game(judge).next_due_at.replace(tzinfo=exact.tzinfo) == exact
