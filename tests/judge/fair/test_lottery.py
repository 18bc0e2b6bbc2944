import pytest

from judge.fair.assignment import contest_from_weights
from judge.fair.lottery import Lottery, LotteryError, Stage, check_number, parse_number

PLAYERS = ("1", "2", "3", "4", "5", "6", "7")


def published(outcomes: int = 7, players: tuple[str, ...] = PLAYERS) -> Lottery:
    lottery = Lottery.announce(outcomes, players)
    for player in players:
        lottery = lottery.commit(player)
    return lottery.publish_commitments()


def test_reference_numbers_sum_to_26_and_give_france_to_player_6() -> None:
    lottery = published()
    for player, number in zip(PLAYERS, [0, 4, 3, 6, 6, 2, 5]):
        assert lottery.stage is Stage.REVEALING
        lottery = lottery.reveal(player, number)
    assert lottery.stage is Stage.CLOSED  # the last reveal closes it
    outcome = lottery.outcome()
    assert outcome.total == 26 and outcome.number == 5 and outcome.defaulted == ()
    france = contest_from_weights("F", [("2", 1), ("3", 3), ("6", 1)])
    assert france.winner(outcome.number) == "6"


def test_a_player_who_does_not_reveal_counts_as_zero_and_is_named() -> None:
    lottery = published()
    for player, number in zip(PLAYERS[:-1], [1, 1, 1, 1, 1, 1]):
        lottery = lottery.reveal(player, number)
    assert lottery.missing_reveals == ("7",)
    with pytest.raises(LotteryError, match="reveals are still awaited"):
        lottery.outcome()
    outcome = lottery.close().outcome()
    assert outcome.defaulted == ("7",)
    assert dict(outcome.counted)["7"] == 0 and outcome.number == 6


def test_reveal_before_the_commitments_are_published_is_refused() -> None:
    lottery = Lottery.announce(7, PLAYERS).commit("1")
    with pytest.raises(LotteryError, match="cannot reveal yet: the commitments are not published"):
        lottery.reveal("1", 3)


def test_number_outside_the_range_is_refused_and_quoted() -> None:
    lottery = published()
    with pytest.raises(LotteryError, match=r"number 7 is outside 0\.\.6"):
        lottery.reveal("1", 7)
    with pytest.raises(LotteryError, match=r"'seven' is not a number: give a whole number from 0 to 6"):
        parse_number("seven", 7)
    with pytest.raises(LotteryError, match=r"number -2 is outside"):
        check_number(-2, 7)
    assert parse_number(" 6 ", 7) == 6
    with pytest.raises(LotteryError, match="number 9 is outside"):
        parse_number("9", 7)


def test_commitments_are_published_only_when_all_are_in_unless_the_deadline_passed() -> None:
    lottery = Lottery.announce(3, ("a", "b", "c")).commit("a").commit("a")
    with pytest.raises(LotteryError, match="commitments missing from b, c"):
        lottery.publish_commitments()
    late = lottery.publish_commitments(deadline_passed=True)
    with pytest.raises(LotteryError, match="no commitment was made in time"):
        late.reveal("b", 1)
    with pytest.raises(LotteryError, match="already published"):
        late.commit("b")
    outcome = late.reveal("a", 2).close().outcome()
    assert outcome.number == 2 and outcome.defaulted == ("b", "c")


def test_reveals_are_single_and_only_from_participants() -> None:
    lottery = published(3, ("a", "b"))
    lottery = lottery.reveal("a", 1)
    assert lottery.reveal("a", 1) == lottery  # a repeated email changes nothing
    with pytest.raises(LotteryError, match="already revealed 1, not 2"):
        lottery.reveal("a", 2)
    with pytest.raises(LotteryError, match="'z' does not take part"):
        lottery.reveal("z", 0)
    closed = lottery.reveal("b", 0)
    with pytest.raises(LotteryError, match="closed"):
        closed.reveal("b", 0)


def test_bad_announcements_are_refused() -> None:
    with pytest.raises(LotteryError):
        Lottery.announce(0, ("a",))
    with pytest.raises(LotteryError):
        Lottery.announce(3, ("a", "a"))
    with pytest.raises(LotteryError, match="before the commitments"):
        Lottery.announce(3, ("a",)).close()
