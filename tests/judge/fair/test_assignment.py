from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.fair.assignment import (
    AssignmentError,
    AssignmentState,
    Contest,
    Decision,
    apply_outcome,
    contest_from_weights,
    next_contest,
    replay,
    reserve_contest,
    start_assignment,
)
from judge.fair.lottery import Lottery, LotteryError
from judge.fair.preferences import parse_preferences

STANDARD = "AEFGIRT"

# The lists of the worked example in "Email Diplomacy without a GM" (reference 002).
REFERENCE_LISTS = ["AE(GI)R", "FRG", "(EFG)TI(AR)", "E", "", "FRA", "GRA", "%REG"]


def entries(lists: list[str], letters: str = STANDARD) -> list[tuple[str, object]]:
    return [(str(number), parse_preferences(text, letters)) for number, text in enumerate(lists, start=1)]


def shares(contest: Contest) -> list[tuple[str | None, int, range]]:
    return [(share.player, share.chances, share.numbers) for share in contest.shares]


def reference_start() -> AssignmentState:
    return start_assignment(STANDARD, entries(REFERENCE_LISTS))


def test_reference_first_pass_gives_austria_unopposed_and_sets_the_reserve_aside() -> None:
    state = reference_start()
    assert state.decisions == (Decision("A", "1", "unopposed"),)
    assert state.players == ("1", "2", "3", "4", "5", "6", "7")
    assert [player for player, _ in state.reserves] == ["8"]


def test_reference_france_contest_has_the_published_odds_and_ranges() -> None:
    contest = next_contest(reference_start())
    assert contest is not None and contest.power == "F"
    # "Players 2 and 6 get 3 chances each, player 3 gets one chance. There are seven outcomes."
    assert contest.outcomes == 7
    # "if zero, one or two then player 2 gets France. If three then player 3 ..., else player six"
    assert shares(contest) == [("2", 3, range(0, 3)), ("3", 1, range(3, 4)), ("6", 3, range(4, 7))]


def test_reference_lottery_gives_france_to_player_6_and_the_next_pass_runs() -> None:
    state = reference_start()
    contest = next_contest(state)
    assert contest is not None
    lottery = Lottery.announce(contest.outcomes, state.players)
    for player in state.players:
        lottery = lottery.commit(player)
    lottery = lottery.publish_commitments()
    for player, number in zip(state.players, [0, 4, 3, 6, 6, 2, 5]):
        lottery = lottery.reveal(player, number)
    outcome = lottery.outcome()
    assert (outcome.total, outcome.number) == (26, 5)

    state = apply_outcome(state, contest, outcome.number)
    assert state.assignment == {"1": "A", "6": "F", "2": "R"}  # France gone: Russia unopposed for 2
    assert state.decisions[1] == Decision("F", "6", "lottery", 5)
    # "if Player 3 does NOT get France, they should still only get 1/3 of a shot at England or Germany"
    england = next_contest(state)
    assert england is not None and england.power == "E"
    assert shares(england) == [("3", 1, range(0, 1)), ("4", 3, range(1, 4))]


def test_reference_run_to_the_end_assigns_every_power_once() -> None:
    state = reference_start()
    numbers = iter([5, 0, 1])
    while (contest := next_contest(state)) is not None:
        state = apply_outcome(state, contest, next(numbers))
    assert state.finished
    assert state.assignment == {"1": "A", "6": "F", "2": "R", "3": "E", "7": "G", "4": "T", "5": "I"}
    assert state.unassigned_players == () and state.unplayed_powers == ()


def test_replay_recomputes_the_assignment_from_the_lottery_results() -> None:
    audited = replay(STANDARD, entries(REFERENCE_LISTS), [5, 0, 1])
    assert audited.finished and audited.assignment["6"] == "F" and audited.assignment["3"] == "E"
    assert [d.number for d in audited.decisions if d.how == "lottery"] == [5, 0, 1]
    with pytest.raises(AssignmentError, match="4 lottery results given, but only 3 lotteries were run"):
        replay(STANDARD, entries(REFERENCE_LISTS), [5, 0, 1, 2])
    assert not replay(STANDARD, entries(REFERENCE_LISTS), [5]).finished


