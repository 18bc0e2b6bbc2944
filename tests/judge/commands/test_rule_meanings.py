"""A master who sets an engine RULE (or mistypes one) is told what it does."""

from __future__ import annotations

import pytest

from adjudicator.api import RULES as ENGINE_RULES
from judge.rules import rule_info
from tests.judge.commands.conftest import MASTER
from tests.judge.commands.harness import JudgeHarness

# A phrase of each engine rule's meaning (README's rules table, docs/adjudication.md).
SAYS = {
    "PARADOX_SZYKMAN": "convoys caught in the paradox fail and their armies stay",
    "PARADOX_1982_DPJUDGE": "a convoyed army never cuts a support",
    "PARADOX_ALL_FAIL": "every order caught in the paradox fails",
    "NO_BELEAGUERED_CONVOY": "beleaguered fleet",
    "DATC_3": "the DATC 3.0 preferences and the 2023 rulebook",
    "CONVOY_NO_FALLBACK": "no falling back on the land route",
    "CONVOY_NEEDED_ONLY": "no convoy route of the army needs",
    "CD_REMOVE_2023": "civil-disorder removals by the 2023 rulebook",
}


def test_every_engine_rule_has_its_own_meaning() -> None:
    assert set(SAYS) == set(ENGINE_RULES)
    meanings = {name: rule_info(name).meaning for name in ENGINE_RULES}
    for name, phrase in SAYS.items():
        assert phrase in meanings[name], (name, meanings[name])
    assert len(set(meanings.values())) == len(meanings)


@pytest.mark.parametrize("rule", sorted(SAYS))
def test_setting_an_engine_rule_says_what_it_does(judge: JudgeHarness, rule: str) -> None:
    reply = judge.send(MASTER, f"CREATE g1 masterpw\nRULE {rule}\n").reply.body
    assert f"rule {rule}: " in reply and SAYS[rule] in reply, reply


def test_a_mistyped_rule_is_answered_with_the_rule_meant_and_its_meaning(judge: JudgeHarness) -> None:
    reply = judge.send(MASTER, "CREATE g1 masterpw\nRULE PARADOX_ALL_FAILS\n").reply.body
    assert "unknown rule PARADOX_ALL_FAILS; did you mean PARADOX_ALL_FAIL?" in reply, reply
    assert SAYS["PARADOX_ALL_FAIL"] in reply
    far = judge.send(MASTER, "SIGNON master@g1 masterpw\nRULE ZZZ\n").reply.body
    assert "unknown rule ZZZ (known rules:" in far, far
