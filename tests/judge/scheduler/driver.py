"""The commands' harness with scheduler passes: ``judge.tick()`` runs one pass at the
harness clock and returns the mail it queued (same ``Outcome`` as ``judge.send``)."""

from __future__ import annotations

from sqlalchemy import select

from judge.config import Settings
from judge.store.models_game import Game
from judge.daemon.bot_worker import run_waiting_jobs
from judge.edge.scheduler import PassReport, run_pass
from tests.judge.commands.harness import JUDGE, JudgeHarness, Outcome

SETTINGS = Settings(judge=JUDGE)

# A legal opening for every power (S1901M), used where the moves do not matter.
HOLDS = {
    "AUSTRIA": ["A VIE H", "A BUD H", "F TRI H"],
    "ENGLAND": ["F LON H", "F EDI H", "A LVP H"],
    "FRANCE": ["A PAR H", "A MAR H", "F BRE H"],
    "GERMANY": ["A BER H", "A MUN H", "F KIE H"],
    "ITALY": ["A ROM H", "A VEN H", "F NAP H"],
    "RUSSIA": ["A MOS H", "A WAR H", "F SEV H", "F STP/SC H"],
    "TURKEY": ["A CON H", "A SMY H", "F ANK H"],
}


class TurnHarness(JudgeHarness):
    last_report: PassReport | None = None

    def tick(self) -> Outcome:
        """One pass, then the judge's bot's moves it asked for (each phase processed once
        they are in), as `judge tick` does."""
        last = self.last_outbox_id()
        self.last_report = run_pass(self.store, SETTINGS, self.now)
        self.bots()
        return self.outbox_since(last)

    def bots(self) -> int:
        """Every waiting bot job, as a bot process would; how many."""
        return run_waiting_jobs(self.store, SETTINGS, lambda: self.now)

    def game(self, name: str = "g1") -> dict:
        with self.store.unit_of_work() as session:
            game = session.execute(select(Game).where(Game.name == name)).scalar_one()
            return {c: getattr(game, c) for c in ("phase", "status", "delay", "deadline", "next_due_at",
                                                   "position", "outcome", "version")}

    def orders(self, seat, lines) -> Outcome:
        return self.send(seat.address, seat.signon + "\n" + "\n".join(lines) + "\n")