def test_most_contested_power_goes_first_then_map_order() -> None:
    state = start_assignment(STANDARD, entries(["G", "G", "E", "E", "G", "*", "*"]))
    contest = next_contest(state)
    assert contest is not None and contest.power == "G" and contest.outcomes == 3
    tied = start_assignment(STANDARD, entries(["G", "G", "E", "E", "*", "*", "*"]))
    contest = next_contest(tied)
    assert contest is not None and contest.power == "E"


def test_group_weight_is_fixed_when_the_group_becomes_current() -> None:
    # Player 1 wants (ER) after T; England has gone to player 2 before (AR) is reached,
    # so player 1 holds a full shot at Russia, like player 3 who names Russia alone.
    state = start_assignment("ERT", entries(["T(ER)", "E", "TR", "T"]))
    assert state.assignment == {"2": "E"}
    contest = next_contest(state)
    assert contest is not None and contest.power == "T" and contest.outcomes == 3
    state = apply_outcome(state, contest, contest.winning_numbers("4").start)
    russia = next_contest(state)
    assert russia is not None and russia.power == "R"
    assert shares(russia) == [("1", 1, range(0, 1)), ("3", 1, range(1, 2))]


def test_unopposed_power_inside_a_group_is_given_in_written_order() -> None:
    state = start_assignment("EFG", entries(["(GF)", "E", "E"]))
    assert Decision("G", "1", "unopposed") in state.decisions


def test_no_preference_players_share_what_is_left_with_equal_chances() -> None:
    state = start_assignment("AET", entries(["A", "*", ""]))
    contest = next_contest(state)
    assert contest is not None and contest.power == "E"
    assert shares(contest) == [("2", 1, range(0, 1)), ("3", 1, range(1, 2))]
    state = apply_outcome(state, contest, 1)
    assert state.assignment == {"1": "A", "3": "E", "2": "T"}
    assert state.decisions[-1] == Decision("T", "2", "remaining")


def test_more_powers_than_players_leaves_the_extras_unplayed_at_random() -> None:
    state = start_assignment("AET", entries(["*"]))
    contest = next_contest(state)
    assert contest is not None
    assert shares(contest) == [("1", 1, range(0, 1)), (None, 2, range(1, 3))]
    state = apply_outcome(state, contest, 2)
    assert state.decisions[-1] == Decision("A", None, "lottery", 2)


def test_more_players_than_powers_leaves_players_without_a_power() -> None:
    state = start_assignment("AE", entries(["A", "A", "E"]))
    contest = next_contest(state)
    assert contest is not None
    state = apply_outcome(state, contest, 0)
    assert state.finished and state.assignment == {"1": "A", "3": "E"}
    assert state.unassigned_players == ("2",)


def exact_distribution(state: AssignmentState) -> Counter:
    """Probability of each (player, power) pair over every possible lottery number."""
    result: Counter = Counter()

    def walk(current: AssignmentState, weight: Fraction) -> None:
        contest = next_contest(current)
        if contest is None:
            for player, power in current.assignment.items():
                result[(player, power)] += weight
            return
        for number in range(contest.outcomes):
            walk(apply_outcome(current, contest, number), weight / contest.outcomes)

    walk(state, Fraction(1))
    return result


def test_dont_care_players_are_equally_likely_to_get_any_leftover_power() -> None:
    distribution = exact_distribution(start_assignment("AETR", entries(["*", "*"])))
    assert {pair: distribution[pair] for pair in distribution} == {
        (player, power): Fraction(1, 4) for player in "12" for power in "AETR"
    }


