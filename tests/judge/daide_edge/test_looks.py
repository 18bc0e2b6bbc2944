"""The DAIDE edge's looks at the store: only RULE MACHINES games are listed (read by a
narrow query, not every running game), and a machine game made while the edge idles
(no machine game yet, its looks spaced out) still gets its port."""

from __future__ import annotations

from pathlib import Path

from judge.edge.daide import machines
from judge.commands.daide_ports import configure_ports
from judge.config import DaideSettings, Settings
from judge.edge.daide import DaideEdge
from judge.edge.scheduler import run_pass
from tests.fixtures.ports import free_port
from tests.judge.daide_edge.machines import wait_until
from tests.judge.commands.conftest import create_game
from tests.judge.commands.harness import JUDGE, JudgeHarness


def test_only_games_with_the_machines_rule_are_listed_each_with_a_port(tmp_path: Path) -> None:
    judge = JudgeHarness(tmp_path)
    try:
        create_game(judge, name="plain")
        create_game(judge, "RULE MACHINES", name="bots")
        with judge.store.unit_of_work() as session:
            listed = machines.machine_games(session, range(16713, 16715))
        assert [(game.name, game.port) for game in listed] == [("bots", 16713)]
        with judge.store.unit_of_work() as session:  # the port is kept
            assert [game.port for game in machines.machine_games(session, range(16713, 16715))] == [16713]
    finally:
        judge.close()


def test_a_machine_game_made_while_the_edge_idles_gets_its_port(tmp_path: Path) -> None:
    judge = JudgeHarness(tmp_path)
    port = free_port()
    settings = Settings(judge=JUDGE, daide=DaideSettings(host="127.0.0.1", port_range=f"{port}-{port}",
                                                         poll_seconds=0.05))
    configure_ports(settings.daide)  # as judge serve does: RULE MACHINES gives this port
    edge = DaideEdge(judge.store, settings, run_pass, clock=lambda: judge.now)
    edge.start()
    try:
        create_game(judge, name="plain")
        wait_until(lambda: edge.idle_pause > settings.daide.poll_seconds, "the edge to space its looks out")
        assert not edge.servers
        create_game(judge, "RULE MACHINES", name="bots")
        wait_until(lambda: edge.servers, "the machine game's DAIDE port to open")
        assert edge.ports_of == {2: port}
        wait_until(lambda: edge.idle_pause == settings.daide.poll_seconds, "the looks to come at the set pace again")
    finally:
        edge.stop()
        configure_ports(DaideSettings())
        judge.close()
