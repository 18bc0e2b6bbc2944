"""The services harness with scheduler passes: ``judge.tick()`` runs one pass at the
harness clock and returns the mail it queued (same ``Outcome`` as ``judge.send``)."""

from __future__ import annotations

import email
from email.policy import default as default_policy

from sqlalchemy import select

from judge.config import Settings
from judge.store.models_game import Game
from judge.store.models_mail import OutboxMessage
from judge.turns.scheduler import PassReport, run_pass
from tests.judge.services.harness import JUDGE, JudgeHarness, Outcome, Sent

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

    def _last_outbox(self) -> int:
        with self.store.unit_of_work() as session:
            return session.execute(select(OutboxMessage.id).order_by(OutboxMessage.id.desc()).limit(1)).scalar() or 0

    def _outbox_since(self, last: int) -> Outcome:
        with self.store.unit_of_work() as session:
            rows = session.execute(
                select(OutboxMessage).where(OutboxMessage.id > last).order_by(OutboxMessage.id)
            ).scalars().all()
            mails = []
            for row in rows:
                message = email.message_from_bytes(row.raw, policy=default_policy)
                body = message.get_body(("plain",)).get_content()
                for address in row.recipients:
                    mails.append(Sent(address, str(message["Subject"]), body, row.kind, message))
        return Outcome(tuple(mails))

    def tick(self) -> Outcome:
        last = self._last_outbox()
        self.last_report = run_pass(self.store, SETTINGS, self.now)
        return self._outbox_since(last)

    def game(self, name: str = "g1") -> dict:
        with self.store.unit_of_work() as session:
            game = session.execute(select(Game).where(Game.name == name)).scalar_one()
            return {c: getattr(game, c) for c in ("phase", "status", "delay", "deadline", "next_due_at",
                                                   "position", "outcome", "version")}

    def orders(self, seat, lines) -> Outcome:
        return self.send(seat.address, seat.signon + "\n" + "\n".join(lines) + "\n")