def test_half_shot_is_kept_after_losing_the_first_lottery() -> None:
    # Player 1 likes E and F equally: half a shot at England against player 2's whole shot
    # (1 in 3), and after losing England still half a shot at France against player 3.
    distribution = exact_distribution(start_assignment("EFT", entries(["(EF)", "E", "F"])))
    assert distribution[("1", "E")] == Fraction(1, 3)
    assert distribution[("1", "F")] == Fraction(2, 3) * Fraction(1, 3)
    assert distribution[("2", "E")] == Fraction(2, 3)
    assert sum(distribution.values()) == 3


def test_apply_outcome_refuses_numbers_outside_the_range_and_stale_contests() -> None:
    state = reference_start()
    contest = next_contest(state)
    assert contest is not None
    with pytest.raises(LotteryError, match=r"number 7 is outside 0\.\.6"):
        apply_outcome(state, contest, 7)
    with pytest.raises(LotteryError, match="number -1"):
        apply_outcome(state, contest, -1)
    stale = contest_from_weights("E", [("3", 3), ("4", 1)])
    with pytest.raises(AssignmentError, match="not the one pending"):
        apply_outcome(state, stale, 0)
    done = start_assignment("A", entries(["A"]))
    with pytest.raises(AssignmentError, match="finished"):
        apply_outcome(done, stale, 0)


def test_start_refuses_lists_naming_powers_outside_the_game() -> None:
    with pytest.raises(AssignmentError, match="'1' lists \\['T'\\]"):
        start_assignment("AE", entries(["T"]))
    with pytest.raises(AssignmentError, match="players named twice"):
        start_assignment("AE", [("1", parse_preferences("A", "AE")), ("1", parse_preferences("E", "AE"))])


def test_reserve_for_a_dropped_power() -> None:
    reserves = [("8", parse_preferences("%REG", STANDARD)), ("9", parse_preferences("%ER", STANDARD)),
                ("10", parse_preferences("%", STANDARD))]
    contest = reserve_contest(reserves, "R")
    assert contest is not None and shares(contest) == [("8", 1, range(0, 1)), ("9", 1, range(1, 2))]
    only = reserve_contest(reserves, "G")
    assert only is not None and only.decided_winner == "8"
    fallback = reserve_contest(reserves, "T")
    assert fallback is not None and fallback.decided_winner == "10"
    assert reserve_contest(reserves[:2], "T") is None


@st.composite
def games(draw: st.DrawFn) -> tuple[str, list[str], list[int]]:
    letters = STANDARD[: draw(st.integers(1, 7))]
    lists = []
    for _ in range(draw(st.integers(1, 8))):
        order = draw(st.permutations(letters))
        body, rest = "", list(order[: draw(st.integers(0, len(order)))])
        while rest:
            size = draw(st.integers(1, len(rest)))
            body += rest[0] if size == 1 else "(" + "".join(rest[:size]) + ")"
            rest = rest[size:]
        lists.append(body)
    return letters, lists, draw(st.lists(st.integers(0, 10**6), min_size=20, max_size=20))


@settings(max_examples=150, deadline=None)
@given(games())
def test_any_game_ends_with_a_fair_consistent_assignment(game: tuple[str, list[str], list[int]]) -> None:
    letters, lists, seeds = game
    state = start_assignment(letters, entries(lists, letters))
    for seed in seeds:
        contest = next_contest(state)
        if contest is None:
            break
        assert len(contest.shares) >= 2
        assert [n for share in contest.shares for n in share.numbers] == list(range(contest.outcomes))
        state = apply_outcome(state, contest, seed % contest.outcomes)
    assert state.finished
    given_powers = list(state.assignment.values())
    assert len(set(given_powers)) == len(given_powers)
    assert len(given_powers) == min(len(letters), len(lists))
    for decision in state.decisions:
        if decision.how == "unopposed":
            assert decision.power in state.preference_of(decision.player).powers()
