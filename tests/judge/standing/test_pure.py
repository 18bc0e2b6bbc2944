"""The standing computations on hand-made games: results, dedication, ratings."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from judge.standing.dedication import dedication, on_time_ratio
from judge.standing.facts import FinishedGame, Pool, Punctuality, Result, Seat
from judge.standing.keeping import verdict_of
from judge.standing.rating import NEWCOMER, rate_all, rate_game
from judge.standing.reading import finished_game, pool_of, shown_name, MemberRow
from judge.standing.tally import Part, tally
from judge.store.models_standing import LATE, MISSED, ON_TIME

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")


def game(number: int, results: dict[str, Result], pool: Pool = Pool.PRESS, draw: int = 0) -> FinishedGame:
    seats = tuple(Seat(player, power, result, draw if result is Result.DRAW else 0)
                  for (player, result), power in zip(results.items(), POWERS))
    return FinishedGame(number, f"g{number}", T0 + timedelta(days=number), pool, seats)


def test_dedication_formula_and_ratio():
    assert dedication(Punctuality(), 0) == 0
    assert dedication(Punctuality(on_time=30, late=2, missed=1), 1) == 30 - 4 - 5 - 20
    assert on_time_ratio(Punctuality()) is None
    assert on_time_ratio(Punctuality(3, 1, 0)) == 0.75


def test_verdicts_from_the_deadline():
    deadline = T0
    assert verdict_of(True, T0 - timedelta(minutes=1), deadline) == ON_TIME
    assert verdict_of(True, T0, deadline) == ON_TIME
    assert verdict_of(True, T0 + timedelta(seconds=1), deadline) == LATE
    assert verdict_of(False, None, deadline) == MISSED
    assert verdict_of(True, None, deadline) == ON_TIME  # sealed reveals: no mail time


def test_a_solo_ranks_winner_over_survivors_over_eliminated_over_leavers():
    solo = game(1, {"win": Result.SOLO, "s1": Result.SURVIVED, "s2": Result.SURVIVED, "e1": Result.ELIMINATED,
                    "e2": Result.ELIMINATED, "e3": Result.ELIMINATED, "quit": Result.ABANDONED})
    after = {c.player: c.skill for c in rate_game(solo, {})}
    assert after["win"].shown > after["s1"].shown > after["e1"].shown > after["quit"].shown
    assert after["s1"] == after["s2"] and after["e1"] == after["e3"]  # ties share a rank
    assert after["win"].shown > NEWCOMER.shown > after["quit"].shown


def test_draw_shares_and_pools_kept_apart():
    draw = game(1, {"a": Result.DRAW, "b": Result.DRAW, "c": Result.DRAW, "d": Result.ELIMINATED,
                    "e": Result.ELIMINATED, "f": Result.ELIMINATED, "g": Result.ELIMINATED}, draw=3)
    assert draw.seats[0].draw_share == pytest.approx(1 / 3)
    gunboat = game(2, {"a": Result.ELIMINATED, "b": Result.SOLO, "x": Result.SURVIVED}, pool=Pool.GUNBOAT)
    changes = list(rate_all([draw, gunboat]))
    press_a = next(c for c in changes if c.player == "a" and c.pool is Pool.PRESS)
    gunboat_a = next(c for c in changes if c.player == "a" and c.pool is Pool.GUNBOAT)
    # the gunboat game starts from a newcomer's rating, not from the press draw
    assert gunboat_a.skill.shown < NEWCOMER.shown < press_a.skill.shown


def test_a_machine_with_several_seats_moves_by_their_average():
    many = game(1, {"bot:JudgeBot": Result.SOLO, "h1": Result.ELIMINATED, "h2": Result.ELIMINATED})
    seats = many.seats + (Seat("bot:JudgeBot", "ITALY", Result.ELIMINATED),)
    mixed = FinishedGame(1, "g1", T0, Pool.PRESS, seats)
    alone = {c.player: c.skill for c in rate_game(many, {})}
    both = {c.player: c.skill for c in rate_game(mixed, {})}
    assert [c.player for c in rate_game(mixed, {})].count("bot:JudgeBot") == 1
    assert NEWCOMER.mu < both["bot:JudgeBot"].mu < alone["bot:JudgeBot"].mu
    assert rate_game(game(2, {"solo": Result.SOLO}), {}) == ()  # one player: nothing learnt


def test_stored_rows_become_seats():
    class Row:
        id, name, ended_at, rules = 7, "g7", T0, ["GUNBOAT"]
        outcome = {"result": "draw", "powers": ["ENGLAND", "FRANCE"]}
        units = {"ENGLAND": ["F LON"], "GERMANY": ["A BER"]}
        centers = {"ENGLAND": ["LON"], "FRANCE": ["PAR"], "GERMANY": ["BER"], "ITALY": []}
    members = [MemberRow(1, 7, "ENGLAND", "Anna@Example.net", "active"),
               MemberRow(2, 7, "FRANCE", "bob@example.net", "active"),
               MemberRow(3, 7, "GERMANY", "machine1.g7@machines.invalid", "active"),
               MemberRow(4, 7, "ITALY", "judge-bot1.g7@machines.invalid", "active"),
               MemberRow(5, 7, "RUSSIA", "carl@example.net", "resigned")]
    finished = finished_game(Row, members, {3: "DumbBot"}, {"bob@example.net": "Bobby"})
    assert finished is not None and finished.pool is Pool.GUNBOAT
    assert [(s.player, s.result, s.draw_size) for s in finished.seats] == [
        ("anna@example.net", Result.DRAW, 2), ("Bobby", Result.DRAW, 2),
        ("machine:DumbBot", Result.SURVIVED, 0), ("bot:JudgeBot", Result.ELIMINATED, 0),
        ("carl@example.net", Result.ABANDONED, 0)]
    Row.outcome = {}
    assert finished_game(Row, members, {}, {}) is None  # terminated: not rated
    assert pool_of(["NO_PRESS"]) is Pool.GUNBOAT and pool_of(["GRACE_BUDGET 2"]) is Pool.PRESS
    assert shown_name("anna@example.net") == "a...@example.net"
    assert shown_name("machine:DumbBot") == "DumbBot (machine)"


def test_tally_counts_games_results_and_leaving():
    parts = [Part(1, "FRANCE", False, None, Seat("p", "FRANCE", Result.SOLO)),
             Part(2, "FRANCE", False, None, Seat("p", "FRANCE", Result.DRAW, 4)),
             Part(3, "ENGLAND", False, "abandoned", Seat("p", "ENGLAND", Result.ABANDONED)),
             Part(4, "ITALY", True, None, None),
             Part(5, "TURKEY", False, "civil_disorder", None)]
    record = tally("p", parts, Punctuality(20, 1, 2), [("press", 3.5)])
    assert (record.games, record.playing, record.finished) == (5, 1, 3)
    assert record.powers[0] == ("FRANCE", 2)
    assert (record.solos, record.draws, record.draw_share) == (1, 1, 0.25)
    assert (record.abandoned, record.civil_disorder) == (1, 1)
    assert record.dedication == 20 - 2 - 10 - 40
    text = "\n".join(record.lines())
    assert "Dedication: -32" in text and "Rating (press): 3.5" in text and "(on time 87%)" in text
