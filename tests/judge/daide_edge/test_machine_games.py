"""Machine players in the judge's games: real AiClient bots over DAIDE, the judge's store,
its scheduler passes and its mail path (tests.judge.services.harness)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from adjudicator import api
from adjudicator.jsonio import position_from_json
from adjudicator.tables import tables_for
from daide.messages import to_text
from daide.orders import ord_messages
from daide.render import now as now_message, supply_centres
from daide.tokens import TokenTable
from judge.services.games import variant_of
from judge.store.models_game import PhaseRecord
from tests.judge.daide_edge.machines import MachineJudge, Watcher, bot_path, sent_and_thanked, wait_until
from adjudicator.types import Phase


def reached(machine: MachineJudge, phase: str) -> bool:
    game = machine.game()
    return game.status == "ended" or (game.phase is not None and Phase.parse(game.phase) >= Phase.parse(phase))


def test_seven_dumbbots_play_to_winter_1905_and_every_broadcast_matches_our_adjudication(tmp_path: Path) -> None:
    bot_path("dumbbot")
    machine = MachineJudge(tmp_path)
    try:
        watcher = Watcher(machine.port)
        for _ in range(7):
            machine.start_bot("dumbbot")
        wait_until(lambda: reached(machine, "W1905A"), "the bots' game to reach Winter 1905", timeout=90)
        game = machine.game()
        variant = variant_of(game)
        table, tables = TokenTable.for_variant(variant), tables_for(variant)
        with machine.judge.store.sessions() as session:
            records = session.scalars(select(PhaseRecord).order_by(PhaseRecord.id)).all()
        assert len(records) >= 10
        wait_until(lambda: sum(m[0] == "NOW" for m in watcher.messages) >= len(records), "the observer's NOWs")
        heard = [to_text(m) for m in watcher.messages]
        for record in records:
            before = position_from_json(variant, record.position_before)
            after = position_from_json(variant, record.position_after)
            board = api.prepare(variant, before)
            again = api.adjudicate(board, {p: api.parse_orders(board, p, lines) for p, lines in record.orders.items()})
            assert {(r.power, r.order, r.result) for r in again.results} == \
                   {(r["power"], r["order"], r["result"]) for r in record.results}, record.phase
            assert api.position_digest(again.position) == api.position_digest(after)
            for line in ord_messages(table, tables, before, again.results, again.dislodged):
                assert to_text(line) in heard, f"{record.phase}: {to_text(line)} not broadcast"
            assert to_text(now_message(table, after)) in heard
            assert to_text(supply_centres(variant, table, after.centers)) in heard
        for bot in machine.bots:
            submitted, notes = sent_and_thanked(bot)
            assert submitted > 0 and len(notes) == submitted, bot.folder
            assert set(notes) == {"MBV"}, bot.folder
            assert not [line for line in bot.log() if line.startswith((">> HUH", ">> REJ", ">> PRN"))]
    finally:
        machine.close()
