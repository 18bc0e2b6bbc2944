"""A game's DAIDE port is given in the transaction of RULE MACHINES, so the master's reply
and LIST tell it before any DAIDE listener has looked at the game (through the worker,
judge.commands.daide_ports)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from judge.commands.daide_ports import configure_ports
from judge.config import DaideSettings
from tests.judge.services.conftest import MASTER, create_game
from tests.judge.services.harness import JudgeHarness


@pytest.fixture
def judge(tmp_path: Path) -> Iterator[JudgeHarness]:
    configure_ports(DaideSettings(host="127.0.0.1", port_range="20100-20101"))
    harness = JudgeHarness(tmp_path)
    yield harness
    harness.close()
    configure_ports(DaideSettings())


def _create(judge: JudgeHarness, name: str, *lines: str) -> str:
    reply = judge.send(MASTER, "\n".join([f"CREATE {name} masterpw", *lines, "FORM"]) + "\n").reply.body
    assert "ERROR" not in reply, reply
    return reply


def test_rule_machines_gives_the_port_and_the_replies_and_list_tell_it(judge: JudgeHarness) -> None:
    reply = _create(judge, "g1", "RULE MACHINES")
    assert reply.count("port 20100 of the judge's host (e.g. dumbbot -i<host> -p20100)") == 2  # RULE and FORM
    listing = judge.send("someone@example.net", "LIST g1\n").reply.body
    assert "machine players connect to port 20100 of the judge's host" in listing
    assert "port 20101" in _create(judge, "g2", "RULE MACHINES")
    full = _create(judge, "g3", "RULE MACHINES")
    assert "no port yet: all of 20100-20101 are taken" in full
    assert "port" not in _create(judge, "g4")


def test_a_port_given_back_by_rule_not_machines_goes_to_the_next_game(judge: JudgeHarness) -> None:
    _create(judge, "g1", "RULE MACHINES")
    _create(judge, "g2", "RULE MACHINES")
    reply = judge.send(MASTER, "SIGNON master@g1 masterpw\nRULE !MACHINES\n").reply.body
    assert "rule MACHINES removed" in reply and "ERROR" not in reply
    assert "port 20100" in _create(judge, "g3", "RULE MACHINES")


def test_no_port_when_the_daide_edge_is_off(judge: JudgeHarness) -> None:
    configure_ports(DaideSettings(host=""))
    reply = _create(judge, "g1", "RULE MACHINES")
    assert "no port: this judge's DAIDE edge is off ([daide] host)" in reply
