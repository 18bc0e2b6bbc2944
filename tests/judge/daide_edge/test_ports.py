"""A game's DAIDE port is given in the transaction of FORM (or of RULE MACHINES in a forming
game), so the master's reply and LIST tell it before any DAIDE listener has looked at the
game; a game in preparation holds none, and one address has at most three machine games
that have not started (through the worker, judge.commands.daide_ports)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from datetime import timedelta

from judge.edge.daide import machines
from judge.commands.daide_ports import configure_ports
from judge.commands.fair_players import PassContext
from judge.config import DaideSettings
from tests.judge.commands.conftest import MASTER, create_game
from tests.judge.commands.harness import JUDGE, JudgeHarness


@pytest.fixture
def judge(tmp_path: Path) -> Iterator[JudgeHarness]:
    configure_ports(DaideSettings(host="127.0.0.1", port_range="20100-20101"))
    harness = JudgeHarness(tmp_path)
    yield harness
    harness.close()
    configure_ports(DaideSettings())


def _create(judge: JudgeHarness, name: str, *lines: str, form: bool = True, sender: str = MASTER) -> str:
    reply = judge.send(sender, "\n".join([f"CREATE {name} masterpw", *lines, *(["FORM"] if form else [])])
                       + "\n").reply.body
    assert "ERROR" not in reply, reply
    return reply


def _edge_look(judge: JudgeHarness) -> list[str]:
    """What the DAIDE edge's look does in the store with no listener open: ports of games
    that cannot use them given back, then the machine games listed with their ports."""
    with judge.store.unit_of_work(now=judge.now) as session:
        machines.free_ports(PassContext(session, judge.now, JUDGE), set(), timedelta(hours=72))
        return [f"{game.name}:{game.port}" for game in machines.machine_games(session, range(20100, 20102))]


def test_form_gives_the_port_and_the_replies_and_list_tell_it(judge: JudgeHarness) -> None:
    reply = _create(judge, "g1", "RULE MACHINES")
    assert "machine players (DAIDE bots) connect to the port the judge gives when you send FORM" in reply
    assert reply.count("machine players (DAIDE bots) connect to port 20100 of the judge's host (e.g. dumbbot -i HOST -p 20100)") == 1  # at FORM
    listing = judge.send("someone@example.net", "LIST g1\n").reply.body
    assert "machine players connect to port 20100 of the judge's host" in listing
    assert "port 20101" in _create(judge, "g2", "RULE MACHINES")
    full = _create(judge, "g3", "RULE MACHINES")
    assert "no port yet: all of 20100-20101 are taken" in full
    assert "port" not in _create(judge, "g4")


def test_a_port_given_back_by_rule_not_machines_goes_to_the_next_game_once_the_edge_let_it_go(
        judge: JudgeHarness) -> None:
    _create(judge, "g1", "RULE MACHINES")
    _create(judge, "g2", "RULE MACHINES")
    reply = judge.send(MASTER, "SIGNON master@g1 masterpw\nRULE !MACHINES\n").reply.body
    assert "rule MACHINES removed" in reply and "ERROR" not in reply
    # the edge may still listen on 20100: the port is not given until its listener is closed
    assert "no port yet" in _create(judge, "g3", "RULE MACHINES")
    assert _edge_look(judge) == ["g2:20101", "g3:20100"]


def test_games_in_preparation_hold_no_port_and_one_address_has_three_unstarted_machine_games(
        judge: JudgeHarness) -> None:
    for name in ("p1", "p2", "p3"):
        _create(judge, name, "RULE MACHINES", form=False)
    assert _edge_look(judge) == []  # nobody can play in them yet: every port stays free
    refused = judge.send(MASTER, "CREATE p4 masterpw\nRULE MACHINES\n").reply.body
    assert ("you are already master of 3 machine games that have not started (p1, p2, p3); this judge allows 3 "
            "an address ([daide] forming_games_per_address)") in refused
    other = _create(judge, "q1", "RULE MACHINES", sender="other@example.net")
    assert "port 20100" in other


def test_no_port_when_the_daide_edge_is_off(judge: JudgeHarness) -> None:
    configure_ports(DaideSettings(host=""))
    reply = _create(judge, "g1", "RULE MACHINES")
    assert "no port: this judge's DAIDE edge is off ([daide] host)" in reply
