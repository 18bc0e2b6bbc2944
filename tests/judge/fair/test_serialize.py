import json
import random

import pytest

from judge.fair.assignment import apply_outcome, next_contest, start_assignment
from judge.fair.blind_messages import FormatPublished
from judge.fair.blind_protocol import GmSide, PlayerSide, WitnessSide
from judge.fair.lottery import Lottery
from judge.fair.preferences import parse_preferences
from judge.fair.serialize import from_data, to_data

STANDARD = "AEFGIRT"


def through_json(value: object) -> object:
    return from_data(json.loads(json.dumps(to_data(value))))


def test_an_assignment_stored_between_lotteries_continues_identically() -> None:
    lists = ["AE(GI)R", "FRG", "(EFG)TI(AR)", "E", "", "FRA", "GRA", "%REG"]
    state = start_assignment(STANDARD, [(str(i), parse_preferences(t, STANDARD)) for i, t in enumerate(lists, 1)])
    contest = next_contest(state)
    stored_state, stored_contest = through_json(state), through_json(contest)
    assert stored_state == state and stored_contest == contest
    assert apply_outcome(stored_state, stored_contest, 5) == apply_outcome(state, contest, 5)


def test_protocol_states_messages_and_lotteries_survive_storage() -> None:
    step = GmSide.start(["a", "b", "c"], ("X", "Y", "Z"), random.Random(3))
    witness = WitnessSide.from_request(step.outgoing[0])
    lottery = Lottery.announce(7, ("a", "b")).commit("b").publish_commitments(deadline_passed=True).reveal("b", 6)
    for value in (step.state, witness, PlayerSide("a", blind="123"), lottery, *step.outgoing,
                  FormatPublished(("a",), step.state.format)):
        assert through_json(value) == value


def test_unknown_data_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown stored type 'Popen'"):
        from_data({"type": "Popen", "fields": {}})
    with pytest.raises(TypeError):
        to_data(object())
